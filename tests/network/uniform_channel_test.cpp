// Uniform channels (src/network/flow_uniform.cpp): a saturated channel whose flows cross no other
// channel in the solve and share one rate keeps their rate, progress and earliest finish once.
// Hand-computed cases (entering, staying, leaving and re-entering the mode), and a property test
// comparing, after every change, every rate, remaining byte count, channel load and byte count,
// and at the end every finish time and the order of completions, bit for bit, with a network
// that re-rates flow by flow (keep_rates_per_flow). Sizes in bits: 1 Gbit = 1.25e8 bytes.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
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

// Two stores with 2 Gbit/s links to a switch, and hosts (by default four on 10 Gbit/s links): a
// store's flows cross its link (the one that binds) and a host link that, with up to 4 flows of
// at most 2 Gbit/s, never binds. Five or more flows to one host make its link bind.
struct Stores {
  Topology t;
  std::vector<NodeId> stores;
  std::vector<NodeId> hosts;
  explicit Stores(int host_count = 4, double host_bps = 10 * kG) {
    const NodeId sw = t.add_node("sw", NodeKind::kLeaf);
    for (int i = 0; i < 2; ++i) {
      stores.push_back(t.add_node("s" + std::to_string(i), NodeKind::kStore));
      t.add_link(stores.back(), sw, 2 * kG);
    }
    for (int i = 0; i < host_count; ++i) {
      hosts.push_back(t.add_node("h" + std::to_string(i), NodeKind::kHost));
      t.add_link(hosts.back(), sw, host_bps);
    }
  }
};

TEST(UniformChannels, EnterStayLeaveAndEnterAgain) {
  const Stores s;
  Simulation sim;
  FlowNetwork net(sim, s.t);
  std::vector<std::pair<char, Time>> done;
  const auto start = [&](char name, NodeId dst, double gbit, std::optional<double> cap = {}) {
    FlowOptions o;
    o.rate_cap_bps = cap;
    return net.start(
        s.stores[0], dst, gbit * kGbit, [&, name] { done.emplace_back(name, sim.now()); }, o);
  };
  // A (1 Gbit) alone at 2 Gbit/s: its commit re-rated every flow of the store's link to one rate.
  const FlowHandle a = start('A', s.hosts[0], 1.0);
  EXPECT_EQ(net.rate_bps(a), 2 * kG);
  EXPECT_EQ(net.uniform_channels(), 1u);
  // At 0.25 s B (1 Gbit) joins on the channel's record: 1 Gbit/s each; A has 0.5 Gbit left.
  sim.run_until(ms(250));
  const FlowHandle b = start('B', s.hosts[1], 1.0);
  EXPECT_EQ(net.uniform_channels(), 1u);
  EXPECT_EQ(net.rate_bps(a), 1 * kG);
  EXPECT_EQ(net.rate_bps(b), 1 * kG);
  EXPECT_EQ(net.remaining_bytes(a), 0.5 * kGbit);
  EXPECT_EQ(net.channel_load_bps(0), 2 * kG);
  // At 0.5 s: A 0.25 Gbit left, B 0.75. C, capped at 0.5 Gbit/s (below the share of 2/3), makes
  // the rates differ: the channel leaves the mode. C 0.5, A and B 0.75 each.
  sim.run_until(ms(500));
  EXPECT_EQ(net.remaining_bytes(a), 0.25 * kGbit);
  const FlowHandle c = start('C', s.hosts[2], 1.0, 0.5 * kG);
  EXPECT_EQ(net.uniform_channels(), 0u);
  EXPECT_EQ(net.rate_bps(c), 0.5 * kG);
  EXPECT_EQ(net.rate_bps(a), 0.75 * kG);
  // At 0.6 s C is cancelled: A and B are re-rated to 1 each, one rate again: the mode again.
  sim.run_until(ms(600));
  EXPECT_TRUE(net.cancel(c));
  EXPECT_EQ(net.uniform_channels(), 1u);
  EXPECT_EQ(net.rate_bps(a), 1 * kG);
  // A had 0.25 - 0.075 = 0.175 Gbit left at 0.6 s: done at 0.775 s; B (0.675 Gbit) alone at 2
  // from then: 0.5 Gbit left, done at 1.025 s. Each finish re-rates on the record.
  sim.run();
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].first, 'A');
  EXPECT_NEAR(done[0].second.to_seconds(), 0.775, 1e-9);
  EXPECT_EQ(done[1].first, 'B');
  EXPECT_NEAR(done[1].second.to_seconds(), 1.025, 1e-9);
  EXPECT_EQ(net.uniform_channels(), 0u);  // the last flow left: per flow again
}

