// Claim files: the shipped ones load; malformed ones are rejected naming the JSON path.

#include <gtest/gtest.h>

#include <string>

#include "sim/config/diagnostics.hpp"
#include "sim/reproduce/claims.hpp"
#include "support/test_files.hpp"

namespace sim::reproduce {
namespace {

using test_support::TempDir;

const std::string kRuns = R"("runs": [{"id": "a", "ci": {"scenario": "a.json"}},
                                     {"id": "b", "full": {"scenario": "b.json", "set": ["seed=2"]}}])";

std::string file_with_claim(const std::string& claim) {
  return R"({"family": "queueing", "paper": "test", )" + kRuns + R"(, "claims": [)" + claim + "]}";
}

/// The message of the ConfigError that loading `text` throws ("" if it loads).
std::string load_error(const TempDir& dir, const std::string& text) {
  const auto path = dir.write("claims.json", text);
  try {
    load_claim_file(path);
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(Claims, ShippedClaimFilesLoad) {
  for (const char* family : {"queueing", "protean", "flashpoint", "harmonybatch", "infless"}) {
    const auto file =
        load_claim_file(std::string(SIM_SOURCE_DIR "/data/reproduction/") + family + ".json");
    EXPECT_EQ(file.family, family);
    EXPECT_FALSE(file.claims.empty()) << family;
    for (const auto& run : file.runs) {
      // Every scenario a run names exists (paths are relative to the claim file).
      for (const auto* v : {run.variant(Size::kCi), run.variant(Size::kFull)}) {
        if (v != nullptr) {
          EXPECT_TRUE(std::filesystem::exists(v->scenario)) << v->scenario;
        }
      }
    }
  }
}

TEST(Claims, ReadsRunsTermsAndRules) {
  const TempDir dir("claims-read");
  const auto path = dir.write("claims.json", file_with_claim(R"({
      "id": "x", "statement": "s", "paper": {"where": "Fig. 1", "text": "75%", "value": 75},
      "metric": {"kind": "reduction", "of": ["a:latency_s.mean", "b:latency_s.mean"]},
      "rule": {"kind": "abs", "tolerance": 5}})"));
  const auto f = load_claim_file(path);
  ASSERT_EQ(f.runs.size(), 2U);
  EXPECT_EQ(f.runs[0].ci->scenario, dir.path() / "a.json");
  EXPECT_EQ(f.runs[0].variant(Size::kFull), nullptr);
  EXPECT_EQ(f.runs[1].variant(Size::kCi), nullptr);
  EXPECT_EQ(f.runs[1].full->overrides, std::vector<std::string>{"seed=2"});
  ASSERT_EQ(f.claims.size(), 1U);
  const auto& c = f.claims[0];
  EXPECT_EQ(c.kind, MetricKind::kReduction);
  ASSERT_EQ(c.terms.size(), 2U);
  EXPECT_EQ(c.terms[1].run, "b");
  EXPECT_EQ(c.terms[1].metric, "latency_s.mean");
  EXPECT_EQ(c.rule.kind, RuleKind::kAbs);
  EXPECT_DOUBLE_EQ(c.rule.tolerance, 5.0);
  EXPECT_EQ(c.paper_value, 75.0);
  EXPECT_FALSE(c.reproduced);
}

TEST(Claims, RejectsARatchetOnARunWithoutACiVariant) {
  // Run b has only a full-size variant: CI could never check the claim.
  const TempDir dir("claims-ratchet");
  const auto message = load_error(dir, file_with_claim(R"({
      "id": "x", "statement": "s", "paper": {"where": "w", "text": "t", "value": 1},
      "metric": {"of": ["b:x"]}, "rule": {"kind": "abs"}, "reproduced": true})"));
  EXPECT_NE(message.find("/claims/0/reproduced"), std::string::npos) << message;
}

TEST(Claims, RejectsAnUnknownRunNamingThePath) {
  const TempDir dir("claims-run");
  const auto message = load_error(dir, file_with_claim(R"({
      "id": "x", "statement": "s", "paper": {"where": "w", "text": "t", "value": 1},
      "metric": {"of": ["c:latency_s.mean"]}, "rule": {"kind": "abs"}})"));
  EXPECT_NE(message.find("/claims/0/metric/of/0"), std::string::npos) << message;
  EXPECT_NE(message.find("\"c\""), std::string::npos) << message;
}

TEST(Claims, RejectsABadRuleKindAndAWrongArity) {
  const TempDir dir("claims-rule");
  const auto message = load_error(dir, file_with_claim(R"({
      "id": "x", "statement": "s", "paper": {"where": "w", "text": "t"},
      "metric": {"kind": "ratio", "of": ["a:x"]}, "rule": {"kind": "roughly"}})"));
  EXPECT_NE(message.find("/claims/0/rule/kind"), std::string::npos) << message;
  EXPECT_NE(message.find("roughly"), std::string::npos) << message;
}

TEST(Claims, RejectsATermWithoutARunAndAMissingPaperValue) {
  const TempDir dir("claims-term");
  const auto message = load_error(dir, file_with_claim(R"({
      "id": "x", "statement": "s", "paper": {"where": "w", "text": "t"},
      "metric": {"of": ["latency_s.mean"]}, "rule": {"kind": "rel", "tolerance": 0.1}})"));
  EXPECT_NE(message.find("expected \"RUN:METRIC\""), std::string::npos) << message;
  EXPECT_NE(message.find("/claims/0/paper/value"), std::string::npos) << message;
}

TEST(Claims, RejectsAFactorBelowOne) {
  const TempDir dir("claims-factor");
  const auto message = load_error(dir, file_with_claim(R"({
      "id": "x", "statement": "s", "paper": {"where": "w", "text": "t", "value": 2},
      "metric": {"of": ["a:x"]}, "rule": {"kind": "factor", "tolerance": 0.5}})"));
  EXPECT_NE(message.find("/claims/0/rule/tolerance"), std::string::npos) << message;
  EXPECT_NE(message.find("factor >= 1"), std::string::npos) << message;
}

TEST(Claims, RejectsAnOrderingRuleOnAValue) {
  const TempDir dir("claims-order");
  const auto message = load_error(dir, file_with_claim(R"({
      "id": "x", "statement": "s", "paper": {"where": "w", "text": "t"},
      "metric": {"of": ["a:x"]}, "rule": {"kind": "ordering"}})"));
  EXPECT_NE(message.find("/claims/0/rule/kind"), std::string::npos) << message;
}

TEST(Claims, RejectsAnUnknownKeyWithASuggestion) {
  const TempDir dir("claims-key");
  const auto message = load_error(dir, file_with_claim(R"({
      "id": "x", "statement": "s", "paper": {"where": "w", "text": "t", "value": 1},
      "metric": {"of": ["a:x"]}, "rule": {"kind": "abs"}, "reproducd": true})"));
  EXPECT_NE(message.find("/claims/0/reproducd"), std::string::npos) << message;
  EXPECT_NE(message.find("reproduced"), std::string::npos) << message;
}

TEST(Claims, ReadsARateSearchAndChecksItsRange) {
  const TempDir dir("claims-search");
  const auto path = dir.write("claims.json", R"({"family": "infless", "paper": "t", "runs": [
      {"id": "s", "full": {"scenario": "s.json", "search": {"low": 0, "high": 1200}}}],
      "claims": [{"id": "x", "statement": "s", "paper": {"where": "w", "text": "t", "value": 5},
                  "metric": {"of": ["s:search.throughput_rps"]}, "rule": {"kind": "abs"}}]})");
  const auto f = load_claim_file(path);
  ASSERT_TRUE(f.runs[0].full->search.has_value());
  EXPECT_DOUBLE_EQ(f.runs[0].full->search->high, 1200.0);
  EXPECT_EQ(f.runs[0].full->search->steps, 8);             // schema default
  EXPECT_DOUBLE_EQ(f.runs[0].full->search->target, 0.95);  // schema default
  const auto empty_range = load_error(dir, R"({"family": "infless", "paper": "t", "runs": [
      {"id": "s", "full": {"scenario": "s.json", "search": {"low": 10, "high": 5}}}],
      "claims": []})");
  EXPECT_NE(empty_range.find("/runs/0/full/search/high"), std::string::npos) << empty_range;
  const auto no_steps = load_error(dir, R"({"family": "infless", "paper": "t", "runs": [
      {"id": "s", "full": {"scenario": "s.json", "search": {"low": 0, "high": 5, "steps": 0}}}],
      "claims": []})");
  EXPECT_NE(no_steps.find("/runs/0/full/search/steps"), std::string::npos) << no_steps;
}

