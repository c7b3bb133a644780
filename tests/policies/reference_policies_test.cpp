// Policy unit tests: build a view, call the policy, assert on the decisions it returns.

#include <gtest/gtest.h>

#include <map>

#include "reference/autoscalers.hpp"
#include "reference/cluster_policies.hpp"
#include "reference/first_fit.hpp"
#include "reference/keep_alive.hpp"
#include "reference/planners.hpp"
#include "reference/request_path.hpp"
#include "reference/sourcing.hpp"

namespace sim::policy::reference {
namespace {

QueuedRequest req(std::uint64_t id, Time arrival, Time timeout,
                  RequestClass cls = RequestClass::kStrict) {
  QueuedRequest q;
  q.id = id;
  q.arrival = arrival;
  q.batch_timeout = timeout;
  q.cls = cls;
  return q;
}

TEST(FifoBatcher, TakesAFullBatchAtOnce) {
  std::vector<QueuedRequest> q{req(1, ms(0), ms(50)), req(2, ms(1), ms(50)), req(3, ms(2), ms(50))};
  FifoBatcher b;
  const auto d = b.select({ms(2), 0, 2, q});
  EXPECT_EQ(d.take, (std::vector<std::size_t>{0, 1}));
}

TEST(FifoBatcher, WaitsForTheOldestDeadlineThenTakesAll) {
  // Oldest arrival 10 ms with a 50 ms timeout -> deadline 60 ms; the second (timeout 100 ms)
  // would wait until 120 ms, so the earliest deadline (60 ms) decides.
  std::vector<QueuedRequest> q{req(1, ms(10), ms(50)), req(2, ms(20), ms(100))};
  FifoBatcher b;
  auto d = b.select({ms(30), 0, 8, q});
  EXPECT_TRUE(d.take.empty());
  ASSERT_TRUE(d.retry_at.has_value());
  EXPECT_EQ(*d.retry_at, ms(60));
  d = b.select({ms(60), 0, 8, q});
  EXPECT_EQ(d.take, (std::vector<std::size_t>{0, 1}));
}

TEST(FifoBatcher, StrictFirstReordersStably) {
  using RC = RequestClass;
  std::vector<QueuedRequest> q{
      req(1, ms(0), ms(0), RC::kBestEffort), req(2, ms(1), ms(0), RC::kStrict),
      req(3, ms(2), ms(0), RC::kBestEffort), req(4, ms(3), ms(0), RC::kStrict)};
  FifoBatcher b(true);
  EXPECT_EQ(b.select({ms(3), 0, 3, q}).take, (std::vector<std::size_t>{1, 3, 0}));
  // Enough strict requests for the whole batch: only they go, oldest first.
  EXPECT_EQ(b.select({ms(3), 0, 2, q}).take, (std::vector<std::size_t>{1, 3}));
  EXPECT_EQ(b.select({ms(3), 0, 1, q}).take, (std::vector<std::size_t>{1}));
  FifoBatcher plain(false);
  EXPECT_EQ(plain.select({ms(3), 0, 3, q}).take, (std::vector<std::size_t>{0, 1, 2}));
}

InstanceView idle(InstanceId id, Time since) {
  InstanceView v;
  v.id = id;
  v.state = InstanceState::kIdle;
  v.state_since = since;
  return v;
}

TEST(Dispatchers, PullPicksLongestIdleAndRoundRobinRotates) {
  std::vector<InstanceView> v{idle(1, ms(5)), idle(2, ms(3)), idle(3, ms(3))};
  PullDispatcher pull;
  EXPECT_EQ(pull.choose({ms(10), 0, v}), InstanceId{2});  // idle since 3 ms, lower id than 3
  RoundRobinDispatcher rr;
  EXPECT_EQ(rr.choose({ms(10), 0, v}), InstanceId{1});
  EXPECT_EQ(rr.choose({ms(10), 0, v}), InstanceId{2});
  EXPECT_EQ(rr.choose({ms(10), 0, v}), InstanceId{3});
  EXPECT_EQ(rr.choose({ms(10), 0, v}), InstanceId{1});  // wraps
  EXPECT_FALSE(rr.choose({ms(10), 0, {}}).has_value());
}

InstanceView sized(InstanceId id, int max_batch, double latency_s) {
  InstanceView v = idle(id, Time::zero());
  v.config.max_batch = max_batch;
  v.batch_latency_s = latency_s;
  return v;
}

/// Smooth weighted round robin with throughput weights: a = 5 / 1.0 s = 5 req/s,
/// b = 2 / 2.0 s = 1, c = 1 / 1.0 s = 1 (total 7). Credits after adding the weights, pick the
/// largest (ties: lowest id), subtract 7 from it:
///   1: a5 b1 c1 -> a (a=-2)     2: a3 b2 c2 -> a (a=-4)    3: a1 b3 c3 -> b (b=-4)
///   4: a6 b-3 c4 -> a (a=-1)    5: a4 b-2 c5 -> c (c=-2)   6: a9 b-1 c-1 -> a (a=2)
///   7: a7 b0 c0 -> a (a=0): every credit is back to 0, so the cycle of 7 repeats.
TEST(Dispatchers, WeightedSplitsInProportionToThroughput) {
  std::vector<InstanceView> v{sized(1, 5, 1.0), sized(2, 2, 2.0), sized(3, 1, 1.0)};
  WeightedDispatcher w;
  EXPECT_DOUBLE_EQ(w.weight_of(v[0]), 5.0);
  EXPECT_DOUBLE_EQ(w.weight_of(v[1]), 1.0);
  const std::vector<InstanceId> cycle{1, 1, 2, 1, 3, 1, 1};
  std::vector<InstanceId> got;
  for (int k = 0; k < 14; ++k)
    got.push_back(*w.choose({ms(10), 0, v}));
  std::vector<InstanceId> want = cycle;
  want.insert(want.end(), cycle.begin(), cycle.end());
  EXPECT_EQ(got, want);
  EXPECT_FALSE(w.choose({ms(10), 0, {}}).has_value());
}

/// Batch weights 5, 2, 1 (total 8): over 8 batches a takes 5, b 2, c 1. A busy instance (absent
/// from `idle`) earns no credit: with only b and c idle (weights 2, 1) the split is 2:1.
TEST(Dispatchers, WeightedByBatchAndOnlyOverIdleInstances) {
  std::vector<InstanceView> v{sized(1, 5, 1.0), sized(2, 2, 2.0), sized(3, 1, 1.0)};
  WeightedDispatcher w(WeightedDispatcher::Weight::kBatch);
  std::map<InstanceId, int> n;
  for (int k = 0; k < 8; ++k)
    ++n[*w.choose({ms(10), 0, v})];
  EXPECT_EQ(n, (std::map<InstanceId, int>{{1, 5}, {2, 2}, {3, 1}}));
  const std::vector<InstanceView> bc{v[1], v[2]};
  // Credits are all 0 after a full cycle: b2 c1 -> b (b=-1); b1 c2 -> c (c=-1); b3 c0 -> b.
  EXPECT_EQ(w.choose({ms(10), 0, bc}), InstanceId{2});
  EXPECT_EQ(w.choose({ms(10), 0, bc}), InstanceId{3});
  EXPECT_EQ(w.choose({ms(10), 0, bc}), InstanceId{2});
}

PlatformView one_function(double rate, std::size_t queue, int live) {
  PlatformView v;
  v.rate_windows = {seconds(10)};
  FunctionView f;
  f.id = 0;
  f.config.max_batch = 4;
  f.batch_latency_s = 0.1;  // one instance: 4 / 0.1 = 40 requests/s
  f.arrival_rate = {rate};
  f.queue_length = queue;
  f.idle = live;
  v.functions.push_back(f);
  for (int i = 0; i < live; ++i)
    v.instances.push_back(idle(static_cast<InstanceId>(i + 1), Time::zero()));
  return v;
}

TEST(Planners, InitialPoolStartsInstancesPerFunction) {
  PlatformView v = one_function(0.0, 0, 0);
  FunctionView g = v.functions[0];
  g.id = 3;
  v.functions.push_back(g);
  InitialPoolPlanner p(2);
  const auto d = p.plan(v);
  ASSERT_EQ(d.start.size(), 2u);
  EXPECT_EQ(d.start[0].function, 0u);
  EXPECT_EQ(d.start[1].function, 3u);
  EXPECT_EQ(d.start[1].count, 2);
  EXPECT_FALSE(d.start[0].config.has_value());
  EXPECT_TRUE(InitialPoolPlanner(0).plan(v).empty());
  EXPECT_TRUE(NoPlanner().plan(v).empty());
}

TEST(ReactiveRate, StartsWhatTheRateNeeds) {
  ReactiveRateAutoscaler a({0.5, 0, 0, 100, false});
  // 50 req/s / (0.5 * 40 req/s) = 2.5 -> 3 instances; 1 live -> start 2.
  auto d = a.decide(one_function(50.0, 0, 1));
  ASSERT_EQ(d.start.size(), 1u);
  EXPECT_EQ(d.start[0].count, 2);
  EXPECT_TRUE(d.stop.empty());
  // No traffic but a waiting request: one instance (scale from zero).
  d = a.decide(one_function(0.0, 1, 0));
  ASSERT_EQ(d.start.size(), 1u);
  EXPECT_EQ(d.start[0].count, 1);
  // Nothing to do.
  EXPECT_TRUE(a.decide(one_function(0.0, 0, 0)).empty());
}

TEST(ReactiveRate, ScaleDownStopsNewestIdleInstances) {
  ReactiveRateAutoscaler a({0.5, 0, 0, 100, true});
  // 15 req/s -> ceil(15 / 20) = 1 instance; 3 live -> stop 2, newest (ids 3, 2) first.
  const auto d = a.decide(one_function(15.0, 0, 3));
  ASSERT_EQ(d.stop.size(), 2u);
  EXPECT_EQ(d.stop[0].id, InstanceId{3});
  EXPECT_EQ(d.stop[1].id, InstanceId{2});
}

TEST(FixedPool, StartsOnlyTheMissingInstances) {
  FixedPoolAutoscaler a(3);
  const auto d = a.decide(one_function(0, 0, 1));
  ASSERT_EQ(d.start.size(), 1u);
  EXPECT_EQ(d.start[0].count, 2);
}

TEST(FirstFit, SkipsFullAndUnavailablePlaces) {
  PlatformView v;
  FunctionView f;
  f.model_bytes = 1e9;
  f.device_memory_gb = 10;
  HostView down;
  down.index = 0;
  down.available = false;
  down.memory_free_bytes = 1e12;
  down.gpus.push_back({"A100-40GB", GpuSharing::kExclusive, false, 40, 40, 0, false, {}});
  HostView h;
  h.index = 1;
  h.memory_free_bytes = 1e12;
  h.gpus.push_back({"A100-40GB", GpuSharing::kExclusive, false, 40, 40, 1, false, {}});  // taken
  GpuView mig{"A100-40GB", GpuSharing::kExclusive, true, 40, 0, 1, false, {}};
  mig.slices.push_back({"4g.20gb", 20, 20, 1, true});  // taken (exclusive)
  mig.slices.push_back({"2g.10gb", 10, 5, 0, true});   // too little memory
  mig.slices.push_back({"1g.5gb", 20, 20, 0, false});  // reconfiguring
  mig.slices.push_back({"3g.20gb", 20, 20, 0, true});  // fits
  h.gpus.push_back(mig);
  v.hosts = {down, h};
  FirstFitPlacement p;
  const auto loc = p.place({&f, {}}, v);
  ASSERT_TRUE(loc.has_value());
  EXPECT_EQ(*loc, (Location{1, 1, 3}));
  f.device_memory_gb = 30;
  EXPECT_FALSE(p.place({&f, {}}, v).has_value());
}

TEST(FixedKeepAlive, TimeoutAndPrewarm) {
  FixedKeepAlive k(seconds(60), 2);
  EXPECT_EQ(k.idle_timeout({}, {}), seconds(60));
  const auto starts = k.prewarm(one_function(0, 0, 1)).start;
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].count, 1);
}

