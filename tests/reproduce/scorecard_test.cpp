// Claim evaluation (hand-computed), the scorecard's JSON round trip, and the generated section
// of docs/reproduction/README.md being up to date with docs/reproduction/scorecard.json.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sim/reproduce/generated_page.hpp"
#include "sim/reproduce/scorecard.hpp"

namespace sim::reproduce {
namespace {

using nlohmann::json;

RunOutcome ok(json summary) {
  return RunOutcome{true, std::move(summary), ""};
}

Rule rule(RuleKind kind, double tolerance = 0.0, std::optional<double> bound = std::nullopt) {
  Rule r;
  r.kind = kind;
  r.tolerance = tolerance;
  r.bound = bound;
  return r;
}

Claim make_claim(MetricKind kind, std::vector<Term> terms, Rule rule,
                 std::optional<double> paper = std::nullopt) {
  Claim c;
  c.id = "c";
  c.kind = kind;
  c.terms = std::move(terms);
  c.rule = rule;
  c.paper_value = paper;
  return c;
}

const std::map<std::string, RunOutcome> kRuns = {
    {"a", ok({{"latency_s", {{"mean", 1.0}}}, {"slo", {{"compliance", 0.9}}}})},
    {"b", ok({{"latency_s", {{"mean", 4.0}}}, {"slo", {{"compliance", 0.8}}}})},
    {"c", ok({{"latency_s", {{"mean", 2.0}}}, {"slo", {{"compliance", nullptr}}}})},
    {"failed", RunOutcome{false, json(), "failed: boom"}},
};

TEST(Evaluate, ValueWithinAnAbsoluteTolerance) {
  // 0.9 vs paper 0.94: |0.9 - 0.94| = 0.04 <= 0.05 holds; <= 0.03 misses.
  const auto holds = evaluate_claim(
      make_claim(MetricKind::kValue, {{"a", "slo.compliance"}}, rule(RuleKind::kAbs, 0.05), 0.94),
      kRuns);
  EXPECT_EQ(holds.verdict, Verdict::kHolds);
  ASSERT_EQ(holds.values.size(), 1U);
  EXPECT_DOUBLE_EQ(holds.values[0], 0.9);
  const auto misses = evaluate_claim(
      make_claim(MetricKind::kValue, {{"a", "slo.compliance"}}, rule(RuleKind::kAbs, 0.03), 0.94),
      kRuns);
  EXPECT_EQ(misses.verdict, Verdict::kMisses);
}

TEST(Evaluate, ValueWithinAFactor) {
  // Mean latency 4.0 vs paper 2.5: within 2x (1.25 .. 5.0) holds; within 1.5x (1.67 .. 3.75)
  // misses. 1.0 vs paper 2.5 is below 2.5 / 2 = 1.25: misses.
  auto eval = [](const char* run, double factor) {
    return evaluate_claim(make_claim(MetricKind::kValue, {{run, "latency_s.mean"}},
                                     rule(RuleKind::kFactor, factor), 2.5),
                          kRuns)
        .verdict;
  };
  EXPECT_EQ(eval("b", 2.0), Verdict::kHolds);
  EXPECT_EQ(eval("b", 1.5), Verdict::kMisses);
  EXPECT_EQ(eval("a", 2.0), Verdict::kMisses);
}

TEST(Evaluate, RatioReductionAndPercentagePoints) {
  // ratio a/b = 1/4 = 0.25, within 10% of 0.24 (0.024) holds: |0.25-0.24| = 0.01.
  const auto ratio = evaluate_claim(
      make_claim(MetricKind::kRatio, {{"a", "latency_s.mean"}, {"b", "latency_s.mean"}},
                 rule(RuleKind::kRel, 0.1), 0.24),
      kRuns);
  EXPECT_DOUBLE_EQ(ratio.values[0], 0.25);
  EXPECT_EQ(ratio.verdict, Verdict::kHolds);
  // reduction of a against b = 100 * (1 - 1/4) = 75 (percent).
  const auto reduction = evaluate_claim(
      make_claim(MetricKind::kReduction, {{"a", "latency_s.mean"}, {"b", "latency_s.mean"}},
                 rule(RuleKind::kAtLeast, 0.0, 80.0)),
      kRuns);
  EXPECT_DOUBLE_EQ(reduction.values[0], 75.0);
  EXPECT_EQ(reduction.verdict, Verdict::kMisses);  // 75 < 80
  // difference in points: 100 * (0.9 - 0.8) = 10 > 0.
  const auto pp = evaluate_claim(
      make_claim(MetricKind::kDifferencePp, {{"a", "slo.compliance"}, {"b", "slo.compliance"}},
                 rule(RuleKind::kSign)),
      kRuns);
  EXPECT_NEAR(pp.values[0], 10.0, 1e-12);
  EXPECT_EQ(pp.verdict, Verdict::kHolds);
}

TEST(Evaluate, MeanRatio) {
  // (a/b + c/a) / 2 = (1/4 + 2/1) / 2 = 1.125; within 20% of 1.0 (0.8 .. 1.2) holds.
  const auto r = evaluate_claim(make_claim(MetricKind::kMeanRatio,
                                           {{"a", "latency_s.mean"},
                                            {"b", "latency_s.mean"},
                                            {"c", "latency_s.mean"},
                                            {"a", "latency_s.mean"}},
                                           rule(RuleKind::kRel, 0.2), 1.0),
                                kRuns);
  ASSERT_EQ(r.values.size(), 1U);
  EXPECT_DOUBLE_EQ(r.values[0], 1.125);
  EXPECT_EQ(r.verdict, Verdict::kHolds);
}

TEST(Evaluate, MeanReduction) {
  // a vs b: 100 (1 - 1/4) = 75; c vs b: 100 (1 - 2/4) = 50; mean 62.5, within 5 of 60 holds.
  const auto r = evaluate_claim(make_claim(MetricKind::kMeanReduction,
                                           {{"a", "latency_s.mean"},
                                            {"b", "latency_s.mean"},
                                            {"c", "latency_s.mean"},
                                            {"b", "latency_s.mean"}},
                                           rule(RuleKind::kAbs, 5.0), 60.0),
                                kRuns);
  ASSERT_EQ(r.values.size(), 1U);
  EXPECT_DOUBLE_EQ(r.values[0], 62.5);
  EXPECT_EQ(r.verdict, Verdict::kHolds);
}

TEST(Evaluate, AnExpressionTerm) {
  // a's latency_s.mean * 10 = 10 over b's latency_s.mean / slo.compliance = 4 / 0.8 = 5: 2.
  const auto r = evaluate_claim(
      make_claim(MetricKind::kRatio,
                 {{"a", "latency_s.mean * 10"}, {"b", "latency_s.mean / slo.compliance"}},
                 rule(RuleKind::kAbs, 1e-9), 2.0),
      kRuns);
  ASSERT_EQ(r.values.size(), 1U);
  EXPECT_DOUBLE_EQ(r.values[0], 2.0);
  EXPECT_EQ(r.verdict, Verdict::kHolds);
  // c's compliance is null: not comparable, and the reason names the run and the metric.
  const auto none = evaluate_claim(
      make_claim(MetricKind::kValue, {{"c", "1 - slo.compliance"}}, rule(RuleKind::kAbs), 0.0),
      kRuns);
  EXPECT_EQ(none.verdict, Verdict::kNotComparable);
  EXPECT_EQ(none.reason, "run c: metric slo.compliance is null, not a number");
}

TEST(Evaluate, Ordering) {
  // means: b 4 > c 2 > a 1 is strictly descending; a, c, b is not.
  const Rule descending = rule(RuleKind::kOrdering);
  const auto holds = evaluate_claim(
      make_claim(MetricKind::kOrdering,
                 {{"b", "latency_s.mean"}, {"c", "latency_s.mean"}, {"a", "latency_s.mean"}},
                 descending),
      kRuns);
  EXPECT_EQ(holds.verdict, Verdict::kHolds);
  EXPECT_EQ(holds.values, (std::vector<double>{4.0, 2.0, 1.0}));
  const auto misses = evaluate_claim(
      make_claim(MetricKind::kOrdering,
                 {{"a", "latency_s.mean"}, {"c", "latency_s.mean"}, {"b", "latency_s.mean"}},
                 descending),
      kRuns);
  EXPECT_EQ(misses.verdict, Verdict::kMisses);
  Rule ascending = rule(RuleKind::kOrdering);
  ascending.descending = false;
  EXPECT_EQ(
      evaluate_claim(make_claim(MetricKind::kOrdering,
                                {{"a", "latency_s.mean"}, {"b", "latency_s.mean"}}, ascending),
                     kRuns)
          .verdict,
      Verdict::kHolds);
}

TEST(Evaluate, NotComparableWithTheReason) {
  const Rule any = rule(RuleKind::kSign);
  const auto failed =
      evaluate_claim(make_claim(MetricKind::kValue, {{"failed", "slo.compliance"}}, any), kRuns);
  EXPECT_EQ(failed.verdict, Verdict::kNotComparable);
  // The second term fails: the first's value is not reported as the claim's.
  const auto half = evaluate_claim(
      make_claim(MetricKind::kRatio, {{"a", "latency_s.mean"}, {"failed", "latency_s.mean"}},
                 rule(RuleKind::kSign)),
      kRuns);
  EXPECT_EQ(half.verdict, Verdict::kNotComparable);
  EXPECT_TRUE(half.values.empty());
  EXPECT_NE(failed.reason.find("boom"), std::string::npos);
  const auto missing =
      evaluate_claim(make_claim(MetricKind::kValue, {{"a", "no.such"}}, any), kRuns);
  EXPECT_TRUE(missing.values.empty());
  EXPECT_EQ(missing.verdict, Verdict::kNotComparable);
  EXPECT_NE(missing.reason.find("no.such"), std::string::npos);
  const auto null_value =
      evaluate_claim(make_claim(MetricKind::kValue, {{"c", "slo.compliance"}}, any), kRuns);
  EXPECT_EQ(null_value.verdict, Verdict::kNotComparable);
  auto declared = make_claim(MetricKind::kValue, {}, any);
  declared.not_comparable = "measured on a testbed";
  const auto r = evaluate_claim(declared, kRuns);
  EXPECT_EQ(r.verdict, Verdict::kNotComparable);
  EXPECT_EQ(r.reason, "measured on a testbed");
}

TEST(Scorecard, RatchetAndSuggestionsAndJsonRoundTrip) {
  auto marked =
      make_claim(MetricKind::kValue, {{"a", "slo.compliance"}}, rule(RuleKind::kAbs, 0.01), 0.5);
  marked.id = "marked-but-misses";
  marked.reproduced = true;
  auto unmarked =
      make_claim(MetricKind::kValue, {{"a", "slo.compliance"}}, rule(RuleKind::kAbs, 0.01), 0.9);
  unmarked.id = "holds-unmarked";
  Scorecard card;
  card.families.push_back(
      {"queueing", "test", "", {evaluate_claim(marked, kRuns), evaluate_claim(unmarked, kRuns)}});
  ASSERT_EQ(card.regressions().size(), 1U);
  EXPECT_EQ(card.regressions()[0]->claim.id, "marked-but-misses");
  ASSERT_EQ(card.suggestions().size(), 1U);
  EXPECT_EQ(card.suggestions()[0]->claim.id, "holds-unmarked");
  const auto doc = to_json(card);
  EXPECT_EQ(to_json(scorecard_from_json(doc)), doc);
  EXPECT_EQ(to_markdown(scorecard_from_json(doc)), to_markdown(card));
}

TEST(Scorecard, PageSectionReplacesOnlyBetweenTheMarkers) {
  const std::string page =
      std::string("intro\n") + kBeginMarker + "\nold\n" + kEndMarker + "\nprose kept\n";
  const auto updated = replace_page_section(page, "new\n");
  EXPECT_EQ(updated,
            std::string("intro\n") + kBeginMarker + "\nnew\n" + kEndMarker + "\nprose kept\n");
  EXPECT_THROW(replace_page_section("no markers", "x"), std::runtime_error);
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The generated section of the summary page must be what the stored full-size scorecard
// renders to; regenerate it with
//   dcsim reproduce --page docs/reproduction/README.md docs/reproduction/scorecard.json
TEST(Scorecard, ReproductionSummaryPageIsUpToDate) {
  const auto card =
      scorecard_from_json(json::parse(read(SIM_SOURCE_DIR "/docs/reproduction/scorecard.json")));
  const auto page = read(SIM_SOURCE_DIR "/docs/reproduction/README.md");
  EXPECT_EQ(replace_page_section(page, page_section(card)), page)
      << "docs/reproduction/README.md is stale: run `dcsim reproduce --page "
         "docs/reproduction/README.md docs/reproduction/scorecard.json`";
}

}  // namespace
}  // namespace sim::reproduce