TEST(UniformChannels, TiesFinishInTheOrderOfTheCommit) {
  // Three equal flows started in one batch share 2 Gbit/s and finish in the same nanosecond: in
  // the order of their sequence numbers, taken by the commit new flows first (batch order), then
  // the rest; a fourth, started earlier with the same bytes left at that point, ties with them.
  // Each finish re-rates the others (their bytes left rounded to about nothing) in the order the
  // leaver's swap left them: the same order as the per-flow commits'.
  const Stores s;
  Simulation sim_a;
  Simulation sim_b;
  FlowNetwork a(sim_a, s.t);
  FlowNetwork b(sim_b, s.t);
  b.keep_rates_per_flow();
  std::vector<int> order_a;
  std::vector<int> order_b;
  for (int net = 0; net < 2; ++net) {
    FlowNetwork& n = net == 0 ? a : b;
    Simulation& sim = net == 0 ? sim_a : sim_b;
    std::vector<int>& order = net == 0 ? order_a : order_b;
    n.start(s.stores[0], s.hosts[3], 1.5 * kGbit, [&] { order.push_back(0); });
    sim.run_until(ms(250));  // 0.5 Gbit sent, 1 left
    const FlowNetwork::BatchUpdate batch(n);
    for (int i = 1; i <= 3; ++i)
      n.start(s.stores[0], s.hosts[i - 1], 1.0 * kGbit, [&, i] { order.push_back(i); });
  }
  EXPECT_EQ(a.uniform_channels(), 1u);
  EXPECT_EQ(b.uniform_channels(), 0u);
  sim_a.run();
  sim_b.run();
  EXPECT_EQ(order_a, order_b);
  ASSERT_EQ(order_a.size(), 4u);
  EXPECT_EQ(order_a[0], 1);  // the first new flow took the first number
  EXPECT_EQ(sim_a.now(), sim_b.now());
}

TEST(UniformChannels, CapsThatAllFitLeaveTheMode) {
  // Four flows capped at 0.9 Gbit/s on the 2 Gbit/s link (0.25, 0.5, 1 and 1 Gbit). Up to two
  // the link is idle (1.8 of 2 at most); the third wakes it, and its solve shares it, 2/3 each:
  // the mode. The fourth joins on the record (no cap above the capacity: the caps summed, 3.6,
  // exceed it): 0.5 each. The first finishes at 0.5 s and the three left share on the record
  // again (2.7 > 2): 2/3 each. The second (0.25 Gbit left) finishes at 0.875 s: the two left fit
  // at their caps (1.8 of 2), the link is put to sleep and the channel leaves the mode. Same
  // numbers as per-flow commits, bit for bit.
  const Stores s;
  TwinNetworks n(s.t);
  n.b.keep_rates_per_flow();
  FlowOptions o;
  o.rate_cap_bps = 0.9 * kG;
  const std::vector<double> gbit{0.25, 0.5, 1.0, 1.0};
  for (int i = 0; i < 4; ++i) {
    n.start(s.stores[0], s.hosts[i], gbit[i] * kGbit, o);
    EXPECT_EQ(n.a.uniform_channels(), i >= 2 ? 1u : 0u) << i;
  }
  EXPECT_EQ(n.a.rate_bps(n.handle_a(1)), 0.5 * kG);
  n.run_until(ms(600));
  EXPECT_EQ(n.a.uniform_channels(), 1u);
  EXPECT_EQ(n.a.rate_bps(n.handle_a(1)), 2 * kG / 3.0);
  n.run_until(ms(900));
  EXPECT_EQ(n.a.uniform_channels(), 0u);
  EXPECT_EQ(n.a.rate_bps(n.handle_a(2)), 0.9 * kG);
  n.run();
  EXPECT_EQ(n.deliveries_a(), n.deliveries_b());
  ASSERT_EQ(n.deliveries_a().size(), 4u);
  EXPECT_EQ(std::get<0>(n.deliveries_a()[0]), 0u);
  EXPECT_NEAR(std::get<2>(n.deliveries_a()[0]).to_seconds(), 0.5, 1e-9);
  EXPECT_EQ(std::get<0>(n.deliveries_a()[1]), 1u);
  EXPECT_NEAR(std::get<2>(n.deliveries_a()[1]).to_seconds(), 0.875, 1e-9);
}