TEST(Sourcing, LocalFirstOrder) {
  LocalFirstSourcing s;
  SourcingRequest r;
  r.host = 2;
  r.remote_hosts = {4, 7};
  EXPECT_EQ(s.choose(r).kind, SourceKind::kRemoteHost);
  EXPECT_EQ(s.choose(r).host, 4);
  r.local_copy = true;
  EXPECT_EQ(s.choose(r).kind, SourceKind::kLocalMemory);
  r = {};
  EXPECT_EQ(s.choose(r).kind, SourceKind::kStore);
  CloudStoreSourcing c;
  r.local_copy = true;
  EXPECT_EQ(c.choose(r).kind, SourceKind::kStore);
}

TEST(ReplaceRevoked, RequestsOneReplacementPerNotice) {
  PlatformView v;
  HostView h;
  h.index = 3;
  h.host_template = 1;
  h.revocation_at = seconds(100);
  v.hosts.push_back(h);
  ReplaceRevoked p(Market::kOnDemand);
  auto d = p.decide(v);
  ASSERT_EQ(d.request_vms.size(), 1u);
  EXPECT_EQ(d.request_vms[0].host_template, 1);
  EXPECT_EQ(d.request_vms[0].market, Market::kOnDemand);
  EXPECT_TRUE(p.decide(v).request_vms.empty());  // already replaced
}

}  // namespace
}  // namespace sim::policy::reference
