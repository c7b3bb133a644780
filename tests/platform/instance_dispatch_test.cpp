// Per-instance dispatch (ServerlessConfig::dispatch_scope = kInstance): a gateway routes each
// arrival to one ready instance, and the request waits for that instance even when another
// becomes free (OpenFaaS's gateway and replicas; INFless Table 3's OpenFaaS+).

#include <gtest/gtest.h>

#include "harness.hpp"

namespace sim::platform {
namespace {

using testing::Harness;

// One host with two GPUs; test/fig42 runs one request in 4 s. The test starts instance A
// (device 0) at 0 s and instance B (device 1) at 20 s; each cold start takes 24 s here. One request
// arrives at 5 s, before A is ready; six arrive at 30.0, 30.1, ..., 30.5 s, when A is the only
// ready instance; two at 60 and 60.1 s, when both are idle.
struct Outcome {
  std::vector<metrics::RequestRecord> records;  // by id
  Time a_ready;
  Time b_ready;
};

Outcome run(DispatchScope scope) {
  ServerlessConfig c = testing::config(testing::host(2));
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  c.dispatch_scope = scope;
  Harness h(std::move(c), testing::manual_policies());
  const auto start_one = [&h] {
    policy::Decisions d;
    d.start.push_back({0, 1, std::nullopt, std::nullopt});
    h.platform->apply(d);
  };
  h.sim.schedule_at(Time::zero(), start_one);
  h.sim.schedule_at(seconds(20), start_one);
  h.arrive(seconds(5), 0);
  for (int i = 0; i < 6; ++i)
    h.arrive(seconds(30.0 + 0.1 * i), 0);
  h.arrive(seconds(60), 0);
  h.arrive(seconds(60.1), 0);
  h.sim.run_until(seconds(120));
  EXPECT_EQ(h.platform->requests_in_system(), 0u);
  Outcome r;
  r.records = h.records;
  std::sort(r.records.begin(), r.records.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  const auto& cs = h.platform->cold_starts();
  EXPECT_EQ(cs.size(), 2u);
  const auto ready = [](const ColdStartRecord& x) {
    return x.started + x.download + x.runtime + x.load + x.copy;
  };
  r.a_ready = ready(cs.at(0));
  r.b_ready = ready(cs.at(1));
  return r;
}

TEST(InstanceDispatch, RequestsRoutedToAReplicaWaitForIt) {
  const Outcome r = run(DispatchScope::kInstance);
  ASSERT_EQ(r.records.size(), 9u);
  // The cold starts' stages are the platform's (24 s each); the test needs A ready before
  // 26 s and B ready while A runs the fourth request of 30 s (42-46 s).
  ASSERT_LT(r.a_ready, seconds(26));
  ASSERT_GT(r.b_ready, seconds(42));
  ASSERT_LT(r.b_ready, seconds(46));
  // The request of 5 s waited at the gateway (no instance ready) and A took it when ready.
  EXPECT_EQ(r.records[0].device, 0);
  EXPECT_EQ(r.records[0].start, r.a_ready);
  // The six requests of 30 s were all sent to A, the only ready instance, and stay there
  // after B is ready: A runs them one after another, 30-34, ..., 50-54 s.
  for (int i = 1; i <= 6; ++i) {
    EXPECT_EQ(r.records[i].device, 0) << i;
    EXPECT_EQ(r.records[i].start, seconds(30 + 4 * (i - 1))) << i;
  }
  EXPECT_EQ(r.records[6].finish, seconds(54));
  // Round robin over the ready instances by id keeps its count: the six routings of 30 s
  // were the gateway's 0th to 5th (the request of 5 s was held, not routed), so those of 60
  // and 60.1 s are the 6th and 7th: 6 mod 2 = 0 -> A, 7 mod 2 = 1 -> B.
  EXPECT_EQ(r.records[7].device, 0);
  EXPECT_EQ(r.records[8].device, 1);
  EXPECT_EQ(r.records[8].start, seconds(60.1));
}

TEST(InstanceDispatch, AClusterQueueGivesTheBacklogToANewInstance) {
  const Outcome r = run(DispatchScope::kCluster);
  ASSERT_EQ(r.records.size(), 9u);
  // The same arrivals with one queue: B takes the oldest waiting request when it is ready
  // (the fifth of 30 s; A is busy with the fourth, 42-46 s), and A the sixth at 46 s.
  ASSERT_GT(r.b_ready, seconds(42));
  ASSERT_LT(r.b_ready, seconds(46));
  EXPECT_EQ(r.records[5].device, 1);
  EXPECT_EQ(r.records[5].start, r.b_ready);
  EXPECT_EQ(r.records[6].device, 0);
  EXPECT_EQ(r.records[6].finish, seconds(50));
}

// A replica that is stopped while requests wait for it sends them back through the gateway:
// A and B ready; four requests at 30.0-30.3 s go A, B, A, B. A is stopped at 31 s: it
// finishes its running request (30-34 s) and takes no more; the request waiting for it (of
// 30.2 s) is routed again, to B, the only ready replica, behind B's own waiting request (of
// 30.3 s): B runs 30.1-34.1, 34.1-38.1 and 38.1-42.1 s.
TEST(InstanceDispatch, RequestsOfAStoppedReplicaAreRerouted) {
  ServerlessConfig c = testing::config(testing::host(2));
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  c.dispatch_scope = DispatchScope::kInstance;
  Harness h(std::move(c), testing::manual_policies());
  h.sim.schedule_at(Time::zero(), [&h] {
    policy::Decisions d;
    d.start.push_back({0, 2, std::nullopt, std::nullopt});
    h.platform->apply(d);
  });
  for (int i = 0; i < 4; ++i)
    h.arrive(seconds(30.0 + 0.1 * i), 0);
  h.sim.schedule_at(seconds(31), [&h] {
    policy::Decisions d;
    d.stop.push_back({h.platform->view().instances.at(0).id});
    h.platform->apply(d);
  });
  h.sim.run_until(seconds(120));
  ASSERT_EQ(h.records.size(), 4u);
  EXPECT_EQ(h.platform->requests_in_system(), 0u);
  auto r = h.records;
  std::sort(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  EXPECT_EQ(r[0].device, 0);
  EXPECT_EQ(r[0].finish, seconds(34));
  EXPECT_EQ(r[1].device, 1);
  EXPECT_EQ(r[3].device, 1);
  EXPECT_EQ(r[3].start, seconds(34.1));
  EXPECT_EQ(r[2].device, 1);
  EXPECT_EQ(r[2].start, seconds(38.1));
  EXPECT_EQ(r[2].finish, seconds(42.1));
}

// Two ready replicas A (device 0) and B (device 1), started together and ready at 24 s.
// Requests at 30.0, 34.05 and 34.1 s; A runs the first 30-34 s.
std::vector<metrics::RequestRecord> two_replicas(GatewayRoute route) {
  ServerlessConfig c = testing::config(testing::host(2));
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  c.dispatch_scope = DispatchScope::kInstance;
  c.gateway = route;
  Harness h(std::move(c), testing::manual_policies());
  h.sim.schedule_at(Time::zero(), [&h] {
    policy::Decisions d;
    d.start.push_back({0, 2, std::nullopt, std::nullopt});
    h.platform->apply(d);
  });
  h.arrive(seconds(30), 0);
  h.arrive(seconds(34.05), 0);
  h.arrive(seconds(34.1), 0);
  h.sim.run_until(seconds(120));
  EXPECT_EQ(h.platform->requests_in_system(), 0u);
  auto r = h.records;
  std::sort(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return r;
}

TEST(InstanceDispatch, LeastLoadedPicksTheReplicaWithFewestRequests) {
  const auto r = two_replicas(GatewayRoute::kLeastLoaded);
  ASSERT_EQ(r.size(), 3u);
  // 30.0 s: both empty, the lower id (A). 34.05 s: both empty again (A done at 34 s) -> A.
  // 34.1 s: A runs one, B none -> B, at once.
  EXPECT_EQ(r[0].device, 0);
  EXPECT_EQ(r[1].device, 0);
  EXPECT_EQ(r[1].start, seconds(34.05));
  EXPECT_EQ(r[2].device, 1);
  EXPECT_EQ(r[2].start, seconds(34.1));
}

TEST(InstanceDispatch, RoundRobinIgnoresLoad) {
  const auto r = two_replicas(GatewayRoute::kRoundRobin);
  ASSERT_EQ(r.size(), 3u);
  // A, B, A in turn, whatever each holds: the second goes to B although A is as empty and
  // first by id, the third to A (idle again since 34 s).
  EXPECT_EQ(r[0].device, 0);
  EXPECT_EQ(r[1].device, 1);
  EXPECT_EQ(r[1].start, seconds(34.05));
  EXPECT_EQ(r[2].device, 0);
  EXPECT_EQ(r[2].start, seconds(34.1));
}

// Replica churn: 50 cycles of 60 s on one GPU. Cycle k (t0 = 60k s) starts one replica at t0
// (ready by t0 + 24 s), sends it one request at t0 + 30 s (served at once, 4 s) and stops it,
// idle, at t0 + 40 s. The control loop ticks every second, so by t0 + 39 s the queues of the
// earlier replicas have been freed and only this one's is held; by t0 + 50 s none is.
TEST(InstanceDispatch, ReplicaChurnKeepsTheQueuesBounded) {
  constexpr int kCycles = 50;
  ServerlessConfig c = testing::config(testing::host(1));
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  c.dispatch_scope = DispatchScope::kInstance;
  Harness h(std::move(c), testing::manual_policies());
  std::vector<std::size_t> live;   // at t0 + 39 s
  std::vector<std::size_t> ended;  // at t0 + 50 s
  for (int k = 0; k < kCycles; ++k) {
    const double t0 = 60.0 * k;
    h.sim.schedule_at(seconds(t0), [&h] {
      policy::Decisions d;
      d.start.push_back({0, 1, std::nullopt, std::nullopt});
      h.platform->apply(d);
    });
    h.arrive(seconds(t0 + 30), 0);
    h.sim.schedule_at(seconds(t0 + 39),
                      [&h, &live] { live.push_back(h.platform->instance_queues()); });
    h.sim.schedule_at(seconds(t0 + 40), [&h] {
      policy::Decisions d;
      d.stop.push_back({h.platform->view().instances.at(0).id});
      h.platform->apply(d);
    });
    h.sim.schedule_at(seconds(t0 + 50),
                      [&h, &ended] { ended.push_back(h.platform->instance_queues()); });
  }
  h.sim.run_until(seconds(60.0 * kCycles));
  ASSERT_EQ(h.records.size(), static_cast<std::size_t>(kCycles));
  for (const auto& r : h.records)
    EXPECT_EQ(r.start, r.arrival) << r.id;  // each served at once by its cycle's replica
  EXPECT_EQ(h.platform->live_instances(), 0u);
  ASSERT_EQ(live.size(), static_cast<std::size_t>(kCycles));
  ASSERT_EQ(ended.size(), static_cast<std::size_t>(kCycles));
  for (int k = 0; k < kCycles; ++k) {
    EXPECT_EQ(live[static_cast<std::size_t>(k)], 1u) << k;
    EXPECT_EQ(ended[static_cast<std::size_t>(k)], 0u) << k;
  }
}

// A request waiting in a stopping replica's queue outlives the queue: A (one GPU) is ready by
// 24 s; requests at 30.0 s (A runs it 30-34 s) and 30.1 s (waits for A). A is stopped at 31 s:
// it drains, and the waiting request goes back to the gateway, which holds it (no ready
// replica). A ends at 34 s and its queue is freed at a tick; B, started at 40 s, takes the
// held request when it is ready.
TEST(InstanceDispatch, ARequestQueuedAtAStoppingReplicaIsServed) {
  ServerlessConfig c = testing::config(testing::host(1));
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  c.dispatch_scope = DispatchScope::kInstance;
  Harness h(std::move(c), testing::manual_policies());
  const auto start_one = [&h] {
    policy::Decisions d;
    d.start.push_back({0, 1, std::nullopt, std::nullopt});
    h.platform->apply(d);
  };
  h.sim.schedule_at(Time::zero(), start_one);
  h.arrive(seconds(30.0), 0);
  h.arrive(seconds(30.1), 0);
  std::size_t queues_at_30_5 = 0;
  h.sim.schedule_at(seconds(30.5),
                    [&h, &queues_at_30_5] { queues_at_30_5 = h.platform->instance_queues(); });
  h.sim.schedule_at(seconds(31), [&h] {
    policy::Decisions d;
    d.stop.push_back({h.platform->view().instances.at(0).id});
    h.platform->apply(d);
  });
  std::size_t queues_at_36 = 0;
  std::uint64_t in_system_at_36 = 0;
  h.sim.schedule_at(seconds(36), [&h, &queues_at_36, &in_system_at_36] {
    queues_at_36 = h.platform->instance_queues();
    in_system_at_36 = h.platform->requests_in_system();
  });
  h.sim.schedule_at(seconds(40), start_one);
  h.sim.run_until(seconds(120));
  EXPECT_EQ(queues_at_30_5, 1u);   // A's, holding the request of 30.1 s
  EXPECT_EQ(queues_at_36, 0u);     // A ended at 34 s; its queue was freed
  EXPECT_EQ(in_system_at_36, 1u);  // the request of 30.1 s, held at the gateway
  ASSERT_EQ(h.records.size(), 2u);
  EXPECT_EQ(h.platform->requests_in_system(), 0u);
  auto r = h.records;
  std::sort(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  EXPECT_EQ(r[0].finish, seconds(34));
  const auto& cs = h.platform->cold_starts();
  ASSERT_EQ(cs.size(), 2u);
  const Time b_ready = cs[1].started + cs[1].download + cs[1].runtime + cs[1].load + cs[1].copy;
  ASSERT_GT(b_ready, seconds(40));
  EXPECT_EQ(r[1].start, b_ready);
  EXPECT_EQ(r[1].finish, b_ready + seconds(4));
  EXPECT_EQ(h.platform->instance_queues(), 1u);  // B's
}

// A replica's queue with a pending batcher wake-up is kept until the wake has fired: batches
// of 2 with a 20 s timeout. A is ready by 24 s; the request of 30 s waits in A's queue for a
// second one, with a wake-up at 50 s. A, idle, is stopped at 35 s: it ends at once and the
// request goes back to the gateway, but A's queue stays while its wake-up is pending (40 s),
// is pumped empty at 50 s and freed at a later tick (55 s). B, started at 60 s, takes the
// request when it is ready (its timeout has passed).
TEST(InstanceDispatch, AQueueWithAPendingWakeIsFreedAfterIt) {
  ServerlessConfig c = testing::config(testing::host(1));
  FunctionSpec f = testing::function("f", "test/fig42", 2);
  f.batch_timeout = seconds(20);
  c.functions.push_back(f);
  c.dispatch_scope = DispatchScope::kInstance;
  Harness h(std::move(c), testing::manual_policies());
  const auto start_one = [&h] {
    policy::Decisions d;
    d.start.push_back({0, 1, std::nullopt, std::nullopt});
    h.platform->apply(d);
  };
  h.sim.schedule_at(Time::zero(), start_one);
  h.arrive(seconds(30), 0);
  h.sim.schedule_at(seconds(35), [&h] {
    policy::Decisions d;
    d.stop.push_back({h.platform->view().instances.at(0).id});
    h.platform->apply(d);
  });
  std::size_t at_40 = 9;
  std::size_t at_55 = 9;
  h.sim.schedule_at(seconds(40), [&h, &at_40] { at_40 = h.platform->instance_queues(); });
  h.sim.schedule_at(seconds(55), [&h, &at_55] { at_55 = h.platform->instance_queues(); });
  h.sim.schedule_at(seconds(60), start_one);
  h.sim.run_until(seconds(150));
  EXPECT_EQ(at_40, 1u);
  EXPECT_EQ(at_55, 0u);
  ASSERT_EQ(h.records.size(), 1u);
  const auto& cs = h.platform->cold_starts();
  ASSERT_EQ(cs.size(), 2u);
  const Time b_ready = cs[1].started + cs[1].download + cs[1].runtime + cs[1].load + cs[1].copy;
  ASSERT_GT(b_ready, seconds(60));
  EXPECT_EQ(h.records[0].start, b_ready);
}

}  // namespace
}  // namespace sim::platform
