#include "sim/metrics/summary_builder.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace sim::metrics {
namespace {

constexpr double kAlpha = StreamingQuantile::kDefaultRelativeError;

RequestRecord rec(std::uint64_t id, std::uint32_t fn, RequestClass cls, double arrival_s,
                  double finish_s, Outcome outcome, double slo_s, double queue_s, double batching_s,
                  double cold_s, double exec_s, std::uint32_t batch) {
  RequestRecord r;
  r.id = id;
  r.function = fn;
  r.application = 0;
  r.cls = cls;
  r.arrival = seconds(arrival_s);
  r.dispatch = r.arrival + seconds(queue_s);
  r.start = r.dispatch + seconds(batching_s + cold_s);
  r.finish = seconds(finish_s);
  r.queue_wait = seconds(queue_s);
  r.batching_wait = seconds(batching_s);
  r.cold_start_wait = seconds(cold_s);
  r.execution = seconds(exec_s);
  r.batch_size = batch;
  r.device = outcome == Outcome::kDropped ? -1 : 0;
  r.outcome = outcome;
  r.slo = seconds(slo_s);
  return r;
}

using RC = RequestClass;
using O = Outcome;

// The hand-built run: functions resnet (0) and bert (1), warm-up 1 s, duration 11 s, so the
// measured window is 10 s. Each completed request's waits add up to its latency.
//   id fn     class  arrival finish outcome  slo  queue batch cold  exec  batch  latency
//   0  resnet strict  0.5    0.6    ok       -    0     0     0     0.1   1      (warm-up)
//   1  resnet strict  1      1.1    ok       0.2  0.02  0.03  0     0.05  4      0.1 met
//   2  resnet strict  2      2.3    slo_miss 0.2  0.1   0     0.15  0.05  2      0.3 violated
//   3  bert   b-e     3      3.2    ok       -    0.05  0.05  0     0.1   8      0.2
//   4  bert   b-e     4      5(drop)dropped  1    -                            -  violated
//   5  resnet strict  5      5.4    ok       0.5  0.1   0.1   0.1   0.1   6      0.4 met
std::vector<RequestRecord> hand_built() {
  return {
      rec(0, 0, RC::kStrict, 0.5, 0.6, O::kOk, 0, 0, 0, 0, 0.1, 1),
      rec(1, 0, RC::kStrict, 1, 1.1, O::kOk, 0.2, 0.02, 0.03, 0, 0.05, 4),
      rec(2, 0, RC::kStrict, 2, 2.3, O::kSloMiss, 0.2, 0.1, 0, 0.15, 0.05, 2),
      rec(3, 1, RC::kBestEffort, 3, 3.2, O::kOk, 0, 0.05, 0.05, 0, 0.1, 8),
      rec(4, 1, RC::kBestEffort, 4, 5, O::kDropped, 1, 0, 0, 0, 0, 0),
      rec(5, 0, RC::kStrict, 5, 5.4, O::kOk, 0.5, 0.1, 0.1, 0.1, 0.1, 6),
  };
}

SummaryContext context() {
  SummaryContext ctx;
  ctx.names.functions = {"resnet", "bert"};
  ctx.names.applications = {"app"};
  ctx.duration = seconds(11);
  ctx.extra = {{"cost_usd", {{"total", 1.5}}}, {"gpu_utilisation", 0.75}};
  return ctx;
}

nlohmann::json build_hand_built() {
  SummaryBuilder b(seconds(1));
  for (const auto& r : hand_built())
    b.add(r);
  return b.build(context());
}

void expect_within_alpha(const nlohmann::json& v, double exact) {
  ASSERT_TRUE(v.is_number()) << v;
  EXPECT_LE(std::fabs(v.get<double>() - exact), kAlpha * exact * (1 + 1e-9))
      << "got " << v << ", exact " << exact;
}

TEST(SummaryBuilder, CountsAndComplianceOverall) {
  const auto s = build_hand_built();
  EXPECT_EQ(s["schema"], "dcsim.summary/1");
  EXPECT_EQ(s["duration_s"], 11.0);
  EXPECT_EQ(s["warmup_s"], 1.0);
  EXPECT_EQ(s["measured_s"], 10.0);
  EXPECT_EQ(s["quantile_relative_error"], kAlpha);
  const auto& req = s["requests"];
  EXPECT_EQ(req["warmup_excluded"], 1);  // record 0 arrived at 0.5 s < 1 s
  EXPECT_EQ(req["recorded"], 5);         // records 1..5
  EXPECT_EQ(req["ok"], 3);               // 1, 3, 5
  EXPECT_EQ(req["slo_miss"], 1);         // 2
  EXPECT_EQ(req["dropped"], 1);          // 4
  EXPECT_EQ(req["completed"], 4);
  // With an SLO: 1, 2, 4, 5. Met: 1 (0.1 <= 0.2) and 5 (0.4 <= 0.5). Violated: 2 (0.3 > 0.2)
  // and 4 (dropped). Compliance 2 / 4.
  EXPECT_EQ(s["slo"]["with_slo"], 4);
  EXPECT_EQ(s["slo"]["met"], 2);
  EXPECT_EQ(s["slo"]["violated"], 2);
  EXPECT_EQ(s["slo"]["compliance"], 0.5);
}

TEST(SummaryBuilder, LatencyWaitsThroughputOverall) {
  const auto s = build_hand_built();
  // Completed latencies {0.1, 0.3, 0.2, 0.4}: mean 1.0 / 4 = 0.25. Sorted {0.1, 0.2, 0.3, 0.4},
  // n = 4: p50 is rank floor(0.5 * 3) = 1 -> 0.2; p90, p99, p99.9 are rank floor(2.7..2.997)
  // = 2 -> 0.3 (each within alpha).
  const auto& lat = s["latency_s"];
  EXPECT_EQ(lat["count"], 4);
  EXPECT_DOUBLE_EQ(lat["mean"].get<double>(), 0.25);
  EXPECT_EQ(lat["min"], 0.1);
  EXPECT_EQ(lat["max"], 0.4);
  expect_within_alpha(lat["p50"], 0.2);
  expect_within_alpha(lat["p90"], 0.3);
  expect_within_alpha(lat["p99"], 0.3);
  expect_within_alpha(lat["p999"], 0.3);
  // Means over the 4 completed requests.
  const auto& w = s["waits_s"];
  EXPECT_DOUBLE_EQ(w["queue_mean"].get<double>(), (0.02 + 0.1 + 0.05 + 0.1) / 4);      // 0.0675
  EXPECT_DOUBLE_EQ(w["batching_mean"].get<double>(), (0.03 + 0 + 0.05 + 0.1) / 4);     // 0.045
  EXPECT_DOUBLE_EQ(w["cold_start_mean"].get<double>(), (0.15 + 0.1) / 4);              // 0.0625
  EXPECT_DOUBLE_EQ(w["execution_mean"].get<double>(), (0.05 + 0.05 + 0.1 + 0.1) / 4);  // 0.075
  EXPECT_EQ(w["cold_start_affected"], 2);  // records 2 and 5
  EXPECT_DOUBLE_EQ(w["cold_start_mean_waiting"].get<double>(), (0.15 + 0.1) / 2);  // 0.125
  EXPECT_DOUBLE_EQ(s["batch_size_mean"].get<double>(), (4 + 2 + 8 + 6) / 4.0);     // 5
  EXPECT_DOUBLE_EQ(s["throughput_rps"].get<double>(), 4 / 10.0);  // 4 completed in 10 s
}

TEST(SummaryBuilder, PerClassAndPerFunction) {
  const auto s = build_hand_built();
  // Strict = resnet = records 1, 2, 5.
  for (const auto* g : {&s["per_class"]["strict"], &s["per_function"]["resnet"]}) {
    EXPECT_EQ((*g)["requests"]["recorded"], 3);
    EXPECT_EQ((*g)["requests"]["ok"], 2);
    EXPECT_EQ((*g)["requests"]["slo_miss"], 1);
    EXPECT_EQ((*g)["requests"]["dropped"], 0);
    EXPECT_DOUBLE_EQ((*g)["slo"]["compliance"].get<double>(), 2.0 / 3.0);
    EXPECT_DOUBLE_EQ((*g)["latency_s"]["mean"].get<double>(), (0.1 + 0.3 + 0.4) / 3);
    expect_within_alpha((*g)["latency_s"]["p50"], 0.3);  // sorted {0.1, 0.3, 0.4}, rank 1
    EXPECT_DOUBLE_EQ((*g)["throughput_rps"].get<double>(), 0.3);
    EXPECT_DOUBLE_EQ((*g)["batch_size_mean"].get<double>(), 4.0);  // (4 + 2 + 6) / 3
  }
  // Best effort = bert = records 3 (ok, no SLO) and 4 (dropped, SLO 1 s).
  for (const auto* g : {&s["per_class"]["best_effort"], &s["per_function"]["bert"]}) {
    EXPECT_EQ((*g)["requests"]["recorded"], 2);
    EXPECT_EQ((*g)["requests"]["dropped"], 1);
    EXPECT_EQ((*g)["slo"]["with_slo"], 1);
    EXPECT_EQ((*g)["slo"]["compliance"], 0.0);
    EXPECT_EQ((*g)["latency_s"]["count"], 1);
    EXPECT_EQ((*g)["latency_s"]["p50"], 0.2);  // a single value is exact (clamped to min/max)
    EXPECT_EQ((*g)["latency_s"]["p999"], 0.2);
  }
  EXPECT_EQ(s["per_function"].size(), 2U);
  EXPECT_FALSE(s["per_class"]["strict"]["requests"].contains("warmup_excluded"));
}

TEST(SummaryBuilder, ExtraIsMergedAtTopLevel) {
  const auto s = build_hand_built();
  EXPECT_EQ(s["cost_usd"]["total"], 1.5);
  EXPECT_EQ(s["gpu_utilisation"], 0.75);
}

TEST(SummaryBuilder, OutputIsByteIdenticalAcrossBuilds) {
  EXPECT_EQ(build_hand_built().dump(2), build_hand_built().dump(2));
}

TEST(SummaryBuilder, EmptyStatisticsAreNull) {
  SummaryBuilder b;
  SummaryContext ctx;
  ctx.duration = Time::zero();
  ctx.extra = nullptr;  // taken as empty
  const auto s = b.build(ctx);
  EXPECT_EQ(s["requests"]["recorded"], 0);
  EXPECT_TRUE(s["slo"]["compliance"].is_null());
  EXPECT_TRUE(s["latency_s"]["p99"].is_null());
  EXPECT_TRUE(s["latency_s"]["mean"].is_null());
  EXPECT_TRUE(s["waits_s"]["queue_mean"].is_null());
  EXPECT_TRUE(s["waits_s"]["cold_start_mean_waiting"].is_null());  // no request waited
  EXPECT_TRUE(s["throughput_rps"].is_null());                      // measured window of 0 s
  EXPECT_TRUE(s["per_function"].empty());
}

TEST(SummaryBuilder, RejectsMisuse) {
  SummaryBuilder b;
  auto r = rec(42, 0, RC::kStrict, 2, 1, O::kOk, 0, 0, 0, 0, 0, 1);
  try {
    b.add(r);
    FAIL() << "expected an exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "SummaryBuilder::add: request 42: finish (1s) is before arrival (2s)");
  }
  r = rec(43, 0, RC::kStrict, 1, 2, O::kOk, 0, -0.5, 0, 0, 0, 1);
  EXPECT_THROW(b.add(r), std::invalid_argument);
  EXPECT_EQ(b.records_added(), 0U);

  b.add(rec(44, 5, RC::kStrict, 1, 2, O::kOk, 0, 0, 0, 0, 1, 1));
  SummaryContext ctx = context();
  try {
    (void)b.build(ctx);
    FAIL() << "expected an exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "SummaryBuilder::build: function id 5 has no name (the name table has 2 entries)");
  }
  SummaryBuilder ok;
  ok.add(rec(45, 0, RC::kStrict, 1, 2, O::kOk, 0, 0, 0, 0, 1, 1));
  ctx.extra = {{"requests", 1}};
  EXPECT_THROW((void)ok.build(ctx), std::invalid_argument);
  ctx.extra = nlohmann::json::array();
  EXPECT_THROW((void)ok.build(ctx), std::invalid_argument);
}

}  // namespace
}  // namespace sim::metrics