TEST(Claims, RejectsAMeanRatioOfAnOddNumberOfTerms) {
  const TempDir dir("claims-mean-ratio");
  const auto message = load_error(dir, file_with_claim(R"({
      "id": "x", "statement": "s", "paper": {"where": "w", "text": "t", "value": 1},
      "metric": {"kind": "mean_ratio", "of": ["a:x", "b:x", "a:y"]},
      "rule": {"kind": "rel", "tolerance": 0.2}})"));
  EXPECT_NE(message.find("/claims/0/metric/of"), std::string::npos) << message;
  EXPECT_NE(message.find("even number"), std::string::npos) << message;
}

TEST(Claims, ReadsQuantitiesAndExpressionTerms) {
  // resource = 2 * x + y; term a: z / $resource on {x: 3, y: 4, z: 20} is 20 / 10 = 2.
  const TempDir dir("claims-quantities");
  const auto path = dir.write("claims.json", R"({"family": "queueing", "paper": "test",
      "quantities": [{"id": "resource", "expr": "2 * x + y", "doc": "weights: test"},
                     {"id": "per_resource", "expr": "z / $resource", "doc": "test"}],
      )" + kRuns + R"(, "claims": [{
      "id": "x", "statement": "s", "paper": {"where": "w", "text": "t", "value": 2},
      "metric": {"of": ["a:$per_resource"]}, "rule": {"kind": "abs"}}]})");
  const auto f = load_claim_file(path);
  ASSERT_EQ(f.quantities.size(), 2U);
  ASSERT_EQ(f.claims[0].terms.size(), 1U);
  const auto& t = f.claims[0].terms[0];
  EXPECT_EQ(t.metric, "$per_resource");
  std::string reason;
  const auto v = t.value.evaluate({{"x", 3.0}, {"y", 4.0}, {"z", 20.0}}, reason);
  ASSERT_TRUE(v.has_value()) << reason;
  EXPECT_DOUBLE_EQ(*v, 2.0);
}

