#include "sim/sweep/statistics.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "sim/sweep/progress.hpp"
#include "sim/sweep/results.hpp"
#include "sweep_test_support.hpp"

namespace sim::sweep {
namespace {

using nlohmann::json;

TEST(StudentT, MatchesTablesAndTheNormalLimit) {
  EXPECT_DOUBLE_EQ(student_t_975(1), 12.7062047);
  EXPECT_DOUBLE_EQ(student_t_975(4), 2.77644511);
  EXPECT_DOUBLE_EQ(student_t_975(30), 2.04227246);
  // Past the table: t(0.975, 40) = 2.021075390, t(0.975, 100) = 1.983971519 (numerical
  // inversion of the t distribution function).
  EXPECT_NEAR(student_t_975(40), 2.021075390, 1e-6);
  EXPECT_NEAR(student_t_975(100), 1.983971519, 1e-6);
  EXPECT_NEAR(student_t_975(100000), 1.959963985, 1e-4);
  EXPECT_THROW(student_t_975(0), std::invalid_argument);
}

TEST(Describe, MeanSdAndStudentInterval) {
  // 1, 2, 3, 4: mean 2.5; squared deviations 2.25 + 0.25 + 0.25 + 2.25 = 5, sd = sqrt(5/3) =
  // 1.290994449; half width = t(0.975, 3) * sd / sqrt(4) = 3.18244631 * 1.290994449 / 2 =
  // 2.054260260; interval [0.445739740, 4.554260260].
  const Statistics s = describe({1.0, 2.0, 3.0, 4.0});
  EXPECT_EQ(s.n, 4U);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_NEAR(*s.sd, 1.290994449, 1e-9);
  EXPECT_NEAR(*s.ci_low, 0.445739740, 1e-8);
  EXPECT_NEAR(*s.ci_high, 4.554260260, 1e-8);
}

TEST(Describe, EqualValuesHaveExactlyNoSpread) {
  // 0.1 + 0.1 + 0.1 is not 3 * 0.1 in binary: a plain sum would give a mean one ulp off and a
  // standard deviation of about 1e-17 instead of 0.
  const Statistics s = describe({0.1, 0.1, 0.1});
  EXPECT_EQ(s.mean, 0.1);
  EXPECT_EQ(*s.sd, 0.0);
  EXPECT_EQ(*s.ci_low, 0.1);
}

TEST(Describe, OneValueHasNoSpread) {
  const Statistics s = describe({0.75});
  EXPECT_DOUBLE_EQ(s.mean, 0.75);
  EXPECT_FALSE(s.sd.has_value());
  EXPECT_FALSE(s.ci_low.has_value());
  EXPECT_THROW(describe({}), std::invalid_argument);
}

TEST(FlattenMetrics, DottedPathsForNumbersBooleansAndNulls) {
  const json summary = json::parse(
      R"({"a": 1, "b": {"c": 0.5, "d": "text", "e": null}, "f": [2, 3], "partial": false})");
  const auto flat = flatten_metrics(summary);
  ASSERT_EQ(flat.size(), 6U);
  EXPECT_EQ(flat[0], (std::pair<std::string, json>{"a", 1}));
  EXPECT_EQ(flat[1], (std::pair<std::string, json>{"b.c", 0.5}));
  EXPECT_EQ(flat[2], (std::pair<std::string, json>{"b.e", nullptr}));
  EXPECT_EQ(flat[3], (std::pair<std::string, json>{"f.0", 2}));
  EXPECT_EQ(flat[5], (std::pair<std::string, json>{"partial", 0}));
}

/// A plan of two combinations (x=a, x=b) with three seeds each, with given summaries.
struct Fixture {
  Plan plan;
  std::vector<RunReport> reports;
  Fixture() {
    Experiment e = parse_experiment(json::parse(R"({"scenario": "s.json", "seeds": [1, 2, 3],
                        "axes": [{"name": "x", "variants": [{"name": "a"}, {"name": "b, c"}]}]})"),
                                    "exp.json");
    plan = expand(e);
    reports.resize(plan.runs.size());
    const double slo[6] = {0.9, 0.8, 0.7, 0.5, 0.5, 0.5};
    const int count[6] = {10, 20, 60, 5, 5, 5};
    for (std::size_t i = 0; i < 6; ++i) {
      reports[i].index = i;
      reports[i].status = RunStatus::kDone;
      reports[i].summary = {{"slo", {{"compliance", slo[i]}}}, {"count", count[i]}};
    }
  }
};

TEST(Results, OneRowPerRunWithEveryMetric) {
  Fixture f;
  f.reports[4].status = RunStatus::kFailed;
  f.reports[4].error = "boom";
  f.reports[4].summary = json();
  testing::TempDir dir("results");
  write_results_csv(dir.path() / "results.csv", f.plan, f.reports);
  EXPECT_EQ(testing::read_file(dir.path() / "results.csv"),
            "run,combination,x,seed,status,error,count,slo.compliance\n"
            "\"x=a,seed=1\",x=a,a,1,ok,,10,0.9\n"
            "\"x=a,seed=2\",x=a,a,2,ok,,20,0.8\n"
            "\"x=a,seed=3\",x=a,a,3,ok,,60,0.7\n"
            "\"x=b__c,seed=1\",x=b__c,\"b, c\",1,ok,,5,0.5\n"
            "\"x=b__c,seed=2\",x=b__c,\"b, c\",2,failed,boom,,\n"
            "\"x=b__c,seed=3\",x=b__c,\"b, c\",3,ok,,5,0.5\n");
}

TEST(Results, AggregateAgainstHandComputedIntervals) {
  Fixture f;
  testing::TempDir dir("aggregate");
  write_aggregate_csv(dir.path() / "aggregate.csv", f.plan, f.reports);
  // x=a, count: 10, 20, 60: mean 30, deviations -20, -10, 30, squares 400 + 100 + 900 = 1400,
  //   sd = sqrt(1400 / 2) = 26.457513111; half = t(0.975, 2) * sd / sqrt(3) = 4.30265273 *
  //   26.457513111 / 1.732050808 = 65.724106081 -> [-35.724106081, 95.724106081].
  // x=a, slo: 0.9, 0.8, 0.7: mean 0.8, sd 0.1, half = 4.30265273 * 0.1 / 1.732050808 =
  //   0.248413771 -> [0.551586229, 1.048413771].
  // x=b, both metrics constant: sd 0, the interval collapses onto the mean.
  const std::string text = testing::read_file(dir.path() / "aggregate.csv");
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "combination,x,metric,n,mean,sd,ci95_low,ci95_high");
  auto fields = [&] {
    std::getline(in, line);
    std::vector<std::string> out;
    std::string cell;
    std::istringstream row(line);
    while (std::getline(row, cell, ','))
      out.push_back(cell);
    return out;
  };
  auto count_a = fields();
  ASSERT_EQ(count_a.size(), 8U) << line;
  EXPECT_EQ(count_a[0], "x=a");
  EXPECT_EQ(count_a[2], "count");
  EXPECT_EQ(count_a[3], "3");
  EXPECT_DOUBLE_EQ(std::stod(count_a[4]), 30.0);
  EXPECT_NEAR(std::stod(count_a[5]), 26.457513111, 1e-8);
  EXPECT_NEAR(std::stod(count_a[6]), -35.724106081, 1e-8);
  EXPECT_NEAR(std::stod(count_a[7]), 95.724106081, 1e-8);
  auto slo_a = fields();
  EXPECT_EQ(slo_a[2], "slo.compliance");
  EXPECT_NEAR(std::stod(slo_a[4]), 0.8, 1e-12);
  EXPECT_NEAR(std::stod(slo_a[5]), 0.1, 1e-12);
  EXPECT_NEAR(std::stod(slo_a[6]), 0.551586229, 1e-8);
  EXPECT_NEAR(std::stod(slo_a[7]), 1.048413771, 1e-8);
  std::getline(in, line);
  EXPECT_EQ(line, "x=b__c,\"b, c\",count,3,5,0,5,5");
}

