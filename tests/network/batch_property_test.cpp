// Bursts of simultaneous starts (cold-start downloads of one model to 1-8 hosts) solved as one
// update: the allocation after every batch and every finish must be the max-min one (checked
// against the naive reference solver), each batch of starts must cost one recomputation, and
// `dcsim flows` (which batches equal start times) must give the finish times of starting the
// same flows one by one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "network/maxmin_reference.hpp"
#include "sim/network/flow_network.hpp"
#include "sim/network/flows_tool.hpp"

namespace sim::net {
namespace {

using testing::check_allocation;

// 2 spines, 3 leaves of 4 hosts (100 Gbit/s leaf-spine, 50 Gbit/s host links) and a store with
// a 2.2 Gbit/s egress on the first spine: store downloads are held by the egress, so their
// arrival changes only part of the fabric (the level cut matters).
Topology fabric(std::vector<NodeId>& hosts, NodeId& store) {
  Topology t;
  std::vector<NodeId> spines;
  for (int i = 0; i < 2; ++i)
    spines.push_back(t.add_node("s" + std::to_string(i), NodeKind::kSpine));
  for (int j = 0; j < 3; ++j) {
    const NodeId leaf = t.add_node("l" + std::to_string(j), NodeKind::kLeaf);
    for (const NodeId s : spines)
      t.add_link(leaf, s, 100e9);
    for (int h = 0; h < 4; ++h) {
      hosts.push_back(t.add_node("h" + std::to_string(4 * j + h), NodeKind::kHost));
      t.add_link(hosts.back(), leaf, 50e9);
    }
  }
  store = t.add_node("store", NodeKind::kStore);
  t.add_link(store, spines[0], 2.2e9);
  return t;
}

class BurstProperty : public ::testing::TestWithParam<int> {};

TEST_P(BurstProperty, EveryBatchAndFinishIsMaxMin) {
  Simulation sim(static_cast<std::uint64_t>(GetParam()));
  RandomStream rng = sim.rng("test", "bursts");
  std::vector<NodeId> hosts;
  NodeId store = 0;
  const Topology t = fabric(hosts, store);
  FlowNetwork net(sim, t);
  int events = 0;
  int bursts = 0;
  const auto n = static_cast<std::int64_t>(hosts.size());
  std::function<void()> burst = [&] {
    const bool from_store = rng.bernoulli(0.3);
    const NodeId src =
        from_store ? store : hosts[static_cast<std::size_t>(rng.uniform_int(0, n - 1))];
    const auto k = static_cast<int>(rng.uniform_int(1, 8));
    const double bytes = 1e8 * static_cast<double>(rng.uniform_int(1, 30));
    const auto before = net.stats().recomputations;
    {
      const FlowNetwork::BatchUpdate batch(net);
      for (int i = 0; i < k; ++i) {
        NodeId dst = hosts[static_cast<std::size_t>(rng.uniform_int(0, n - 1))];
        while (dst == src)
          dst = hosts[static_cast<std::size_t>(rng.uniform_int(0, n - 1))];
        FlowOptions o;
        if (rng.bernoulli(0.7)) o.rate_cap_bps = 7506e6;
        net.start(
            src, dst, bytes,
            [&] { check_allocation(t, net, "finish " + std::to_string(++events)); }, o);
      }
    }
    EXPECT_EQ(net.stats().recomputations, before + 1);  // one update per burst
    check_allocation(t, net, "burst " + std::to_string(bursts));
    if (++bursts < 150) sim.schedule_in(seconds(rng.exponential(40.0)), burst);
  };
  sim.schedule_at(Time::zero(), burst);
  sim.run();
  EXPECT_EQ(net.active_flows(), 0u);
  EXPECT_GT(events, 150);
  for (ChannelId c = 0; c < t.channel_count(); ++c)
    EXPECT_EQ(net.channel_load_bps(c), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Seeds, BurstProperty, ::testing::Range(1, 21));

TEST(BurstProperty, FlowsToolMatchesOneByOne) {
  // simulate_flows starts each group of equal start times in one BatchUpdate; here the same
  // flows are also started one by one, each in its own event. Finish times must agree within
  // 1 us + 1e-9 of the duration (rounding in the rates may move a finish by a nanosecond).
  std::vector<NodeId> hosts;
  NodeId store = 0;
  const Topology t = fabric(hosts, store);
  RandomStream rng(5);
  std::vector<FlowSpec> flows;
  std::int64_t ns = 0;
  for (int b = 0; b < 120; ++b) {
    ns += static_cast<std::int64_t>(rng.exponential(30.0) * 1e9);
    const NodeId src = b % 4 == 0 ? store : hosts[rng.uniform_int(0, hosts.size() - 1)];
    const auto k = rng.uniform_int(1, 8);
    for (std::uint64_t i = 0; i < k; ++i) {
      FlowSpec f;
      f.id = flows.size() + 1;
      f.src = src;
      f.dst = hosts[rng.uniform_int(0, hosts.size() - 1)];
      while (f.dst == src)
        f.dst = hosts[rng.uniform_int(0, hosts.size() - 1)];
      f.bytes = 1e8 * static_cast<double>(rng.uniform_int(1, 40));
      f.start = Time::from_ns(ns);
      flows.push_back(f);
    }
  }
  // Input order is not start order: the tool must sort (stably) by start.
  std::reverse(flows.begin(), flows.end());
  const std::vector<FlowResult> batched = simulate_flows(t, flows);

  Simulation sim;
  FlowNetwork net(sim, t);
  std::vector<Time> finish(flows.size());
  for (std::size_t i = 0; i < flows.size(); ++i) {
    sim.schedule_at(flows[i].start, [&, i] {
      FlowOptions o;
      o.route_key = flows[i].id;
      net.start(
          flows[i].src, flows[i].dst, flows[i].bytes, [&, i] { finish[i] = sim.now(); }, o);
    });
  }
  sim.run();
  EXPECT_EQ(net.stats().recomputations, flows.size() + net.stats().flows_finished);
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const double duration = (finish[i] - flows[i].start).to_seconds();
    EXPECT_GT(duration, 0.0);
    EXPECT_NEAR(batched[i].finish.to_seconds(), finish[i].to_seconds(), 1e-6 + 1e-9 * duration)
        << "flow " << flows[i].id;
  }
}

}  // namespace
}  // namespace sim::net