TEST(Claims, RejectsBadExpressionsNamingThePath) {
  const TempDir dir("claims-expression");
  // A term that does not parse: the path of the term and the character.
  const auto term = load_error(dir, file_with_claim(R"({
      "id": "x", "statement": "s", "paper": {"where": "w", "text": "t", "value": 1},
      "metric": {"of": ["a:x / (y + 1"]}, "rule": {"kind": "abs"}})"));
  EXPECT_NE(term.find("/claims/0/metric/of/0"), std::string::npos) << term;
  EXPECT_NE(term.find("expected ')'"), std::string::npos) << term;
  // A quantity naming one defined after it, and a quantity name with a dot.
  const auto quantity = load_error(dir, R"({"family": "queueing", "paper": "test",
      "quantities": [{"id": "q1", "expr": "$q2 + 1", "doc": "d"},
                     {"id": "q2", "expr": "1", "doc": "d"},
                     {"id": "a.b", "expr": "1", "doc": "d"}],
      "runs": [], "claims": []})");
  EXPECT_NE(quantity.find("/quantities/0/expr"), std::string::npos) << quantity;
  EXPECT_NE(quantity.find("\"q2\""), std::string::npos) << quantity;
  EXPECT_NE(quantity.find("/quantities/2/id"), std::string::npos) << quantity;
  // A term naming an unknown quantity.
  const auto unknown = load_error(dir, file_with_claim(R"({
      "id": "x", "statement": "s", "paper": {"where": "w", "text": "t", "value": 1},
      "metric": {"of": ["a:$nothing"]}, "rule": {"kind": "abs"}})"));
  EXPECT_NE(unknown.find("/claims/0/metric/of/0"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("\"nothing\""), std::string::npos) << unknown;
}

}  // namespace
}  // namespace sim::reproduce