TEST(Results, AggregateCountsOnlyFinishedReplications) {
  Fixture f;
  f.reports[2].status = RunStatus::kFailed;
  testing::TempDir dir("aggregate-failed");
  write_aggregate_csv(dir.path() / "aggregate.csv", f.plan, f.reports);
  // x=a count over 10 and 20 only: mean 15, sd sqrt(50) = 7.0710678.
  const std::string text = testing::read_file(dir.path() / "aggregate.csv");
  EXPECT_NE(text.find("x=a,a,count,2,15,7.0710678118654"), std::string::npos) << text;
}

TEST(Progress, CountsAndEstimatesTheTimeLeft) {
  SweepProgress p(10);
  RunReport done;
  done.status = RunStatus::kDone;
  RunReport skipped;
  skipped.status = RunStatus::kUpToDate;
  RunReport failed;
  failed.status = RunStatus::kFailed;
  p.record(skipped);
  EXPECT_EQ(p.line(1.0), "[1/10] 0 ran, 1 up to date, 0 failed");
  p.record(done);
  p.record(done);
  p.record(failed);
  // 3 executed in 60 s: 20 s each, 6 left -> 120 s.
  EXPECT_EQ(p.line(60.0), "[4/10] 2 ran, 1 up to date, 1 failed, ETA 2m00s");
  EXPECT_EQ(format_duration(7325), "2h02m");
  EXPECT_EQ(format_duration(59.4), "59s");
}

}  // namespace
}  // namespace sim::sweep