class UniformChannelProperty : public ::testing::TestWithParam<int> {};

TEST_P(UniformChannelProperty, SameNumbersAsPerFlowCommits) {
  // Random starts (mostly store downloads, often in equal-sized bursts in one batch; some
  // capped; some host to host; a few chains), cancels and batches, with a small sequence counter
  // so that the queue renumbers often. After every change every flow's rate and bytes left,
  // every channel's load and bytes, bit for bit; at the end every finish time and the order of
  // completions.
  const auto seed = static_cast<std::uint64_t>(GetParam());
  // Host links that bind only with many flows on them (or a host-to-host flow): seeds up to 20
  // mostly keep the stores' links uniform, the others have them leave and enter more often.
  const Stores s(6, seed <= 20 ? 40 * kG : 10 * kG);
  RandomStream rng(seed * 7919 + 5);
  TwinNetworks n(s.t, seed, 14);
  FlowNetwork& a = n.a;
  FlowNetwork& b = n.b;
  b.keep_rates_per_flow();
  std::size_t used = 0;  // comparisons at which a uniform channel existed

  const auto start_one = [&](double bytes) {
    const double kind = rng.uniform(0.0, 1.0);
    FlowOptions o;
    if (rng.bernoulli(0.1)) o.rate_cap_bps = 1e8 * static_cast<double>(rng.uniform_int(2, 30));
    const NodeId dst = s.hosts[rng.uniform_int(0, s.hosts.size() - 1)];
    NodeId src = s.stores[rng.bernoulli(0.8) ? 0 : 1];
    if (kind < 0.02) {
      const NodeId r = s.hosts[rng.uniform_int(0, s.hosts.size() - 1)];
      const std::vector<NodeId> receivers{dst, r == dst ? src : r};
      n.start_chain(src, receivers, bytes, o);
      return;
    }
    if (kind < 0.05) {
      src = s.hosts[rng.uniform_int(0, s.hosts.size() - 1)];
      if (src == dst) src = s.stores[0];
    }
    n.start(src, dst, bytes, o);
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
      ASSERT_EQ(a.remaining_bytes(fa[i].handle), b.remaining_bytes(fb[i].handle))
          << where << " flow " << fa[i].handle.serial;
    }
    for (ChannelId c = 0; c < s.t.channel_count(); ++c) {
      ASSERT_EQ(a.channel_load_bps(c), b.channel_load_bps(c)) << where;
      ASSERT_EQ(a.channel_bytes(c), b.channel_bytes(c)) << where;
    }
    check_allocation(s.t, a, where);
    used += a.uniform_channels() > 0 ? 1 : 0;
  };

  Time now = Time::zero();
  for (int step = 0; step < 400; ++step) {
    // Often exactly at a completion (a finish and a change at one instant), else in between.
    now += rng.bernoulli(0.2) ? Time::zero() : seconds(rng.exponential(3.0));
    n.run_until(now);
    compare("before step " + std::to_string(step));
    const double what = rng.uniform(0.0, 1.0);
    const double bytes = 1e6 * static_cast<double>(rng.uniform_int(1, 100));
    if (what < 0.45) {
      start_one(bytes);
    } else if (what < 0.55) {
      cancel_one();
    } else {
      // A batch: a burst of equal flows (ties), sometimes with cancels.
      const bool cancels = rng.bernoulli(0.2);
      const TwinNetworks::Batch batch(n);
      const auto k = rng.uniform_int(1, 6);
      for (std::uint64_t i = 0; i < k; ++i) {
        if (cancels && rng.bernoulli(0.3)) {
          cancel_one();
        } else {
          start_one(bytes);
        }
      }
    }
    compare("after step " + std::to_string(step));
  }
  n.run();
  EXPECT_EQ(n.deliveries_a(), n.deliveries_b());
  EXPECT_EQ(a.stats().rate_changes, b.stats().rate_changes);
  EXPECT_EQ(a.stats().recomputations, b.stats().recomputations);
  EXPECT_EQ(a.stats().flows_solved, b.stats().flows_solved);
  EXPECT_EQ(a.stats().channels_solved, b.stats().channels_solved);
  EXPECT_EQ(a.stats().extra_rounds, b.stats().extra_rounds);
  EXPECT_EQ(b.uniform_channels(), 0u);
  if (seed <= 20) {
    EXPECT_GT(used, 100u) << "of 800";  // the mode is in use much of the time
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, UniformChannelProperty, ::testing::Range(1, 41));

}  // namespace
}  // namespace sim::net
