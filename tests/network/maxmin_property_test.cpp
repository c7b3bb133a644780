// Property tests on random topologies and flow sets: after every start, finish and cancel the
// incremental allocation must (1) keep every channel's load within its capacity and (2) give
// every flow a bottleneck: its own cap, or a saturated channel on which no flow has a higher
// rate (the max-min optimality condition), both to 1e-9 relative; and (3) equal the rates of a
// naive from-scratch progressive filling written independently (network/maxmin_reference.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>

#include "network/maxmin_reference.hpp"
#include "sim/network/flow_network.hpp"

namespace sim::net {
namespace {

using testing::check_allocation;

Topology random_topology(RandomStream& rng) {
  Topology t;
  const int n = static_cast<int>(rng.uniform_int(3, 12));
  for (int i = 0; i < n; ++i)
    t.add_node("n" + std::to_string(i));
  // A random spanning tree keeps it connected; extra links make cycles and equal-cost paths.
  for (int i = 1; i < n; ++i) {
    const auto j = static_cast<NodeId>(rng.uniform_int(0, i - 1));
    t.add_link(static_cast<NodeId>(i), j, 1e9 * static_cast<double>(rng.uniform_int(1, 40)));
  }
  const int extra = static_cast<int>(rng.uniform_int(0, n));
  for (int k = 0; k < extra; ++k) {
    const auto a = static_cast<NodeId>(rng.uniform_int(0, n - 1));
    const auto b = static_cast<NodeId>(rng.uniform_int(0, n - 1));
    if (a != b) t.add_link(a, b, 1e9 * static_cast<double>(rng.uniform_int(1, 40)));
  }
  return t;
}

class MaxMinProperty : public ::testing::TestWithParam<int> {};

TEST_P(MaxMinProperty, RandomTopologiesAndFlowSets) {
  Simulation sim(static_cast<std::uint64_t>(GetParam()));
  RandomStream rng = sim.rng("test", "topology");
  const Topology t = random_topology(rng);
  FlowNetwork net(sim, t);
  const auto n = static_cast<std::int64_t>(t.node_count());
  std::vector<FlowHandle> live;
  int steps = 0;
  // Random arrivals (some capped, some chains) and cancellations; completions happen as the
  // simulation runs. The allocation is checked after every event.
  for (int k = 0; k < 60; ++k) {
    sim.schedule_at(seconds(0.01 * k), [&, k] {
      const auto src = static_cast<NodeId>(rng.uniform_int(0, n - 1));
      auto dst = static_cast<NodeId>(rng.uniform_int(0, n - 1));
      if (dst == src) dst = static_cast<NodeId>((dst + 1) % n);
      const double bytes = 1e6 * static_cast<double>(rng.uniform_int(1, 2000));
      FlowOptions o;
      if (rng.bernoulli(0.3)) o.rate_cap_bps = 1e9 * static_cast<double>(rng.uniform_int(1, 20));
      if (rng.bernoulli(0.15)) {
        auto r2 = static_cast<NodeId>(rng.uniform_int(0, n - 1));
        if (r2 == dst) r2 = static_cast<NodeId>((r2 + 1) % n);
        live.push_back(net.start_chain(src, {dst, r2}, bytes, nullptr, o));
      } else {
        live.push_back(net.start(
            src, dst, bytes,
            [&] { check_allocation(t, net, "after finish " + std::to_string(++steps)); }, o));
      }
      check_allocation(t, net, "after start " + std::to_string(k));
      if (rng.bernoulli(0.2) && !live.empty()) {
        const auto victim = static_cast<std::size_t>(
            rng.uniform_int(0, static_cast<std::int64_t>(live.size()) - 1));
        net.cancel(live[victim]);
        check_allocation(t, net, "after cancel " + std::to_string(k));
      }
    });
  }
  sim.run();
  EXPECT_EQ(net.active_flows(), 0u);
  for (ChannelId c = 0; c < t.channel_count(); ++c)
    EXPECT_EQ(net.channel_load_bps(c), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Seeds, MaxMinProperty, ::testing::Range(1, 41));

// A small spine-leaf fabric: 3 spines, 4 leaves of 4 hosts, 100 Gbit/s leaf-spine and
// 50 Gbit/s host links; hosts[i] is host i.
Topology small_spine_leaf(std::vector<NodeId>& hosts) {
  Topology t;
  std::vector<NodeId> spines, leaves;
  for (int i = 0; i < 3; ++i)
    spines.push_back(t.add_node("s" + std::to_string(i), NodeKind::kSpine));
  for (int j = 0; j < 4; ++j) {
    leaves.push_back(t.add_node("l" + std::to_string(j), NodeKind::kLeaf));
    for (const NodeId s : spines)
      t.add_link(leaves.back(), s, 100e9);
  }
  for (int h = 0; h < 16; ++h) {
    hosts.push_back(t.add_node("h" + std::to_string(h), NodeKind::kHost));
    t.add_link(hosts.back(), leaves[static_cast<std::size_t>(h / 4)], 50e9);
  }
  return t;
}

TEST(MaxMinProperty, SaturatedSpineLeafEveryEvent) {
  // Poisson arrivals near saturation (100/s of 1.05 GB on average offer 840 Gbit/s to 800 Gbit/s
  // of host links; 80% host-capped at 7,506 Mbit/s as in the Flashpoint preset; some chains):
  // the allocation is checked after every start and every finish, which exercises the pruned
  // search and its repeated passes.
  Simulation sim(11);
  RandomStream rng = sim.rng("test", "flows");
  std::vector<NodeId> hosts;
  const Topology t = small_spine_leaf(hosts);
  FlowNetwork net(sim, t);
  int events = 0;
  std::function<void()> arrive = [&] {
    const auto a = static_cast<std::size_t>(rng.uniform_int(0, 15));
    auto b = static_cast<std::size_t>(rng.uniform_int(0, 15));
    if (a == b) b = (b + 1) % 16;
    FlowOptions o;
    if (rng.bernoulli(0.8)) o.rate_cap_bps = 7506e6;
    const double bytes = 1e8 * static_cast<double>(rng.uniform_int(1, 20));
    auto check = [&] { check_allocation(t, net, "finish " + std::to_string(++events)); };
    if (rng.bernoulli(0.1)) {
      auto c = static_cast<std::size_t>(rng.uniform_int(0, 15));
      if (c == b) c = (c + 1) % 16;
      net.start_chain(
          hosts[a], {hosts[b], hosts[c]}, bytes,
          [check](std::size_t i) {
            if (i == 1) check();
          },
          o);
    } else {
      net.start(hosts[a], hosts[b], bytes, check, o);
    }
    check_allocation(t, net, "start " + std::to_string(++events));
    if (events < 600) sim.schedule_in(seconds(rng.exponential(100.0)), arrive);
  };
  sim.schedule_at(Time::zero(), arrive);
  sim.run();
  EXPECT_EQ(net.active_flows(), 0u);
  EXPECT_GT(net.stats().rate_changes, net.stats().flows_started);  // flows were re-rated
  EXPECT_GT(net.stats().extra_rounds, 0u);    // some pruned boundaries failed and were expanded
  EXPECT_GT(net.stats().lowered_levels, 0u);  // some finishes' local levels did not hold
}

TEST(MaxMinProperty, LocalLevelsEveryDeparture) {
  // A departure re-solves, from each saturated channel, only the flows at its highest rate, and
  // verifies that no channel stopped flows below a rate held on it (else that channel takes every
  // flow above the level cut, or pruning is dropped). 250 flows (half host-capped, some chains)
  // on a saturated fabric are cancelled one by one in random order, the allocation checked
  // against the reference solver after each.
  Simulation sim(13);
  RandomStream rng = sim.rng("test", "flows");
  std::vector<NodeId> hosts;
  const Topology t = small_spine_leaf(hosts);
  FlowNetwork net(sim, t);
  std::vector<FlowHandle> live;
  for (int k = 0; k < 250; ++k) {
    const auto a = static_cast<std::size_t>(rng.uniform_int(0, 15));
    auto b = static_cast<std::size_t>(rng.uniform_int(0, 15));
    if (a == b) b = (b + 1) % 16;
    FlowOptions o;
    if (rng.bernoulli(0.5)) o.rate_cap_bps = 7506e6 * static_cast<double>(rng.uniform_int(1, 3));
    if (rng.bernoulli(0.1)) {
      auto c = static_cast<std::size_t>(rng.uniform_int(0, 15));
      if (c == b) c = (c + 1) % 16;
      live.push_back(net.start_chain(hosts[a], {hosts[b], hosts[c]}, 1e12, nullptr, o));
    } else {
      live.push_back(net.start(hosts[a], hosts[b], 1e12, nullptr, o));
    }
  }
  check_allocation(t, net, "all started");
  while (!live.empty()) {
    const auto i = static_cast<std::size_t>(rng.uniform_int(0, live.size() - 1));
    ASSERT_TRUE(net.cancel(live[i]));
    live[i] = live.back();
    live.pop_back();
    check_allocation(t, net, "cancel, " + std::to_string(live.size()) + " left");
  }
  EXPECT_GT(net.stats().lowered_levels, 0u);
}

TEST(MaxMinProperty, LocalLevelsEveryArrival) {
  // The same for starts, one by one (250) and in bursts of 1 to 8 from one host in one
  // BatchUpdate (60): a level falls where flows arrive, so held flows above it are common.
  for (const bool bursts : {false, true}) {
    Simulation sim(17);
    RandomStream rng = sim.rng("test", "flows");
    std::vector<NodeId> hosts;
    const Topology t = small_spine_leaf(hosts);
    FlowNetwork net(sim, t);
    auto start_from = [&](std::size_t a) {
      auto b = static_cast<std::size_t>(rng.uniform_int(0, 15));
      if (a == b) b = (b + 1) % 16;
      FlowOptions o;
      if (rng.bernoulli(0.5)) o.rate_cap_bps = 7506e6 * static_cast<double>(rng.uniform_int(1, 3));
      net.start(hosts[a], hosts[b], 1e12, nullptr, o);
    };
    for (int k = 0; k < (bursts ? 60 : 250); ++k) {
      const auto a = static_cast<std::size_t>(rng.uniform_int(0, 15));
      if (bursts) {
        FlowNetwork::BatchUpdate batch(net);
        for (auto j = rng.uniform_int(1, 8); j > 0; --j)
          start_from(a);
      } else {
        start_from(a);
      }
      check_allocation(t, net, std::string(bursts ? "burst " : "start ") + std::to_string(k));
    }
    EXPECT_GT(net.stats().lowered_levels, 0u) << (bursts ? "bursts" : "one by one");
  }
}

TEST(MaxMinProperty, UnsaturatedChannelHeldLoadStaysExact) {
  // Two long flows leave h0 for h4 and h8, whose downlinks are shared with two long background
  // flows each and with a stream of short flows: every start and finish there re-rates the long
  // flows, while h0's uplink (at most 2 x 50/3 Gbit/s on 50) stays unsaturated with the same two
  // flows. That uplink is a boundary channel whose held load is derived from its load (no flow
  // joins or leaves it) many times in a row, past the forced exact sum every 64 updates. After
  // every event the allocation must be max-min (reference solver) and the uplink's load the sum
  // of its two rates to 1e-12 of the capacity (the drift bound of flow_constants.hpp is 1e-11).
  Simulation sim(5);
  RandomStream rng = sim.rng("test", "flows");
  std::vector<NodeId> hosts;
  const Topology t = small_spine_leaf(hosts);
  FlowNetwork net(sim, t);
  const FlowHandle a = net.start(hosts[0], hosts[4], 1e15, nullptr);
  const FlowHandle b = net.start(hosts[0], hosts[8], 1e15, nullptr);
  const ChannelId uplink = net.route(a).channels.front();
  ASSERT_EQ(uplink, net.route(b).channels.front());
  std::vector<FlowHandle> background;
  for (const std::size_t src : {5, 6})
    background.push_back(net.start(hosts[src], hosts[4], 1e15, nullptr));
  for (const std::size_t src : {9, 10})
    background.push_back(net.start(hosts[src], hosts[8], 1e15, nullptr));
  int events = 0;
  int rerated = 0;
  double last_a = net.rate_bps(a);
  auto check = [&](const std::string& where) {
    check_allocation(t, net, where);
    ASSERT_NEAR(net.channel_load_bps(uplink), net.rate_bps(a) + net.rate_bps(b), 50e9 * 1e-12)
        << where;
    if (net.rate_bps(a) != last_a) ++rerated;
    last_a = net.rate_bps(a);
  };
  std::function<void()> arrive = [&] {
    // From a host other than h0 (so that the uplink keeps its two flows) to h4 or h8.
    const auto src = static_cast<std::size_t>(rng.uniform_int(1, 15));
    const std::size_t dst = rng.bernoulli(0.5) ? 4 : 8;
    if (src != dst) {
      const double bytes = 1e8 * static_cast<double>(rng.uniform_int(1, 20));
      net.start(hosts[src], hosts[dst], bytes,
                [&] { check("finish " + std::to_string(++events)); });
      check("start " + std::to_string(++events));
    }
    if (events < 800) sim.schedule_in(seconds(rng.exponential(50.0)), arrive);
  };
  sim.schedule_at(Time::zero(), arrive);
  sim.schedule_at(seconds(60.0), [&] {
    for (const FlowHandle h : background)
      net.cancel(h);
    net.cancel(a);
    net.cancel(b);
  });
  sim.run();
  EXPECT_EQ(net.active_flows(), 0u);
  EXPECT_GT(rerated, 3 * 64);  // the uplink's held load was derived many times in a row
}

TEST(MaxMinProperty, BatchMatchesOneByOne) {
  // The same 200 starts and 20 cancels, one by one and inside one BatchUpdate, give the same
  // rates; the batch recomputes once.
  std::vector<NodeId> hosts;
  const Topology t = small_spine_leaf(hosts);
  Simulation sim_a(3), sim_b(3);
  FlowNetwork one(sim_a, t), batched(sim_b, t);
  RandomStream rng = sim_a.rng("test", "pairs");
  std::vector<FlowHandle> ha, hb;
  {
    const FlowNetwork::BatchUpdate batch(batched);
    for (int k = 0; k < 200; ++k) {
      const auto a = static_cast<std::size_t>(rng.uniform_int(0, 15));
      auto b = static_cast<std::size_t>(rng.uniform_int(0, 15));
      if (a == b) b = (b + 1) % 16;
      FlowOptions o;
      if (k % 3 == 0) o.rate_cap_bps = 7506e6;
      ha.push_back(one.start(hosts[a], hosts[b], 1e9, nullptr, o));
      hb.push_back(batched.start(hosts[a], hosts[b], 1e9, nullptr, o));
      EXPECT_EQ(batched.rate_bps(hb.back()), 0.0);  // not solved before the batch closes
      if (k % 10 == 9) {
        one.cancel(ha[static_cast<std::size_t>(k - 5)]);
        batched.cancel(hb[static_cast<std::size_t>(k - 5)]);
      }
    }
    EXPECT_EQ(batched.stats().recomputations, 0u);
  }
  EXPECT_EQ(batched.stats().recomputations, 1u);
  ASSERT_EQ(one.active_flows(), batched.active_flows());
  for (std::size_t i = 0; i < ha.size(); ++i) {
    const double r = one.rate_bps(ha[i]);
    EXPECT_NEAR(batched.rate_bps(hb[i]), r, r * 1e-9) << "flow " << i;
  }
  check_allocation(t, batched, "after batch");
}

TEST(MaxMinProperty, BatchMisuse) {
  std::vector<NodeId> hosts;
  const Topology t = small_spine_leaf(hosts);
  Simulation sim;
  FlowNetwork net(sim, t);
  EXPECT_THROW(net.end_batch(), std::logic_error);
  // A batch left open while simulated time moves on refuses further changes.
  net.begin_batch();
  const FlowHandle h = net.start(hosts[0], hosts[5], 1e9, nullptr);
  bool threw = false;
  sim.schedule_at(seconds(1.0), [&] {
    try {
      net.start(hosts[1], hosts[6], 1e9, nullptr);
    } catch (const std::logic_error&) {
      threw = true;
    }
  });
  sim.run_until(seconds(1.0));
  EXPECT_TRUE(threw);
  net.end_batch();
  // Alone on its path and host-uncapped, the flow gets the 50 Gbit/s host link.
  EXPECT_DOUBLE_EQ(net.rate_bps(h), 50e9);
}

TEST(MaxMinProperty, SpineLeafManyFlows) {
  // A small spine-leaf fabric (3 spines, 4 leaves, 4 hosts each) with 300 flows in flight, some
  // capped: the incremental result must match the reference after every start.
  Simulation sim(7);
  RandomStream rng = sim.rng("test", "flows");
  Topology t;
  std::vector<NodeId> spines, leaves, hosts;
  for (int i = 0; i < 3; ++i)
    spines.push_back(t.add_node("s" + std::to_string(i), NodeKind::kSpine));
  for (int j = 0; j < 4; ++j) {
    leaves.push_back(t.add_node("l" + std::to_string(j), NodeKind::kLeaf));
    for (const NodeId s : spines)
      t.add_link(leaves.back(), s, 100e9);
  }
  for (int h = 0; h < 16; ++h) {
    hosts.push_back(t.add_node("h" + std::to_string(h), NodeKind::kHost));
    t.add_link(hosts.back(), leaves[static_cast<std::size_t>(h / 4)], 50e9);
  }
  FlowNetwork net(sim, t);
  std::vector<FlowHandle> live;
  for (int k = 0; k < 300; ++k) {
    const auto a = static_cast<std::size_t>(rng.uniform_int(0, 15));
    auto b = static_cast<std::size_t>(rng.uniform_int(0, 15));
    if (a == b) b = (b + 1) % 16;
    FlowOptions o;
    if (rng.bernoulli(0.5)) o.rate_cap_bps = 7506e6;
    live.push_back(net.start(hosts[a], hosts[b], 1e9, nullptr, o));
    if (k % 10 == 0) check_allocation(t, net, "spine-leaf start " + std::to_string(k));
    if (k % 3 == 0) {
      net.cancel(live[static_cast<std::size_t>(rng.uniform_int(0, k))]);
    }
  }
  check_allocation(t, net, "spine-leaf end");
}

}  // namespace
}  // namespace sim::net
