// The four autoscalers of the Flashpoint evaluation (thesis §3.1, §8.4): hand-computed desired
// counts from views built by hand.

#include <gtest/gtest.h>

#include "sim/policy/flashpoint/autoscalers.hpp"

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

TEST(Tsk, HpaRuleOnQueueLatency) {
  QueueLatencyAutoscaler a(no_window(), 7.0);
  auto f = fn(0.066);
  // 4 replicas, head-of-line wait 21 s: ceil(4 * 21 / 7) = 12.
  f.oldest_wait = seconds(21);
  f.queue_length = 300;
  EXPECT_EQ(a.desired(f, view_with(f, 0, 4, 0, seconds(10))), 12);
  // Within 10% of the target (7.5 s: ratio 1.07): unchanged.
  f.oldest_wait = ms(7500);
  EXPECT_EQ(a.desired(f, view_with(f, 0, 4, 0, seconds(10))), 4);
  // An empty queue asks for none (the stabilisation window keeps them).
  f.oldest_wait = Time::zero();
  f.queue_length = 0;
  EXPECT_EQ(a.desired(f, view_with(f, 4, 0, 0, seconds(10))), 0);
}

TEST(Tsk, DecideStartsTheMissingAndStopsIdleFirst) {
  QueueLatencyAutoscaler a(no_window(), 7.0);
  auto f = fn(0.066);
  f.oldest_wait = seconds(14);
  f.queue_length = 10;
  // 2 busy + 1 cold-starting = 3 live: ceil(3 * 14 / 7) = 6 -> start 3.
  auto d = a.decide(view_with(f, 0, 2, 1, seconds(1)));
  ASSERT_EQ(d.start.size(), 1u);
  EXPECT_EQ(d.start[0].count, 3);
  // Queue empty: desired 0, min 0 -> stop all 3 idle + 1 cold (ids 1..3 idle, 4 cold).
  f.oldest_wait = Time::zero();
  f.queue_length = 0;
  d = a.decide(view_with(f, 3, 0, 1, seconds(2)));
  ASSERT_EQ(d.stop.size(), 4u);
  EXPECT_EQ(d.stop[0].id, 3u);  // idle, newest first
  EXPECT_EQ(d.stop[3].id, 4u);  // then the cold-starting one
}

TEST(Scaling, StabilisationWindowDelaysScaleDown) {
  ScalingLimits l;
  l.scale_down_window = seconds(60);
  QueueLatencyAutoscaler a(l, 7.0);
  auto f = fn(0.066);
  f.oldest_wait = seconds(14);
  f.queue_length = 5;
  auto d = a.decide(view_with(f, 0, 2, 0, seconds(0)));  // desired 4
  EXPECT_EQ(d.start.at(0).count, 2);
  f.oldest_wait = Time::zero();
  f.queue_length = 0;
  d = a.decide(view_with(f, 4, 0, 0, seconds(30)));  // 4 still within the window
  EXPECT_TRUE(d.stop.empty());
  d = a.decide(view_with(f, 4, 0, 0, seconds(61)));  // the 4 left the window
  EXPECT_EQ(d.stop.size(), 4u);
}

// Kubernetes HPA scale-up policies (15 s, 100%, 4 pods): the queue latency asks for 10x the
// live count every second, but within a period the count grows to at most
// max(2 x base, base + 4), base being the count at the period's start.
TEST(Scaling, HpaScaleUpPoliciesCapGrowthPerPeriod) {
  ScalingLimits l = no_window();
  l.scale_up_period = seconds(15);
  QueueLatencyAutoscaler a(l, 7.0);
  auto f = fn(0.066);
  f.oldest_wait = seconds(70);  // ratio 10
  f.queue_length = 100;
  // t = 0: 3 live (base 3): ceil(3 * 10) = 30 wanted, capped at max(6, 7) = 7: start 4.
  auto d = a.decide(view_with(f, 0, 3, 0, seconds(0)));
  ASSERT_EQ(d.start.size(), 1u);
  EXPECT_EQ(d.start[0].count, 4);
  // t = 10 s: 7 live, base still 3 (t = 0 is within 15 s): cap 7, nothing more.
  d = a.decide(view_with(f, 0, 3, 4, seconds(10)));
  EXPECT_TRUE(d.start.empty());
  // t = 15 s: the count at t = 0 leaves the period; base is t = 10 s's 7: cap max(14, 11) = 14.
  d = a.decide(view_with(f, 0, 3, 4, seconds(15)));
  ASSERT_EQ(d.start.size(), 1u);
  EXPECT_EQ(d.start[0].count, 7);
  // Without the policies the same view asks for all ceil(7 * 10) = 70 at once.
  QueueLatencyAutoscaler unlimited(no_window(), 7.0);
  d = unlimited.decide(view_with(f, 0, 3, 4, seconds(15)));
  EXPECT_EQ(d.start.at(0).count, 63);
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
  QueueLatencyAutoscaler a(l, 7.0, mp);
  auto f = fn(4.0);
  f.layers.assign(4, LayerView{10.0, 1.0, 0.01});
  f.queue_length = 100;
  f.oldest_wait = seconds(28);  // max(0 live, 1) * 28 / 7 = 4 desired
  f.arrival_rate = {0.0, 0.0};
  const auto d = a.decide(view_with(f, 0, 0, 0, seconds(1)));
  ASSERT_EQ(d.start.size(), 1u);
  ASSERT_TRUE(d.start[0].partition.has_value());
  EXPECT_EQ(d.start[0].count, 1);
  EXPECT_EQ(d.start[0].partition->cut_after, (std::vector<int>{0, 1, 2}));
}

TEST(Partitioning, ScaleDownEvictsPartitionedReplicasFirst) {
  QueueLatencyAutoscaler a(no_window(), 7.0);
  auto f = fn(0.066);
  // Instances 1, 2: full and idle; 3..5: one replica of 3 parts (head 3), idle. Desired 1 ->
  // surplus 4: the 3-part replica goes first (stop its head), then one full instance.
  auto v = view_with(f, 5, 0, 0, seconds(5));
  for (int k = 2; k < 5; ++k) {
    v.instances[static_cast<std::size_t>(k)].partition = k - 2;
    v.instances[static_cast<std::size_t>(k)].partitions = 3;
    v.instances[static_cast<std::size_t>(k)].partition_head = 3;
  }
  f.oldest_wait = ms(1400);  // ceil(5 * 1.4 / 7) = 1
  v.functions[0] = f;
  v.now = seconds(4);
  EXPECT_TRUE(a.decide(v).stop.empty());  // the first window starts from the 5 found
  v.now = seconds(5);
  const auto d = a.decide(v);
  ASSERT_EQ(d.stop.size(), 2u);
  EXPECT_EQ(d.stop[0].id, 3u);  // the partitioned replica's head
  EXPECT_EQ(d.stop[1].id, 2u);  // then the newest full idle instance
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
