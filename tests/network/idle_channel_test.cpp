// Channels that can never saturate are left out of the solve (src/network/flow_slack.cpp):
// hand-computed cases (a channel that qualifies or not, flips on joins and leaves and then binds,
// observations on a channel left out), and a property test in which channels flip often,
// comparing every rate with the reference solver and, bit for bit, with a network that keeps
// every channel in the solve. Sizes in bits: 1 Gbit = 1.25e8 bytes.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "network/maxmin_reference.hpp"
#include "network/twin_networks.hpp"
#include "sim/network/flow_network.hpp"

namespace sim::net {
namespace {

using testing::check_allocation;
using testing::TwinNetworks;

constexpr double kGbit = 1.25e8;  // bytes
constexpr double kG = 1e9;        // bits/s

// A store with a 2 Gbit/s link to a switch, and three hosts on 10 Gbit/s links.
struct StoreStar {
  Topology t;
  NodeId store = 0;
  std::vector<NodeId> hosts;
  StoreStar() {
    const NodeId sw = t.add_node("sw", NodeKind::kLeaf);
    store = t.add_node("store", NodeKind::kStore);
    t.add_link(store, sw, 2 * kG);
    for (int i = 0; i < 3; ++i) {
      hosts.push_back(t.add_node("h" + std::to_string(i), NodeKind::kHost));
      t.add_link(hosts.back(), sw, 10 * kG);
    }
  }
};

TEST(IdleChannels, HostLinksBehindAStoreAreLeftOut) {
  // Two store downloads share the store's 2 Gbit/s egress: 1 Gbit/s each. Each host link carries
  // at most 2 Gbit/s (the egress) of 10: it never binds. The first start takes two passes (the
  // egress is a boundary, which the flow saturates, so it is expanded): over the egress alone
  // (2 channels solved), or keeping every channel, over the egress and the host link (4). The
  // second re-solves both flows over the egress alone (1); keeping every channel, over the egress
  // and the two host links as boundaries (3). Same rates, bit for bit. Every channel starts out
  // left out (no flows); the egress wakes with the first flow, whose bound is its capacity.
  const StoreStar s;
  TwinNetworks n(s.t);
  n.b.keep_all_channels();
  for (std::size_t i = 0; i < 2; ++i) {
    const auto solved_a = n.a.stats().channels_solved;
    const auto solved_b = n.b.stats().channels_solved;
    n.start(s.store, s.hosts[i], 10 * kGbit);
    EXPECT_EQ(n.a.stats().channels_solved - solved_a, i == 0 ? 2u : 1u) << "start " << i;
    EXPECT_EQ(n.b.stats().channels_solved - solved_b, i == 0 ? 4u : 3u) << "start " << i;
  }
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(n.a.rate_bps(n.handle_a(i)), 1 * kG);
    EXPECT_EQ(n.a.rate_bps(n.handle_a(i)), n.b.rate_bps(n.handle_b(i)));
  }
  EXPECT_EQ(n.a.stats().channels_woken, 1u);
}

TEST(IdleChannels, AChannelWakesWhenItMayBindAndSleepsAfterTheLeave) {
  // Sources s1 and s2 with 4 Gbit/s links to a switch, host h on a 6 Gbit/s link. Flow A
  // (s1 -> h, bound 4) alone: sw->h carries at most 4 of 6, left out; A runs at 4. B (s2 -> h,
  // bound 4) raises the bound to 8 > 6: sw->h wakes and binds, 3 each. B cancelled: bound 4
  // again, A back to 4. C (s2 -> h, cap 1): bound 5, still left out; C at 1, A at 4. D (s2 -> h,
  // bound 4): 9 > 6, wakes: C at its cap 1, A and D share the 5 left: 2.5 each. (Each source's
  // link wakes too whenever a flow's bound there is its whole capacity.)
  Topology t;
  const NodeId sw = t.add_node("sw", NodeKind::kLeaf);
  const NodeId s1 = t.add_node("s1", NodeKind::kStore);
  const NodeId s2 = t.add_node("s2", NodeKind::kStore);
  const NodeId h = t.add_node("h", NodeKind::kHost);
  t.add_link(s1, sw, 4 * kG);
  t.add_link(s2, sw, 4 * kG);
  t.add_link(h, sw, 6 * kG);
  Simulation sim;
  FlowNetwork net(sim, t);
  const FlowHandle fa = net.start(s1, h, 100 * kGbit, nullptr);
  const ChannelId down = net.route(fa).channels.back();  // sw -> h
  EXPECT_EQ(net.rate_bps(fa), 4 * kG);
  EXPECT_EQ(net.channel_load_bps(down), 4 * kG);
  EXPECT_EQ(net.stats().channels_woken, 1u);  // s1 -> sw

  const FlowHandle fb = net.start(s2, h, 100 * kGbit, nullptr);
  EXPECT_EQ(net.stats().channels_woken, 3u);  // s2 -> sw, sw -> h
  EXPECT_EQ(net.rate_bps(fa), 3 * kG);
  EXPECT_EQ(net.rate_bps(fb), 3 * kG);
  EXPECT_EQ(net.channel_load_bps(down), 6 * kG);
  EXPECT_DOUBLE_EQ(net.channel_utilisation(down), 1.0);
  check_allocation(t, net, "two flows");

  ASSERT_TRUE(net.cancel(fb));
  EXPECT_EQ(net.rate_bps(fa), 4 * kG);
  EXPECT_EQ(net.channel_load_bps(down), 4 * kG);

  FlowOptions capped;
  capped.rate_cap_bps = 1 * kG;
  const FlowHandle fc = net.start(s2, h, 100 * kGbit, nullptr, capped);
  EXPECT_EQ(net.stats().channels_woken, 3u);  // both asleep since the cancel, and still
  EXPECT_EQ(net.rate_bps(fa), 4 * kG);
  EXPECT_EQ(net.rate_bps(fc), 1 * kG);
  EXPECT_EQ(net.channel_load_bps(down), 5 * kG);

  const FlowHandle fd = net.start(s2, h, 100 * kGbit, nullptr);
  EXPECT_EQ(net.stats().channels_woken, 5u);  // s2 -> sw, sw -> h again
  EXPECT_EQ(net.rate_bps(fc), 1 * kG);
  EXPECT_EQ(net.rate_bps(fa), 2.5 * kG);
  EXPECT_EQ(net.rate_bps(fd), 2.5 * kG);
  check_allocation(t, net, "three flows");
}

TEST(IdleChannels, ObservationsOnALeftOutChannel) {
  // Store downloads of 4 and 2 Gbit to h0 and h1 share the 2 Gbit/s egress: 1 Gbit/s each; the
  // 2 Gbit one ends at 2 s, the other then runs at 2 Gbit/s and ends at 3 s. The host links are
  // left out of the solve, their observations come from the flows.
  const StoreStar s;
  Simulation sim;
  FlowNetwork net(sim, s.t);
  const FlowHandle f0 = net.start(s.store, s.hosts[0], 4 * kGbit, nullptr);
  const FlowHandle f1 = net.start(s.store, s.hosts[1], 2 * kGbit, nullptr);
  const ChannelId egress = net.route(f0).channels.front();
  const ChannelId down0 = net.route(f0).channels.back();
  const ChannelId down1 = net.route(f1).channels.back();
  EXPECT_EQ(net.channel_load_bps(down0), 1 * kG);
  EXPECT_DOUBLE_EQ(net.channel_utilisation(down0), 0.1);
  EXPECT_EQ(net.channel_load_bps(egress), 2 * kG);
  EXPECT_EQ(net.channel_flow_count(down0), 1u);
  sim.run_until(seconds(1.0));
  EXPECT_DOUBLE_EQ(net.channel_bytes(down0), 1 * kGbit);
  EXPECT_DOUBLE_EQ(net.channel_bytes(egress), 2 * kGbit);
  sim.run_until(seconds(2.5));
  EXPECT_EQ(net.channel_load_bps(down0), 2 * kG);
  EXPECT_EQ(net.channel_load_bps(down1), 0.0);
  EXPECT_DOUBLE_EQ(net.channel_bytes(down0), 3 * kGbit);
  EXPECT_DOUBLE_EQ(net.channel_bytes(down1), 2 * kGbit);
  sim.run();
  EXPECT_EQ(sim.now(), seconds(3.0));
  EXPECT_DOUBLE_EQ(net.channel_bytes(down0), 4 * kGbit);
  EXPECT_DOUBLE_EQ(net.channel_bytes(egress), 6 * kGbit);
  EXPECT_EQ(net.channel_load_bps(down0), 0.0);
  EXPECT_EQ(net.stats().channels_woken, 1u);  // the egress only
}

// Random topologies whose link capacities sit near the sums of the flows' bounds, so that
// channels flip between left out and in the solve all the time: starts (some capped, some
// chains, one crossing a channel twice), cancels, batches of starts and mixed batches. After
// every change the allocation is checked against the reference solver and compared bit for bit
// with a network that keeps every channel; every finish time must agree to the nanosecond.
class IdleChannelProperty : public ::testing::TestWithParam<int> {};

TEST_P(IdleChannelProperty, SameRatesAsKeepingEveryChannel) {
  RandomStream rng(static_cast<std::uint64_t>(GetParam()) * 7919 + 3);
  Topology t;
  const NodeId core = t.add_node("core", NodeKind::kSpine);
  std::vector<NodeId> leaves;
  std::vector<NodeId> nodes;  // sources and hosts
  for (int j = 0; j < 3; ++j) {
    leaves.push_back(t.add_node("l" + std::to_string(j), NodeKind::kLeaf));
    t.add_link(leaves.back(), core, 1e9 * static_cast<double>(rng.uniform_int(4, 12)));
    for (int h = 0; h < 3; ++h) {
      nodes.push_back(t.add_node("h" + std::to_string(3 * j + h), NodeKind::kHost));
      t.add_link(nodes.back(), leaves.back(), 1e9 * static_cast<double>(rng.uniform_int(1, 6)));
    }
  }
  const auto pick = [&] { return nodes[rng.uniform_int(0, nodes.size() - 1)]; };

  TwinNetworks n(t);
  FlowNetwork& a = n.a;
  FlowNetwork& b = n.b;
  b.keep_all_channels();

  const auto start_one = [&] {
    const NodeId src = pick();
    NodeId dst = pick();
    while (dst == src)
      dst = pick();
    FlowOptions o;
    if (rng.bernoulli(0.5)) o.rate_cap_bps = 1e8 * static_cast<double>(rng.uniform_int(3, 40));
    const double bytes = 1e7 * static_cast<double>(rng.uniform_int(1, 200));
    const double kind = rng.uniform(0.0, 1.0);
    if (kind < 0.1) {
      // src -> dst -> r -> dst: the switch's link down to dst twice.
      NodeId r = pick();
      while (r == dst)
        r = pick();
      n.start_chain(src, {dst, r, dst}, bytes, o);
    } else {
      n.start(src, dst, bytes, o);
    }
  };
  const auto cancel_one = [&] {
    if (n.started() == 0) return;
    const auto [on_a, on_b] = n.cancel(rng.uniform_int(0, n.started() - 1));
    EXPECT_EQ(on_a, on_b);
  };
  const auto compare = [&](const std::string& where) {
    const auto fa = a.flows();
    const auto fb = b.flows();
    ASSERT_EQ(fa.size(), fb.size()) << where;
    for (std::size_t i = 0; i < fa.size(); ++i) {
      ASSERT_EQ(fa[i].handle, fb[i].handle) << where;
      ASSERT_EQ(fa[i].rate_bps, fb[i].rate_bps) << where << " flow " << fa[i].handle.serial;
    }
    for (ChannelId c = 0; c < t.channel_count(); ++c) {
      ASSERT_NEAR(a.channel_load_bps(c), b.channel_load_bps(c), t.channel_capacity_bps(c) * 1e-12)
          << where;
    }
    check_allocation(t, a, where);
  };

  Time now = Time::zero();
  for (int step = 0; step < 300; ++step) {
    now += seconds(rng.exponential(4.0));  // 0.25 s apart on average
    n.run_until(now);
    compare("before step " + std::to_string(step));
    const double what = rng.uniform(0.0, 1.0);
    if (what < 0.6) {
      start_one();
    } else if (what < 0.75) {
      cancel_one();
    } else {
      // A batch: starts only, or starts and cancels.
      const bool cancels = rng.bernoulli(0.5);
      const TwinNetworks::Batch batch(n);
      const auto k = rng.uniform_int(1, 6);
      for (std::uint64_t i = 0; i < k; ++i) {
        if (cancels && rng.bernoulli(0.4)) {
          cancel_one();
        } else {
          start_one();
        }
      }
    }
    compare("after step " + std::to_string(step));
  }
  n.run();
  EXPECT_EQ(n.deliveries_a(), n.deliveries_b());
  EXPECT_EQ(a.stats().rate_changes, b.stats().rate_changes);
  EXPECT_EQ(a.stats().extra_rounds, b.stats().extra_rounds);
  EXPECT_EQ(a.stats().flows_solved, b.stats().flows_solved);
  EXPECT_LT(a.stats().channels_solved, b.stats().channels_solved);
  EXPECT_GT(a.stats().channels_woken, 20u);  // flips happen often
  for (ChannelId c = 0; c < t.channel_count(); ++c) {
    EXPECT_EQ(a.channel_load_bps(c), 0.0);
    EXPECT_NEAR(a.channel_bytes(c), b.channel_bytes(c), 1e-9 * b.channel_bytes(c) + 1e-6);
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, IdleChannelProperty, ::testing::Range(1, 31));

}  // namespace
}  // namespace sim::net
