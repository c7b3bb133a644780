// The four autoscalers of the Flashpoint evaluation (thesis §3.1, §8.4): hand-computed desired
// counts from views built by hand.

#include <gtest/gtest.h>

#include <tuple>
#include <utility>
#include <vector>

#include "flashpoint/autoscalers.hpp"
#include "flashpoint/register.hpp"
#include "sim/config/schema.hpp"
#include "sim/policy/policy_registry.hpp"

namespace sim::policy::flashpoint {
namespace {

FunctionView fn(double exec_s) {
  FunctionView f;
  f.id = 0;
  f.name = "t5";
  f.model = "flashpoint/t5-3b";
  f.batch_latency_s = exec_s;
  f.config.max_batch = 1;
  return f;
}

PlatformView view_with(const FunctionView& f, int idle, int busy, int cold, Time now) {
  PlatformView v;
  v.now = now;
  v.control_interval = seconds(1);
  v.functions.push_back(f);
  InstanceId id = 1;
  const auto add = [&](InstanceState s, int n) {
    for (int k = 0; k < n; ++k) {
      InstanceView i;
      i.id = id++;
      i.function = f.id;
      i.state = s;
      v.instances.push_back(i);
    }
  };
  add(InstanceState::kIdle, idle);
  add(InstanceState::kBusy, busy);
  add(InstanceState::kColdStarting, cold);
  return v;
}

ScalingLimits no_window() {
  ScalingLimits l;
  l.scale_down_window = Time::zero();
  return l;
}

// TSK's metric is TorchServe's QueueTime, per dequeued request: the mean wait of the requests
// dequeued within the window, from the platform's cumulative counters.
FunctionView dequeued(FunctionView f, std::uint64_t n, double wait_s, std::size_t queue) {
  f.dequeued = n;
  f.dequeued_wait_s = wait_s;
  f.queue_length = queue;
  return f;
}

TEST(Tsk, HpaRuleOnTheQueueTimeOfDequeuedRequests) {
  QueueLatencyAutoscaler a(no_window(), 7.0, seconds(15));
  const auto f = fn(0.066);
  // t = 0: requests wait, none dequeued yet: no metric, the 4 live replicas are kept.
  EXPECT_EQ(a.desired(dequeued(f, 0, 0, 300), view_with(f, 0, 4, 0, seconds(0))), 4);
  // t = 10: 100 dequeued after 2100 s of waits in all: mean 21 s, ratio 3 -> ceil(4 * 3) = 12.
  EXPECT_EQ(a.desired(dequeued(f, 100, 2100, 300), view_with(f, 0, 4, 0, seconds(10))), 12);
  // t = 25: 100 more waited 7.5 s each. The window (10, 25] holds only those (all 200 would
  // give 2850 / 200 = 14.25 s -> 9): 750 / 100 = 7.5 s, within 10% of 7 s: unchanged.
  EXPECT_EQ(a.desired(dequeued(f, 200, 2850, 300), view_with(f, 0, 4, 0, seconds(25))), 4);
  // t = 40: nothing dequeued in (25, 40] and the queue is empty: latency 0 -> no replica
  // wanted (the stabilisation window keeps them).
  EXPECT_EQ(a.desired(dequeued(f, 200, 2850, 0), view_with(f, 4, 0, 0, seconds(40))), 0);
}

// TorchServe's HPA reads queue latency as an External metric with a Value target
// (pytorch/serve kubernetes/hpa.yaml), for which HPA's desired count is ceil(ratio x ready
// pods): cold-starting replicas are neither multiplied nor given a stand-in metric.
TEST(Tsk, ExternalMetricMultipliesTheReadyReplicasOnly) {
  const auto f = fn(0.066);
  const auto desired_at = [&](double mean_wait_s, int idle, int busy, int cold) {
    QueueLatencyAutoscaler a(no_window(), 7.0, seconds(15));
    (void)a.desired(dequeued(f, 0, 0, 10), view_with(f, idle, busy, cold, seconds(0)));
    return a.desired(dequeued(f, 10, 10 * mean_wait_s, 10),
                     view_with(f, idle, busy, cold, seconds(5)));
  };
  // 2 busy + 1 cold, 14 s (ratio 2): ceil(2 x 2) = 4 (counting the cold one: 6).
  EXPECT_EQ(desired_at(14.0, 0, 2, 1), 4);
  // 2 busy + 6 cold, 14 s: ceil(2 x 2) = 4, below the 8 live: a scale-down recommendation.
  EXPECT_EQ(desired_at(14.0, 0, 2, 6), 4);
  // 4 ready + 2 cold at 1.4 s (ratio 0.2): ceil(4 x 0.2) = 1 (a Pods metric's stand-in for the
  // cold ones would give ceil(0.8 + 2) = 3).
  EXPECT_EQ(desired_at(1.4, 4, 0, 2), 1);
  // Nothing ready, 3 cold, 70 s (ratio 10): ceil(0 x 10) = 0.
  EXPECT_EQ(desired_at(70.0, 0, 0, 3), 0);
  // No replica at all: HPA's scale-from-zero branch, ceil(ratio) = ceil(2) = 2.
  EXPECT_EQ(desired_at(14.0, 0, 0, 0), 2);
}

// With the External rule, a burst's cold starts are held only by the stabilisation window:
// once the larger recommendations have left it, HPA removes cold-starting replicas.
TEST(Tsk, StabilisationHoldsColdStartsOnlyWithinTheWindow) {
  ScalingLimits l;
  l.scale_down_window = seconds(30);
  QueueLatencyAutoscaler a(l, 7.0, seconds(15));
  const auto f = fn(0.066);
  // t = 0: 2 busy + 6 cold (ids 3..8), requests queued, none dequeued: no metric, 8 kept.
  auto d = a.decide(view_with(dequeued(f, 0, 0, 10), 0, 2, 6, seconds(0)));
  EXPECT_TRUE(d.start.empty() && d.stop.empty());
  // t = 5: 10 dequeued at 14 s: ceil(2 x 2) = 4 < 8, held by the window's 8 (t = 0).
  d = a.decide(view_with(dequeued(f, 10, 140, 10), 0, 2, 6, seconds(5)));
  EXPECT_TRUE(d.start.empty() && d.stop.empty());
  // t = 40: the window (25, 40] of the metric holds 10 more at 14 s: 4 again; the stabilisation
  // window [10, 40] holds only this 4: 4 are stopped, no idle one, so the newest cold ones.
  d = a.decide(view_with(dequeued(f, 20, 280, 10), 0, 2, 6, seconds(40)));
  EXPECT_TRUE(d.start.empty());
  ASSERT_EQ(d.stop.size(), 4u);
  EXPECT_EQ(d.stop[0].id, 8u);
  EXPECT_EQ(d.stop[3].id, 5u);
}

TEST(Tsk, DecideStartsTheMissingAndStopsIdleFirst) {
  QueueLatencyAutoscaler a(no_window(), 7.0, seconds(15));
  const auto f = fn(0.066);
  (void)a.decide(view_with(dequeued(f, 0, 0, 10), 0, 3, 0, seconds(0)));
  // 3 busy, 10 dequeued at 14 s each: ceil(3 * 14 / 7) = 6 -> start 3.
  auto d = a.decide(view_with(dequeued(f, 10, 140, 10), 0, 3, 0, seconds(1)));
  ASSERT_EQ(d.start.size(), 1u);
  EXPECT_EQ(d.start[0].count, 3);
  // t = 17: nothing dequeued in the window (2, 17] and the queue is empty: latency 0, so
  // ceil(3 x 0) = 0 (no window to hold them): the 3 idle ones (ids 1..3) are stopped, newest
  // first, then the cold-starting one (id 4).
  d = a.decide(view_with(dequeued(f, 10, 140, 0), 3, 0, 1, seconds(17)));
  ASSERT_EQ(d.stop.size(), 4u);
  EXPECT_EQ(d.stop[0].id, 3u);  // idle, newest first
  EXPECT_EQ(d.stop[2].id, 1u);
  EXPECT_EQ(d.stop[3].id, 4u);  // then cold-starting
}

TEST(Scaling, StabilisationWindowDelaysScaleDown) {
  ScalingLimits l;
  l.scale_down_window = seconds(60);
  InvocationsAutoscaler a(l, 600.0, 1);
  auto f = fn(0.066);
  f.arrival_rate = {0.0, 40.0};                          // 2400 per minute / 600 -> 4
  auto d = a.decide(view_with(f, 0, 2, 0, seconds(0)));  // desired 4
  EXPECT_EQ(d.start.at(0).count, 2);
  f.arrival_rate = {0.0, 0.0};
  d = a.decide(view_with(f, 4, 0, 0, seconds(30)));  // 4 still within the window
  EXPECT_TRUE(d.stop.empty());
  d = a.decide(view_with(f, 4, 0, 0, seconds(61)));  // the 4 left the window
  EXPECT_EQ(d.stop.size(), 4u);
}

// Kubernetes HPA scale-up policies (15 s, 100%, 4 pods): the metric asks for 10x the live
// count every second, but within a period the count grows to at most max(2 x base, base + 4),
// base being the count at the period's start.
TEST(Scaling, HpaScaleUpPoliciesCapGrowthPerPeriod) {
  ScalingLimits l = no_window();
  l.scale_up_period = seconds(15);
  InvocationsAutoscaler a(l, 60.0, 1);  // 1 request per second per replica
  auto f = fn(0.066);
  f.arrival_rate = {0.0, 30.0};  // 30 wanted
  // t = 0: 3 live (base 3): 30 wanted, capped at max(6, 7) = 7: start 4.
  auto d = a.decide(view_with(f, 0, 3, 0, seconds(0)));
  ASSERT_EQ(d.start.size(), 1u);
  EXPECT_EQ(d.start[0].count, 4);
  // t = 10 s: 7 live, base still 3 (t = 0 is within 15 s): cap 7, nothing more.
  f.arrival_rate = {0.0, 70.0};
  d = a.decide(view_with(f, 0, 3, 4, seconds(10)));
  EXPECT_TRUE(d.start.empty());
  // t = 15 s: the count at t = 0 leaves the period; base is t = 10 s's 7: cap max(14, 11) = 14.
  d = a.decide(view_with(f, 0, 3, 4, seconds(15)));
  ASSERT_EQ(d.start.size(), 1u);
  EXPECT_EQ(d.start[0].count, 7);
  // Without the policies the same view asks for all 70 at once.
  InvocationsAutoscaler unlimited(no_window(), 60.0, 1);
  d = unlimited.decide(view_with(f, 0, 3, 4, seconds(15)));
  EXPECT_EQ(d.start.at(0).count, 63);
}

// An HPA without `behavior` (TorchServe's hpa.yaml) applies the largest count recommended
// within the stabilisation window, now included (horizontal.go, stabilizeRecommendation), then
// caps the growth: a peak the cap cut keeps being asked for while it is in the window.
TEST(Scaling, StabilisationAppliesTheWindowPeakThenTheScaleUpCap) {
  ScalingLimits l;
  l.scale_down_window = seconds(60);
  l.scale_up_period = seconds(15);
  InvocationsAutoscaler a(l, 60.0, 1);  // 1 request per second per replica
  auto f = fn(0.066);
  f.arrival_rate = {0.0, 30.0};
  // t = 0: 3 live, 30 wanted, capped at max(2 x 3, 3 + 4) = 7: start 4.
  auto d = a.decide(view_with(f, 0, 3, 0, seconds(0)));
  EXPECT_EQ(d.start.at(0).count, 4);
  // t = 15: 10 wanted, 7 live, but the window still holds 30: min(30, max(14, 11)) = 14,
  // start 7 (10 would start 3).
  f.arrival_rate = {0.0, 10.0};
  d = a.decide(view_with(f, 0, 3, 4, seconds(15)));
  ASSERT_EQ(d.start.size(), 1u);
  EXPECT_EQ(d.start[0].count, 7);
  // t = 61: 5 wanted, 14 live; the window [1, 61] holds 10 (t = 15) and 5: 10, stop 4.
  f.arrival_rate = {0.0, 5.0};
  d = a.decide(view_with(f, 7, 7, 0, seconds(61)));
  EXPECT_TRUE(d.start.empty());
  EXPECT_EQ(d.stop.size(), 4u);
}

// The deployed systems evaluate periodically (HPA every 15 s): with a 15 s period, ticks every
// second decide at t = 0, 15, 30, 45 only, and ticks off the grid (every 2 s) at the first
// tick at or past each grid point (0, 16, 30, 46), without drifting.
TEST(Scaling, DecidesOnlyEveryEvaluationPeriod) {
  ScalingLimits l = no_window();
  l.evaluation_period = seconds(15);
  l.decision_time = ms(20);
  auto f = fn(0.066);
  f.arrival_rate = {0.0, 6.0};  // 360 per minute / 60 -> 6 wanted, none ever live
  const auto decided_at = [&](int step) {
    InvocationsAutoscaler a(l, 60.0, 1);
    std::vector<int> at;
    for (int t = 0; t <= 46; t += step) {
      const auto d = a.decide(view_with(f, 0, 0, 0, seconds(t)));
      if (!d.start.empty()) {
        EXPECT_EQ(d.start[0].count, 6);
        EXPECT_EQ(d.compute_time, ms(20));
        at.push_back(t);
      } else {
        EXPECT_EQ(d.compute_time, Time::zero()) << t;  // no decision, nothing charged
      }
    }
    return at;
  };
  EXPECT_EQ(decided_at(1), (std::vector<int>{0, 15, 30, 45}));
  EXPECT_EQ(decided_at(2), (std::vector<int>{0, 16, 30, 46}));
}

// Between evaluations the metric is still sampled: a one-second burst at t = 3 sets ATL's
// p100 rate at the t = 10 evaluation (sampling only at evaluations would see the mean rate over
// (0, 10], 77/s -> ceil(77 * 0.066) = 6).
TEST(Scaling, MetricsAreSampledBetweenEvaluations) {
  ScalingLimits l = no_window();
  l.evaluation_period = seconds(10);
  ArrivalPercentileAutoscaler a(l, 1.0, seconds(60), 100.0);
  auto f = fn(0.066);
  std::uint64_t arrivals = 0;
  Decisions d;
  for (int t = 0; t <= 10; ++t) {
    f.arrivals = arrivals;
    d = a.decide(view_with(f, 0, 0, 0, seconds(t)));
    if (t > 0 && t < 10) {
      EXPECT_TRUE(d.start.empty()) << t;
    }
    arrivals += (t == 3) ? 320 : 50;  // the rate over (3, 4] is 320/s
  }
  // ceil(320 * 0.066) = ceil(21.12) = 22.
  ASSERT_EQ(d.start.size(), 1u);
  EXPECT_EQ(d.start[0].count, 22);
}

// Fig. 6.2 / Fig. 8.10 from hand-made scale-up records: 10 added to 5 running (ratio 2), 3 to
// 6 (0.5), 4 to none running (unbounded, counted apart) with a 4-part plan.
TEST(Statistics, ScaleUpRatiosAndParts) {
  const std::vector<ScaleUpRecord> r{
      {seconds(0), 10, 5, 1, 10}, {seconds(15), 3, 6, 1, 3}, {seconds(30), 4, 0, 4, 1}};
  const auto s = scale_up_statistics(r, 7);
  EXPECT_EQ(s["evaluations"], 7);
  EXPECT_EQ(s["scale_ups"], 3);
  EXPECT_EQ(s["instances_started"], 17);
  EXPECT_NEAR(s["starts_per_scale_up"].get<double>(), 17.0 / 3.0, 1e-12);
  EXPECT_EQ(s["new_per_running"]["from_zero"], 1);
  EXPECT_NEAR(s["new_per_running"]["fraction_above_1"].get<double>(), 2.0 / 3.0, 1e-12);
  // Nearest-rank deciles of {0.5, 2}: ranks ceil(k / 10 * 2) - 1 -> 0.5 up to the median.
  const auto& dec = s["new_per_running"]["deciles"];
  ASSERT_EQ(dec.size(), 11u);
  EXPECT_EQ(dec[0], 0.5);
  EXPECT_EQ(dec[5], 0.5);
  EXPECT_EQ(dec[6], 2.0);
  EXPECT_EQ(dec[10], 2.0);
  EXPECT_EQ(s["scale_ups_by_parts"], (nlohmann::json{{"1", 2}, {"4", 1}}));
  EXPECT_TRUE(scale_up_statistics({}, 0).is_null());  // never evaluated: nothing to report
  EXPECT_EQ(s["rejected"]["scale_ups"], 0);
  EXPECT_EQ(s["partially_placed"]["scale_ups"], 0);
}

// Scale-ups the platform could not start: 3 added to 2 running (all placed, ratio 1.5); 2
// asked with 1 running, none placed (rejected: not a scale-up); a 9-part replica asked (9
// GPUs) that found no GPU (rejected); 4 asked to 1 running, 1 placed (partial: counts with 1,
// ratio 1). So 2 scale-ups, 4 instances started, deciles over {1, 1.5}, and the rejected ones
// apart with what they asked for: 2 + 1 replicas, 2 + 9 instances.
TEST(Statistics, RejectedScaleUpsCountedApart) {
  const std::vector<ScaleUpRecord> r{{seconds(0), 3, 2, 1, 3, 0},
                                     {seconds(1), 2, 1, 1, 2, 2},
                                     {seconds(2), 9, 1, 9, 1, 9},
                                     {seconds(3), 4, 1, 1, 4, 3}};
  const auto s = scale_up_statistics(r, 4);
  EXPECT_EQ(s["scale_ups"], 2);
  EXPECT_EQ(s["instances_started"], 4);
  EXPECT_NEAR(s["starts_per_scale_up"].get<double>(), 2.0, 1e-12);
  EXPECT_EQ(s["rejected"]["scale_ups"], 2);
  EXPECT_EQ(s["rejected"]["replicas_asked"], 3);
  EXPECT_EQ(s["rejected"]["instances_asked"], 11);
  EXPECT_EQ(s["partially_placed"]["scale_ups"], 1);
  EXPECT_EQ(s["partially_placed"]["instances_not_started"], 3);
  EXPECT_NEAR(s["new_per_running"]["fraction_above_1"].get<double>(), 0.5, 1e-12);
  EXPECT_EQ(s["new_per_running"]["deciles"][0], 1.0);
  EXPECT_EQ(s["new_per_running"]["deciles"][10], 1.5);
  EXPECT_EQ(s["scale_ups_by_parts"], (nlohmann::json{{"1", 2}}));  // the 9-part one: rejected
}

// The platform's report (Autoscaler::started) finds its scale-up through the command's tag:
// +5 asked, 2 started -> 3 unplaced; the next scale-up, +4 with none started, is rejected.
TEST(Statistics, PlatformReportMarksTheScaleUp) {
  InvocationsAutoscaler a(no_window(), 60.0, 1);
  auto f = fn(0.066);
  f.arrival_rate = {0.0, 9.0};
  const auto d1 = a.decide(view_with(f, 1, 2, 1, seconds(0)));  // 4 live: +5
  ASSERT_EQ(d1.start.size(), 1u);
  EXPECT_EQ(d1.start[0].tag, 1u);
  a.started(d1.start[0], 2);
  const auto d2 = a.decide(view_with(f, 1, 2, 2, seconds(1)));  // 5 live: +4
  ASSERT_EQ(d2.start.size(), 1u);
  EXPECT_EQ(d2.start[0].tag, 2u);
  a.started(d2.start[0], 0);
  StartInstance foreign{0, 3, std::nullopt, std::nullopt};  // untagged: not this log's
  a.started(foreign, 0);
  ASSERT_EQ(a.scale_ups().size(), 2u);
  EXPECT_EQ(a.scale_ups()[0].unplaced, 3);
  EXPECT_EQ(a.scale_ups()[1].unplaced, 4);
  const auto s = a.statistics();
  EXPECT_EQ(s["scale_ups"], 1);
  EXPECT_EQ(s["instances_started"], 2);
  EXPECT_EQ(s["rejected"]["scale_ups"], 1);
  EXPECT_EQ(s["rejected"]["replicas_asked"], 4);
  EXPECT_EQ(s["partially_placed"]["instances_not_started"], 3);
}

// The autoscaler records its own scale-ups: added and ready replicas, and the parts used.
TEST(Statistics, DecideRecordsEachScaleUp) {
  InvocationsAutoscaler a(no_window(), 60.0, 1);
  auto f = fn(0.066);
  f.arrival_rate = {0.0, 9.0};
  (void)a.decide(view_with(f, 1, 2, 1, seconds(0)));  // 4 live, 3 ready: +5
  (void)a.decide(view_with(f, 1, 2, 6, seconds(1)));  // 9 live: nothing
  ASSERT_EQ(a.scale_ups().size(), 1u);
  EXPECT_EQ(a.scale_ups()[0].added, 5);
  EXPECT_EQ(a.scale_ups()[0].running, 3);
  EXPECT_EQ(a.scale_ups()[0].parts, 1);
  EXPECT_EQ(a.statistics()["evaluations"], 2);
}

TEST(Atl, P99RateTimesExecutionTime) {
  ArrivalPercentileAutoscaler a(no_window(), 1.0, seconds(100), 99.0);
  auto f = fn(0.066);
  // Ticks at 0..100 s; arrivals grow by 50 per second except one burst second of 300: over
  // 100 samples the p99 (nearest rank 99 of 100) is 50... the burst is the 100th value.
  std::uint64_t arrivals = 0;
  int d = 0;
  for (int t = 0; t <= 100; ++t) {
    f.arrivals = arrivals;
    d = a.desired(f, view_with(f, 0, 0, 0, seconds(t)));
    arrivals += (t == 50) ? 300 : 50;
  }
  // ceil(50 * 0.066 / 1.0) = ceil(3.3) = 4.
  EXPECT_EQ(d, 4);
  // Two burst seconds put 300 at rank 99: ceil(300 * 0.066) = ceil(19.8) = 20.
  ArrivalPercentileAutoscaler b(no_window(), 1.0, seconds(100), 99.0);
  arrivals = 0;
  for (int t = 0; t <= 100; ++t) {
    f.arrivals = arrivals;
    d = b.desired(f, view_with(f, 0, 0, 0, seconds(t)));
    arrivals += (t == 50 || t == 60) ? 300 : 50;
  }
  EXPECT_EQ(d, 20);
}

TEST(Owk, UtilisationTargetBoundsOneStep) {
  UtilisationAutoscaler a(no_window(), 0.6, seconds(15));
  auto f = fn(0.066);
  // 10 ready, all busy, 2 cold-starting: ceil(10 * 1.0 / 0.6) = 17 (at most 1/0.6-fold).
  EXPECT_EQ(a.desired(f, view_with(f, 0, 10, 2, seconds(1))), 17);
  // Next tick: 3 of 10 busy; mean over the window (1.0 + 0.3) / 2 = 0.65; sum 6.5 over 12 live
  // at 0.6 -> ratio 6.5 / 7.2 = 0.903, inside the 10% band: unchanged (12 live).
  EXPECT_EQ(a.desired(f, view_with(f, 7, 3, 2, seconds(2))), 12);
  // Then none busy: mean (1.0 + 0.3 + 0) / 3 = 0.4333, sum 4.333, ratio 0.60 -> ceil(4.333 /
  // 0.6) = ceil(7.22) = 8.
  EXPECT_EQ(a.desired(f, view_with(f, 10, 0, 2, seconds(3))), 8);
}

TEST(Sm, InvocationsPerInstance) {
  InvocationsAutoscaler a(no_window(), 600.0, 1);
  auto f = fn(0.066);
  f.arrival_rate = {80.0, 57.0};  // 60 s window: 57/s = 3420 per minute
  // ceil(3420 / 600) = 6.
  EXPECT_EQ(a.desired(f, view_with(f, 0, 0, 0, seconds(1))), 6);
  // Default target: 0.5 * 60 / 0.066 = 454.5 per minute -> ceil(3420 / 454.545) = ceil(7.524) = 8.
  InvocationsAutoscaler b(no_window(), 0.0, 1);
  EXPECT_EQ(b.desired(f, view_with(f, 0, 0, 0, seconds(1))), 8);
}

// §4.2.6 with eq. 4.14: four equal layers (10 s cold start each, 1 s execution, 0.01 s
// transfers). A scale-up by 4 with 100 queued requests (x = 100 + (0 - 0) * 40 = 100): on P = 4
// GPUs, p = 4 gives C = 10, I = 4.03, steps mean (x - 1) / 2 = 49.5 of B = 1 -> 63.5 s; p = 1
// gives C = 40, I = 4, four pipelines: waits 4 * (ceil(y/4) - 1), mean 4 * 12 = 48 -> 92 s;
// p = 2: C = 20, I = 4.01, two pipelines of B = 2: 2 * mean(ceil(y/2) - 1) = 2 * 24.5 = 49 ->
// 73 s. So one replica of 4 parts.
// (With a scale-up by fewer replicas than the optimum, §4.2.2 takes the best plan with exactly
// that many parts.)
TEST(Partitioning, ScaleUpUsesThePlanForTheExpectedRequests) {
  ScalingLimits l = no_window();
  PartitioningOptions mp;
  mp.enabled = true;
  InvocationsAutoscaler a(l, 15.0, 1, mp);  // 15 per minute per replica
  auto f = fn(4.0);
  f.layers.assign(4, LayerView{10.0, 1.0, 0.01});
  f.queue_length = 100;
  f.arrival_rate = {0.0, 1.0};  // 60 per minute / 15 = 4 desired; lambda (first window) 0
  const auto d = a.decide(view_with(f, 0, 0, 0, seconds(1)));
  ASSERT_EQ(d.start.size(), 1u);
  ASSERT_TRUE(d.start[0].partition.has_value());
  EXPECT_EQ(d.start[0].count, 1);
  EXPECT_EQ(d.start[0].partition->cut_after, (std::vector<int>{0, 1, 2}));
  // Fig. 8.10: one scale-up of 4 GPUs from none running, with a 4-part plan.
  ASSERT_EQ(a.scale_ups().size(), 1u);
  EXPECT_EQ(a.scale_ups()[0].added, 4);
  EXPECT_EQ(a.scale_ups()[0].running, 0);
  EXPECT_EQ(a.scale_ups()[0].parts, 4);
}

TEST(Partitioning, ScaleDownEvictsPartitionedReplicasFirst) {
  InvocationsAutoscaler a(no_window(), 60.0, 1);
  auto f = fn(0.066);
  f.arrival_rate = {0.0, 1.0};  // 60 per minute / 60 -> 1
  // Instances 1, 2: full and idle; 3..5: one replica of 3 parts (head 3), idle. Desired 1 ->
  // surplus 4: the 3-part replica goes first (stop its head), then one full instance.
  auto v = view_with(f, 5, 0, 0, seconds(5));
  for (int k = 2; k < 5; ++k) {
    v.instances[static_cast<std::size_t>(k)].partition = k - 2;
    v.instances[static_cast<std::size_t>(k)].partitions = 3;
    v.instances[static_cast<std::size_t>(k)].partition_head = 3;
  }
  v.functions[0] = f;
  v.now = seconds(4);
  EXPECT_TRUE(a.decide(v).stop.empty());  // the first window starts from the 5 found
  v.now = seconds(5);
  const auto d = a.decide(v);
  ASSERT_EQ(d.stop.size(), 2u);
  EXPECT_EQ(d.stop[0].id, 3u);  // the partitioned replica's head
  EXPECT_EQ(d.stop[1].id, 2u);  // then the newest full idle instance
}

// §8.1.2's testbed cap (PartitionCap::kFreeGpus): the plan is bounded by the idle GPUs, not by
// the replicas added. The four equal layers above, x = 100: the best plan on P = 4 GPUs has 4
// parts, so a scale-up by ONE replica with 4 idle GPUs starts one replica of 4 parts (4 GPUs);
// with 3 idle GPUs the best plan with exactly 3 parts (§4.2.2's plans_by_p); with 1 idle GPU
// floor(1 / 1) = 1 part: a full replica. The default cap (§4.2.6) never partitions a scale-up
// by one.
PlatformView with_hosts(PlatformView v, int gpus, int busy_gpus) {
  for (int k = 0; k < gpus; ++k) {
    HostView h;
    h.index = k;
    h.gpus.push_back(GpuView{});
    h.gpus.back().instances = k < busy_gpus ? 1 : 0;
    v.hosts.push_back(h);
  }
  return v;
}

TEST(Partitioning, FreeGpuCapPartitionsAOneReplicaScaleUpOverIdleGpus) {
  PartitioningOptions mp;
  mp.enabled = true;
  mp.cap = PartitionCap::kFreeGpus;
  auto f = fn(4.0);
  f.layers.assign(4, LayerView{10.0, 1.0, 0.01});
  f.queue_length = 100;
  f.arrival_rate = {0.0, 1.0};  // 60 per minute / 60 = 1 desired
  const auto scale_up = [&](PartitioningOptions o, int gpus, int busy) {
    InvocationsAutoscaler a(no_window(), 60.0, 1, o);
    auto d = a.decide(with_hosts(view_with(f, 0, 0, 0, seconds(1)), gpus, busy));
    return std::make_pair(d, a.scale_ups());
  };
  // 5 GPUs, one of them holding an instance: 4 idle.
  const auto [d4, log4] = scale_up(mp, 5, 1);
  ASSERT_EQ(d4.start.size(), 1u);
  ASSERT_TRUE(d4.start[0].partition.has_value());
  EXPECT_EQ(d4.start[0].count, 1);
  EXPECT_EQ(d4.start[0].partition->cut_after, (std::vector<int>{0, 1, 2}));
  ASSERT_EQ(log4.size(), 1u);
  EXPECT_EQ(log4[0].added, 4);  // GPUs
  EXPECT_EQ(log4[0].parts, 4);
  // 3 idle: the best 3-part plan.
  const auto [d3, log3] = scale_up(mp, 3, 0);
  ASSERT_EQ(d3.start.size(), 1u);
  ASSERT_TRUE(d3.start[0].partition.has_value());
  EXPECT_EQ(d3.start[0].count, 1);
  EXPECT_EQ(d3.start[0].partition->cut_after.size(), 2u);
  EXPECT_EQ(log3[0].added, 3);
  // 1 idle (of 4): no plan with 2 parts fits, a full replica.
  const auto [d1, log1] = scale_up(mp, 4, 3);
  ASSERT_EQ(d1.start.size(), 1u);
  EXPECT_FALSE(d1.start[0].partition.has_value());
  EXPECT_EQ(d1.start[0].count, 1);
  EXPECT_EQ(log1[0].parts, 1);
  // The default cap with all 4 idle: at most 1 part for a scale-up by 1, a full replica.
  PartitioningOptions def = mp;
  def.cap = PartitionCap::kReplicasAdded;
  const auto [dd, logd] = scale_up(def, 4, 0);
  ASSERT_EQ(dd.start.size(), 1u);
  EXPECT_FALSE(dd.start[0].partition.has_value());
}

// Two replicas wanted with 5 idle GPUs: floor(5 / 2) = 2 parts each (4 GPUs), the best 2-part
// plan for both; the same decision's budget is shared, so it never asks for more than 5.
TEST(Partitioning, FreeGpuCapSplitsTheIdleGpusOverTheReplicasAdded) {
  PartitioningOptions mp;
  mp.enabled = true;
  mp.cap = PartitionCap::kFreeGpus;
  InvocationsAutoscaler a(no_window(), 30.0, 1, mp);
  auto f = fn(4.0);
  f.layers.assign(4, LayerView{10.0, 1.0, 0.01});
  f.queue_length = 100;
  f.arrival_rate = {0.0, 1.0};  // 60 per minute / 30 = 2 desired
  const auto d = a.decide(with_hosts(view_with(f, 0, 0, 0, seconds(1)), 5, 0));
  ASSERT_EQ(d.start.size(), 1u);
  ASSERT_TRUE(d.start[0].partition.has_value());
  EXPECT_EQ(d.start[0].count, 2);
  EXPECT_EQ(d.start[0].partition->cut_after, (std::vector<int>{1}));  // 2 + 2 layers
  EXPECT_EQ(a.scale_ups()[0].added, 4);
}

// Scale-down must not undo such a scale-up: one warm full replica (id 1) and one replica of 4
// parts still cold-starting (ids 2..5, head 2), 2 replicas desired. Under the free-GPU cap the
// partitioned replica counts once: 2 live, nothing stopped. Counted per GPU (the default) it
// is 5 live, surplus 3: the 4-part replica does not fit in 3, so the warm replica is stopped.
// With 1 desired, the partitioned replica goes first (§4.2.6), as one replica.
TEST(Partitioning, FreeGpuCapCountsAPartitionedReplicaOnce) {
  auto f = fn(0.066);
  auto v = view_with(f, 1, 0, 4, seconds(4));
  for (int k = 1; k < 5; ++k) {
    auto& i = v.instances[static_cast<std::size_t>(k)];
    i.partition = k - 1;
    i.partitions = 4;
    i.partition_head = 2;
  }
  const auto run = [&](PartitionCap cap, double per_minute_wanted) {
    PartitioningOptions mp;
    mp.enabled = true;
    mp.cap = cap;
    InvocationsAutoscaler a(no_window(), 60.0, 1, mp);
    f.arrival_rate = {0.0, per_minute_wanted / 60.0};
    v.functions[0] = f;
    v.now = seconds(4);
    EXPECT_TRUE(a.decide(v).stop.empty());  // the first window starts from the count found
    v.now = seconds(5);
    return a.decide(v);
  };
  EXPECT_TRUE(run(PartitionCap::kFreeGpus, 120.0).stop.empty());
  const auto per_gpu = run(PartitionCap::kReplicasAdded, 120.0);
  ASSERT_EQ(per_gpu.stop.size(), 1u);
  EXPECT_EQ(per_gpu.stop[0].id, 1u);
  const auto one = run(PartitionCap::kFreeGpus, 60.0);
  ASSERT_EQ(one.stop.size(), 1u);
  EXPECT_EQ(one.stop[0].id, 2u);
  // The counts themselves.
  EXPECT_EQ(count_replicas(v, 0, true).live, 2);
  EXPECT_EQ(count_replicas(v, 0, false).live, 5);
}

// A ready partitioned replica's parts serve in its pipeline: counted as replicas (the default
// cap) they are ready pods, and busy while the head is (issue #20; before, a 3-part pipeline
// was 3 live but 1 ready, i.e. 2 unready pods until model completion). View: one idle full
// replica (id 1) and a ready 3-part replica (head 2; parts 3, 4 held, shown cold-starting as
// the platform keeps them until completion).
PlatformView one_full_and_a_pipeline(const FunctionView& f, InstanceState head, Time now) {
  auto v = view_with(f, 1, 0, 3, now);
  for (int k = 1; k < 4; ++k) {
    auto& i = v.instances[static_cast<std::size_t>(k)];
    i.partition = k - 1;
    i.partitions = 3;
    i.partition_head = 2;
  }
  v.instances[1].state = head;
  return v;
}

TEST(Partitioning, AReadyPipelinesPartsAreReadyAndBusyWithItsHead) {
  const auto f = fn(0.066);
  const auto counts = [&](InstanceState head, bool once) {
    const auto c = count_replicas(one_full_and_a_pipeline(f, head, seconds(1)), 0, once);
    return std::make_tuple(c.live, c.ready, c.busy);
  };
  // Per GPU: 1 + 3 live; head idle: 1 + 3 ready, none busy; head busy: 3 busy.
  EXPECT_EQ(counts(InstanceState::kIdle, false), std::make_tuple(4, 4, 0));
  EXPECT_EQ(counts(InstanceState::kBusy, false), std::make_tuple(4, 4, 3));
  // Counted once (free-GPU cap): the pipeline is one replica, live, ready and busy alike.
  EXPECT_EQ(counts(InstanceState::kIdle, true), std::make_tuple(2, 2, 0));
  EXPECT_EQ(counts(InstanceState::kBusy, true), std::make_tuple(2, 2, 1));
  // Still cold-starting (head too): live only.
  EXPECT_EQ(counts(InstanceState::kColdStarting, false), std::make_tuple(4, 1, 0));
}

// The HPA decisions that depend on it. OWK at 60%, head busy: utilisation 3 / 4 = 0.75, sum
// 0.75 x 4 = 3.0 over 0.6 x 4 live -> ratio 1.25, ceil(3 / 0.6) = 5 (a scale-up). Counting
// the parts unready (ready 2, busy 1) gave 0.5 x 2 = 1.0, ratio 0.42 -> ceil(1 / 0.6) = 2, a
// scale-down. TSK at a 14 s mean wait (ratio 2 to 7 s): ceil(2 x 4 ready) = 8, not
// ceil(2 x 2) = 4 (below the 4 live). A 7.5 s wait (ratio 1.07, in the tolerance) keeps 4.
TEST(Partitioning, HpaRulesSeeAReadyPipelineAsServingPods) {
  const auto f = fn(0.066);
  UtilisationAutoscaler owk(no_window(), 0.6, seconds(15));
  EXPECT_EQ(owk.desired(f, one_full_and_a_pipeline(f, InstanceState::kBusy, seconds(1))), 5);
  const auto tsk_at = [&](double mean_wait_s) {
    QueueLatencyAutoscaler a(no_window(), 7.0, seconds(15));
    (void)a.desired(dequeued(f, 0, 0, 10),
                    one_full_and_a_pipeline(f, InstanceState::kBusy, seconds(0)));
    return a.desired(dequeued(f, 10, 10 * mean_wait_s, 10),
                     one_full_and_a_pipeline(f, InstanceState::kBusy, seconds(5)));
  };
  EXPECT_EQ(tsk_at(14.0), 8);
  EXPECT_EQ(tsk_at(7.5), 4);
}

// Each autoscaler's evaluation period defaults to its deployed system's (HPA sync 15 s for TSK
// and OWK, SageMaker's 1-minute metrics for SM*, every tick for ATL); 0 is an error naming the
// key.
TEST(Schema, EvaluationPeriodDefaultsAndValidation) {
  PolicyRegistry r;
  register_policies(r);
  const std::vector<std::pair<std::string, double>> expected{
      {"tsk", 15.0}, {"owk", 15.0}, {"sm", 60.0}, {"atl", 1.0}};
  for (const auto& [type, period_s] : expected) {
    const PolicyKind* k = r.find(kAutoscaler, type);
    ASSERT_NE(k, nullptr) << type;
    config::Diagnostics ok("test");
    const auto resolved = k->schema->resolve(nlohmann::json::object(), "", ok);
    ASSERT_TRUE(ok.ok()) << type;
    EXPECT_EQ(config::get_duration(resolved, "evaluation_period"), seconds(period_s)) << type;
    config::Diagnostics bad("test");
    (void)k->schema->resolve({{"evaluation_period", "0s"}}, "", bad);
    ASSERT_EQ(bad.problems().size(), 1u) << type;
    EXPECT_NE(bad.problems()[0].location.find("evaluation_period"), std::string::npos);
    EXPECT_NE(bad.problems()[0].message.find("found \"0s\""), std::string::npos)
        << bad.problems()[0].message;
  }
  config::Diagnostics diag("test");
  const auto tsk = r.find(kAutoscaler, "tsk")->schema->resolve(nlohmann::json::object(), "", diag);
  EXPECT_EQ(config::get_duration(tsk, "window"), seconds(15));  // TSK's QueueTime window
}

// TSK and OWK run on Kubernetes HPA: scale-down stabilisation 300 s and the default scale-up
// policies (15 s periods, 100% or 4 pods); ATL and SM* are not on HPA: 60 s, no scale-up limit.
TEST(Schema, HpaBehaviourDefaultsForTheHpaAutoscalers) {
  PolicyRegistry r;
  register_policies(r);
  const std::vector<std::tuple<std::string, double, double>> expected{
      {"tsk", 300.0, 15.0}, {"owk", 300.0, 15.0}, {"atl", 60.0, 0.0}, {"sm", 60.0, 0.0}};
  for (const auto& [type, down_s, up_s] : expected) {
    config::Diagnostics ok("test");
    const auto p = r.find(kAutoscaler, type)->schema->resolve(nlohmann::json::object(), "", ok);
    ASSERT_TRUE(ok.ok()) << type;
    EXPECT_EQ(config::get_duration(p, "scale_down_window"), seconds(down_s)) << type;
    EXPECT_EQ(config::get_duration(p, "scale_up_period"), seconds(up_s)) << type;
    EXPECT_EQ(p.at("scale_up_percent").get<double>(), 100.0) << type;
    EXPECT_EQ(p.at("scale_up_pods").get<int>(), 4) << type;
  }
}

// Each autoscaler's lowest replica count defaults to its deployed system's: Kubernetes HPA's
// minReplicas 1 (TSK, OWK), SageMaker's MinCapacity of at least 1 (SM*), Atoll scales to zero
// (ATL); 0 stays reachable by parameter.
TEST(Schema, MinReplicasDefaultsToTheDeployedSystems) {
  PolicyRegistry r;
  register_policies(r);
  const std::vector<std::pair<std::string, int>> expected{
      {"tsk", 1}, {"owk", 1}, {"sm", 1}, {"atl", 0}};
  for (const auto& [type, min] : expected) {
    const PolicyKind* k = r.find(kAutoscaler, type);
    ASSERT_NE(k, nullptr) << type;
    config::Diagnostics ok("test");
    EXPECT_EQ(k->schema->resolve(nlohmann::json::object(), "", ok).at("min_replicas").get<int>(),
              min)
        << type;
    EXPECT_EQ(k->schema->resolve({{"min_replicas", 0}}, "", ok).at("min_replicas").get<int>(), 0)
        << type;
    ASSERT_TRUE(ok.ok()) << type;
  }
}

// TSK built from its defaults (300 s stabilisation, 15 s evaluations) with one idle replica and
// nothing queued or dequeued: the queue latency is 0, so HPA's rule asks ceil(1 x 0 / 7) = 0.
// Once the seeded count (1 at t = 0) has left the window, at t = 315 s, the default keeps the
// replica (minReplicas 1); with min_replicas 0 it is stopped.
TEST(Tsk, DefaultKeepsOneReplicaThroughAnIdleWindow) {
  PolicyRegistry r;
  register_policies(r);
  const PolicyKind* k = r.find(kAutoscaler, "tsk");
  ASSERT_NE(k, nullptr);
  const auto stops_at_315 = [&](const nlohmann::json& params) {
    config::Diagnostics ok("test");
    const auto resolved = k->schema->resolve(params, "", ok);
    EXPECT_TRUE(ok.ok());
    auto policy = k->make(resolved, PolicyContext{});
    auto* a = dynamic_cast<ReplicaAutoscaler*>(policy.get());
    EXPECT_NE(a, nullptr);
    if (a == nullptr) return std::size_t{0};
    const auto f = dequeued(fn(0.066), 0, 0, 0);
    std::size_t stops = 0;
    for (int t = 0; t <= 315; t += 15) {
      const auto d = a->decide(view_with(f, stops > 0 ? 0 : 1, 0, 0, seconds(t)));
      EXPECT_TRUE(d.start.empty()) << t;
      if (t < 315) {
        EXPECT_TRUE(d.stop.empty()) << t;  // the seeded 1 is within 300 s
      }
      stops += d.stop.size();
    }
    return stops;
  };
  EXPECT_EQ(stops_at_315(nlohmann::json::object()), 0u);
  EXPECT_EQ(stops_at_315({{"min_replicas", 0}}), 1u);
}

// partition_cap: replicas-added by default (§4.2.6, so existing scenarios are unchanged);
// anything but the two choices is an error naming the key.
TEST(Schema, PartitionCapDefaultsToReplicasAdded) {
  PolicyRegistry r;
  register_policies(r);
  for (const char* type : {"tsk", "atl", "owk", "sm"}) {
    const PolicyKind* k = r.find(kAutoscaler, type);
    ASSERT_NE(k, nullptr) << type;
    config::Diagnostics ok("test");
    const auto resolved = k->schema->resolve(nlohmann::json::object(), "", ok);
    ASSERT_TRUE(ok.ok()) << type;
    EXPECT_EQ(resolved.at("partition_cap"), "replicas-added") << type;
    config::Diagnostics bad("test");
    (void)k->schema->resolve({{"partition_cap", "gpus"}}, "", bad);
    ASSERT_EQ(bad.problems().size(), 1u) << type;
    EXPECT_NE(bad.problems()[0].location.find("partition_cap"), std::string::npos);
  }
}

TEST(Thresholds, EachAutoscalerNamesItsThreshold) {
  EXPECT_EQ(threshold_name("tsk"), "target_queue_latency_s");
  EXPECT_EQ(threshold_name("atl"), "target_utilisation");
  EXPECT_EQ(threshold_name("owk"), "target_utilisation");
  EXPECT_EQ(threshold_name("sm"), "target_invocations");
  EXPECT_EQ(threshold_name("fixed-pool"), "");
}

}  // namespace
}  // namespace sim::policy::flashpoint
