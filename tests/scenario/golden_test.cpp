// Golden metric files: parsing with errors that name the JSON path, metric lookup, the
// tolerance rule |actual - expected| <= abs + rel * |expected|, and regeneration.

#include "sim/scenario/golden.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "sim/config/diagnostics.hpp"
#include "support/test_files.hpp"

namespace sim::scenario {
namespace {

using nlohmann::json;
using test_support::TempDir;

const json kSummary = json::parse(R"({
  "requests": {"completed": 1000, "dropped": 0},
  "latency_s": {"p99": 0.25, "mean": 0.1},
  "per_class": {"strict": {"slo": {"compliance": 0.95}}, "best_effort": {"slo": {"compliance": null}}},
  "partial": false,
  "per_function": {"a.b": {"count": 7}}
})");

GoldenFile golden_with(const TempDir& dir, const std::string& metrics) {
  const auto file = dir.write("golden/g.json", R"({"scenario": "../s.json", "tolerance": "t",
    "metrics": )" + metrics + "}");
  return load_golden(file);
}

TEST(GoldenFile, ResolvesTheScenarioAgainstItsOwnDirectory) {
  const TempDir dir("golden-path");
  const auto g = golden_with(dir, R"({"requests.completed": {"expected": 1000}})");
  EXPECT_EQ(g.scenario, (dir.path() / "s.json").lexically_normal());
  ASSERT_EQ(g.metrics.size(), 1U);
  EXPECT_EQ(g.metrics[0].abs_tolerance, 0.0);
  EXPECT_EQ(g.metrics[0].rel_tolerance, 0.0);
}

TEST(GoldenFile, ReportsEveryProblemWithItsJsonPath) {
  const TempDir dir("golden-errors");
  const auto file = dir.write("g.json", R"({"scenaro": "x.json", "set": ["no-equals"],
    "metrics": {"a": {"expected": 1, "rel": -1}, "b": {"abs": 1}, "c": {"expected": 1, "tol": 2}}})");
  try {
    (void)load_golden(file);
    FAIL() << "expected a ConfigError";
  } catch (const config::ConfigError& e) {
    std::vector<std::string> where;
    for (const auto& p : e.problems())
      where.push_back(p.location);
    EXPECT_THAT(where, ::testing::UnorderedElementsAre("/scenaro", "/scenario", "/tolerance",
                                                       "/set/0", "/metrics/a/rel",
                                                       "/metrics/b/expected", "/metrics/c/tol"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("did you mean \"scenario\"?"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr(file.string()));
  }
}

TEST(GoldenFile, RejectsMalformedJsonNamingTheFile) {
  const TempDir dir("golden-syntax");
  const auto file = dir.write("g.json", "{\"metrics\": ");
  EXPECT_THROW((void)load_golden(file), config::ConfigError);
  EXPECT_THROW((void)load_golden(dir.path() / "missing.json"), config::ConfigError);
}

TEST(FindMetric, FollowsDottedPathsAndPointers) {
  EXPECT_EQ(find_metric(kSummary, "requests.completed"), json(1000));
  EXPECT_EQ(find_metric(kSummary, "per_class.strict.slo.compliance"), json(0.95));
  EXPECT_EQ(find_metric(kSummary, "/per_function/a.b/count"), json(7));
  EXPECT_EQ(find_metric(kSummary, "per_class.best_effort.slo.compliance"), json(nullptr));
  EXPECT_FALSE(find_metric(kSummary, "requests.missing").has_value());
  EXPECT_FALSE(find_metric(kSummary, "requests.completed.deeper").has_value());
  EXPECT_FALSE(find_metric(kSummary, "/no/such").has_value());
}

TEST(CompareToGolden, AppliesAbsoluteAndRelativeTolerances) {
  const TempDir dir("golden-compare");
  // p99: |0.25 - 0.2| = 0.05 <= 0.01 + 0.2 * 0.2 = 0.05: passes (boundary).
  // mean: |0.1 - 0.09| = 0.01 > 0.005 + 0 : fails.
  // completed: exact 1000: passes; compliance null == null: passes; partial false: passes.
  const auto g = golden_with(dir, R"({
    "latency_s.p99": {"expected": 0.2, "abs": 0.01, "rel": 0.2},
    "latency_s.mean": {"expected": 0.09, "abs": 0.005},
    "requests.completed": {"expected": 1000},
    "per_class.best_effort.slo.compliance": {"expected": null},
    "partial": {"expected": false},
    "requests.gone": {"expected": 1}})");
  const auto verdicts = compare_to_golden(g, kSummary);
  std::map<std::string, bool> pass;
  for (const auto& v : verdicts)
    pass[v.metric] = v.pass;
  EXPECT_TRUE(pass.at("latency_s.p99"));
  EXPECT_FALSE(pass.at("latency_s.mean"));
  EXPECT_TRUE(pass.at("requests.completed"));
  EXPECT_TRUE(pass.at("per_class.best_effort.slo.compliance"));
  EXPECT_TRUE(pass.at("partial"));
  EXPECT_FALSE(pass.at("requests.gone"));

  std::ostringstream table;
  print_verdicts(verdicts, table);
  EXPECT_THAT(table.str(), ::testing::HasSubstr("(missing)"));
  EXPECT_THAT(table.str(), ::testing::HasSubstr("4 of 6 metrics within tolerance; 2 FAILED"));
}

TEST(CompareToGolden, ANumberNeverEqualsNullOrAString) {
  const TempDir dir("golden-kinds");
  const auto g = golden_with(dir, R"({"per_class.best_effort.slo.compliance": {"expected": 0,
    "abs": 1}, "requests.completed": {"expected": "1000"}})");
  for (const auto& v : compare_to_golden(g, kSummary))
    EXPECT_FALSE(v.pass) << v.metric;
}

TEST(RegenerateGolden, ReplacesExpectedValuesAndListsWhatMoved) {
  const TempDir dir("golden-regen");
  const auto g = golden_with(dir, R"({"requests.completed": {"expected": 900, "abs": 0},
    "latency_s.p99": {"expected": 0.25, "rel": 1e-9}})");
  std::vector<MetricVerdict> moved;
  const auto doc = regenerate_golden(g, kSummary, moved);
  ASSERT_EQ(moved.size(), 1U);
  EXPECT_EQ(moved[0].metric, "requests.completed");
  EXPECT_EQ(doc["metrics"]["requests.completed"]["expected"], 1000);
  EXPECT_EQ(doc["metrics"]["requests.completed"]["abs"], 0);
  EXPECT_EQ(doc["tolerance"], "t");

  const auto missing = golden_with(dir, R"({"requests.gone": {"expected": 1}})");
  EXPECT_THROW((void)regenerate_golden(missing, kSummary, moved), std::runtime_error);
}

TEST(FormatGolden, WritesOneLinePerMetricAndReadsBackTheSame) {
  const TempDir dir("golden-format");
  const auto g = golden_with(dir, R"({"b.x": {"rel": 1e-9, "expected": 0.5},
    "a": {"expected": null}})");
  const auto text = format_golden(g.document);
  EXPECT_EQ(text,
            "{\n"
            "  \"scenario\": \"../s.json\",\n"
            "  \"tolerance\": \"t\",\n"
            "  \"metrics\": {\n"
            "    \"a\": {\"expected\": null},\n"
            "    \"b.x\": {\"expected\": 0.5, \"rel\": 1e-09}\n"
            "  }\n"
            "}\n");
  EXPECT_EQ(json::parse(text), g.document);
}

}  // namespace
}  // namespace sim::scenario
