// Per-node dispatch (ServerlessConfig::dispatch_scope = kNode): a gateway routes each arrival
// to a node hosting an instance, and the request waits for that node's instances.

#include <gtest/gtest.h>

#include "harness.hpp"

namespace sim::platform {
namespace {

using testing::Harness;
namespace ref = policy::reference;

// Host 0 with two GPUs (devices 0 and 1), host 1 with one (device 2); a fixed pool of three
// exclusive instances, first fit: one per GPU, all ready at 24 s. test/fig42 runs a request
// in 4 s. Four requests at 25.0, 25.1, 25.2 and 25.3 s.
ServerlessConfig three_gpus_on_two_nodes(DispatchScope scope, GatewayRoute route) {
  ServerlessConfig c = testing::config(testing::host(2));
  c.hosts.push_back(testing::host(1));
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  c.dispatch_scope = scope;
  c.gateway = route;
  return c;
}

std::vector<metrics::RequestRecord> run(ServerlessConfig c) {
  auto p = testing::reference_policies();
  p.autoscaler = std::make_unique<ref::FixedPoolAutoscaler>(3);
  Harness h(std::move(c), std::move(p));
  for (int i = 0; i < 4; ++i)
    h.arrive(seconds(25.0 + 0.1 * i), 0);
  h.sim.run_until(seconds(60));
  EXPECT_EQ(h.platform->requests_in_system(), 0u);
  auto records = h.records;
  std::sort(records.begin(), records.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  return records;
}

TEST(NodeDispatch, ClusterQueueServesTheFirstIdleInstance) {
  const auto r = run(three_gpus_on_two_nodes(DispatchScope::kCluster, GatewayRoute::kRoundRobin));
  ASSERT_EQ(r.size(), 4u);
  // Three requests start at once on the three instances; the fourth waits for the first to
  // finish (device 0 at 29 s) and ends at 33 s.
  EXPECT_EQ(r[3].start, seconds(29));
  EXPECT_EQ(r[3].finish, seconds(33));
  EXPECT_EQ(r[3].device, 0);
}

TEST(NodeDispatch, RoundRobinHoldsARequestAtItsBusyNode) {
  const auto r = run(three_gpus_on_two_nodes(DispatchScope::kNode, GatewayRoute::kRoundRobin));
  ASSERT_EQ(r.size(), 4u);
  // Round robin over the nodes {0, 1}: r0 -> node 0 (device 0), r1 -> node 1 (device 2),
  // r2 -> node 0 (device 1), r3 -> node 1, where device 2 is busy until 29.1 s: it waits there
  // although device 0 frees at 29 s.
  EXPECT_EQ(r[1].device, 2);
  EXPECT_EQ(r[2].device, 1);
  EXPECT_EQ(r[3].device, 2);
  EXPECT_EQ(r[3].start, seconds(29.1));
  EXPECT_EQ(r[3].finish, seconds(33.1));
  EXPECT_EQ(r[3].queue_wait, seconds(29.1) - seconds(25.3));
}

TEST(NodeDispatch, TheViewListsEachNodesQueue) {
  // As RoundRobinHoldsARequestAtItsBusyNode: at 25.35 s r0, r1 and r2 run on devices 0, 2 and
  // 1, and r3 waits at node 1 (host 1): the view lists one request queued there, none in the
  // cluster queue. Under cluster dispatch the same request waits in the cluster queue: no node
  // queue is listed.
  for (const auto scope : {DispatchScope::kNode, DispatchScope::kCluster}) {
    auto p = testing::reference_policies();
    p.autoscaler = std::make_unique<ref::FixedPoolAutoscaler>(3);
    Harness h(three_gpus_on_two_nodes(scope, GatewayRoute::kRoundRobin), std::move(p));
    for (int i = 0; i < 4; ++i)
      h.arrive(seconds(25.0 + 0.1 * i), 0);
    h.sim.run_until(seconds(25.35));
    const auto v = h.platform->view();
    ASSERT_EQ(v.functions.size(), 1u);
    EXPECT_EQ(v.functions[0].queue_length, 1u);
    if (scope == DispatchScope::kNode) {
      ASSERT_EQ(v.functions[0].node_queues.size(), 1u);
      EXPECT_EQ(v.functions[0].node_queues[0].first, 1);
      EXPECT_EQ(v.functions[0].node_queues[0].second, 1u);
    } else {
      EXPECT_TRUE(v.functions[0].node_queues.empty());
    }
  }
}

TEST(NodeDispatch, SharedBacklogGoesToAnIdleInstanceOfAnotherNode) {
  // As RoundRobinHoldsARequestAtItsBusyNode, with node_backlog share: r3 waits at node 1
  // (device 2 busy until 29.1 s); at 29 s device 0's instance becomes idle with nothing
  // queued at node 0 and takes r3 from node 1 (no idle instance there): start 29 s, finish
  // 33 s on device 0, queue wait 29 - 25.3 s. The others are as without sharing.
  auto c = three_gpus_on_two_nodes(DispatchScope::kNode, GatewayRoute::kRoundRobin);
  c.node_backlog = NodeBacklog::kShare;
  const auto r = run(std::move(c));
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[1].device, 2);
  EXPECT_EQ(r[2].device, 1);
  EXPECT_EQ(r[3].device, 0);
  EXPECT_EQ(r[3].start, seconds(29));
  EXPECT_EQ(r[3].finish, seconds(33));
  EXPECT_EQ(r[3].queue_wait, seconds(29) - seconds(25.3));
}

TEST(NodeDispatch, LeastLoadedWeighsRunningBatchesPerExecutionUnit) {
  const auto r = run(three_gpus_on_two_nodes(DispatchScope::kNode, GatewayRoute::kLeastLoaded));
  ASSERT_EQ(r.size(), 4u);
  // Load = (queued + running) / execution units; node 0 has two GPUs with one instance each.
  // r0: 0 vs 0 -> node 0. r1: 1/2 vs 0 -> node 1. r2: 1/2 vs 1/1 -> node 0. r3: 2/2 vs 1/1 ->
  // tie, the lower node 0, whose device 0 frees first (29 s).
  EXPECT_EQ(r[0].device, 0);
  EXPECT_EQ(r[1].device, 2);
  EXPECT_EQ(r[2].device, 1);
  EXPECT_EQ(r[3].device, 0);
  EXPECT_EQ(r[3].finish, seconds(33));
}

// Two containers sharing one GPU are one execution unit, not two: under the sound GPU model
// co-running batches share its compute (each at about 1/n speed), so the gateway may not
// count the second container as capacity. Host 0 has one MPS GPU (device 0) with two
// instances, host 1 one MPS GPU (device 1) with one; test/mps4 runs a request in 4 s solo,
// all ready long before 100 s. Requests at 100.0, 100.1, 100.2 and 100.3 s; load = (queued +
// running batches) / units:
//   r0: 0/1 vs 0/1 -> tie, node 0.  r1: 1/1 vs 0/1 -> node 1.  r2: 1/1 vs 1/1 -> tie, node 0
//   (its second container co-runs with r0).  r3: 2/1 vs 1/1 -> node 1, where it waits for r1
//   (done at 104.1 s) and runs alone: 104.1 -> 108.1 s.
// Dividing by instances instead (the defect) gives r3: 2/2 vs 1/1 -> tie, node 0 (device 0).
TEST(NodeDispatch, LeastLoadedCountsContainersSharingAGpuAsOneUnit) {
  auto t = testing::host(1);
  t.spec.gpus[0].sharing = cluster::GpuSharing::kMps;
  t.count = 2;
  ServerlessConfig c = testing::config(t);
  c.functions.push_back(testing::function("f", "test/mps4", 1));
  c.dispatch_scope = DispatchScope::kNode;
  c.gateway = GatewayRoute::kLeastLoaded;
  Harness h(std::move(c), testing::manual_policies());
  policy::Decisions d;
  for (const policy::Location at :
       {policy::Location{0, 0, -1}, policy::Location{0, 0, -1}, policy::Location{1, 0, -1}})
    d.start.push_back({0, 1, std::nullopt, at});
  h.platform->apply(d);
  ASSERT_EQ(h.platform->view().instances.size(), 3u);
  for (int i = 0; i < 4; ++i)
    h.arrive(seconds(100.0 + 0.1 * i), 0);
  h.sim.run_until(seconds(200));
  ASSERT_EQ(h.records.size(), 4u);
  auto r = h.records;
  std::sort(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  EXPECT_EQ(r[0].device, 0);
  EXPECT_EQ(r[1].device, 1);
  EXPECT_EQ(r[2].device, 0);
  EXPECT_EQ(r[2].start, seconds(100.2));  // co-runs on the second container
  EXPECT_EQ(r[1].finish, seconds(104.1));
  EXPECT_EQ(r[3].device, 1);
  EXPECT_EQ(r[3].start, seconds(104.1));
  EXPECT_EQ(r[3].finish, seconds(108.1));
}

// An instance that owns its execution unit (here a CPU instance on its own cores) is a unit of
// its own: host 0 runs two CPU instances, host 1 one (all ready long before 30 s; a request
// runs for hundreds of milliseconds, so all four below are in the system at 30.0035 s). Load =
// (queued + running batches) / units:
//   r0: 0/2 vs 0/1 -> tie, host 0.  r1: 1/2 vs 0/1 -> host 1.  r2: 1/2 vs 1/1 -> host 0 (its
//   second instance).  r3: 2/2 vs 1/1 -> tie, host 0, where it waits.
// Were the two CPU instances merged into one unit (both have gpu = slice = -1), r3 would see
// 2/1 vs 1/1 and wait at host 1.
TEST(NodeDispatch, LeastLoadedCountsEachCpuInstanceAsAUnit) {
  ServerlessConfig c = default_serverless_config();
  c.hosts.push_back(testing::host(0, "A100-40GB", 2));
  c.store_bps = 1e9;
  auto f = testing::function("c", "harmonybatch/bert", 1);
  f.gpu = false;
  f.config.cpu_cores = 2.0;
  f.model_bytes = 4e8;
  c.functions.push_back(f);
  c.dispatch_scope = DispatchScope::kNode;
  c.gateway = GatewayRoute::kLeastLoaded;
  Harness h(std::move(c), testing::manual_policies());
  policy::Decisions d;
  for (const int host : {0, 0, 1})
    d.start.push_back({0, 1, std::nullopt, policy::Location{host, -1, -1}});
  h.platform->apply(d);
  for (int i = 0; i < 4; ++i)
    h.arrive(seconds(30.0 + 0.001 * i), 0);
  h.sim.run_until(seconds(30.0035));
  const auto v = h.platform->view();
  ASSERT_EQ(v.instances.size(), 3u);
  ASSERT_EQ(v.functions[0].node_queues.size(), 1u);
  EXPECT_EQ(v.functions[0].node_queues[0].first, 0);
  EXPECT_EQ(v.functions[0].node_queues[0].second, 1u);
  h.sim.run_until(seconds(60));
  EXPECT_EQ(h.records.size(), 4u);
}

// A node that loses its last instance while requests wait there sends them back through the
// gateway: host 0 (one GPU) gets a revocation notice at 26 s; its busy instance drains and
// r2, queued there, goes to host 1 and runs when device 1 frees (29.1 s). Nothing is lost.
TEST(NodeDispatch, RequestsOfANodeWithoutInstancesAreRerouted) {
  ServerlessConfig c = default_serverless_config();
  auto t = testing::host(1, "A100-40GB", 2);
  t.spec.market = cluster::Market::kSpot;
  t.spec.price_per_hour = 1.0;
  c.hosts.push_back(t);
  c.store_bps = 1e9;
  c.pcie_bps = 2e9;
  c.spot.notice_min = c.spot.notice_max = seconds(30);
  c.spot.scheduled.push_back({0, seconds(56)});
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  c.dispatch_scope = DispatchScope::kNode;
  auto p = testing::reference_policies();
  p.autoscaler = std::make_unique<ref::FixedPoolAutoscaler>(2);
  Harness h(std::move(c), std::move(p));
  h.arrive(seconds(25.0), 0);
  h.arrive(seconds(25.1), 0);
  h.arrive(seconds(25.2), 0);
  h.sim.run_until(seconds(120));
  ASSERT_EQ(h.records.size(), 3u);
  EXPECT_EQ(h.platform->requests_in_system(), 0u);
  auto r = h.records;
  std::sort(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  EXPECT_EQ(r[0].device, 0);
  EXPECT_EQ(r[0].finish, seconds(29));  // drains its batch after the notice
  EXPECT_EQ(r[2].device, 1);
  EXPECT_EQ(r[2].start, seconds(29.1));
  for (const auto& x : r)
    EXPECT_NE(x.outcome, metrics::Outcome::kDropped);
}

}  // namespace
}  // namespace sim::platform
