// Hand-computed max-min fair sharing cases. Sizes are chosen in bits so that the arithmetic in
// the comments is exact: 1 Gbit = 1.25e8 bytes.
#include "sim/network/flow_network.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "test_topologies.hpp"

namespace sim::net {
namespace {

constexpr double kGbit = 1.25e8;  // bytes
constexpr double kG = 1e9;        // bits/s

TEST(FlowNetwork, OneLinkTwoFlows) {
  // A 10 Gbit/s link; flows of 10 and 5 Gbit start together. Both get 5 Gbit/s; the 5 Gbit flow
  // ends at 1 s, the other has 5 Gbit left and alone at 10 Gbit/s ends 0.5 s later: 1.5 s.
  Topology t;
  const NodeId a = t.add_node("a");
  const NodeId b = t.add_node("b");
  t.add_link(a, b, 10 * kG);
  Simulation sim;
  FlowNetwork net(sim, t);
  Time f1, f2;
  const FlowHandle h1 = net.start(a, b, 10 * kGbit, [&] { f1 = sim.now(); });
  const FlowHandle h2 = net.start(a, b, 5 * kGbit, [&] { f2 = sim.now(); });
  EXPECT_DOUBLE_EQ(net.rate_bps(h1), 5 * kG);
  EXPECT_DOUBLE_EQ(net.rate_bps(h2), 5 * kG);
  EXPECT_DOUBLE_EQ(net.channel_load_bps(0), 10 * kG);
  EXPECT_DOUBLE_EQ(net.channel_load_bps(1), 0.0);  // the reverse direction is idle
  sim.run();
  EXPECT_EQ(f2, seconds(1.0));
  EXPECT_EQ(f1, seconds(1.5));
  EXPECT_DOUBLE_EQ(net.channel_bytes(0), 15 * kGbit);
  EXPECT_EQ(net.active_flows(), 0u);
}

TEST(FlowNetwork, FullDuplexDirectionsDoNotCompete) {
  // a->b and b->a on one 10 Gbit/s link each get the full 10 Gbit/s: 10 Gbit takes 1 s.
  Topology t;
  const NodeId a = t.add_node("a");
  const NodeId b = t.add_node("b");
  t.add_link(a, b, 10 * kG);
  Simulation sim;
  FlowNetwork net(sim, t);
  Time f1, f2;
  net.start(a, b, 10 * kGbit, [&] { f1 = sim.now(); });
  net.start(b, a, 10 * kGbit, [&] { f2 = sim.now(); });
  sim.run();
  EXPECT_EQ(f1, seconds(1.0));
  EXPECT_EQ(f2, seconds(1.0));
}

TEST(FlowNetwork, Incast) {
  // Four senders to h5 through one switch, 10 Gbit/s host links with 1 us latency. The
  // receiver's downlink is shared: 2.5 Gbit/s each, so 10 Gbit takes 4 s; the last byte then
  // crosses two links: 4 s + 2 us.
  const Topology t = testing::star(5, 10 * kG, us(1));
  Simulation sim;
  FlowNetwork net(sim, t);
  std::vector<Time> done(4);
  std::vector<FlowHandle> h;
  for (int i = 0; i < 4; ++i) {
    h.push_back(net.start(t.at("h" + std::to_string(i + 1)), t.at("h5"), 10 * kGbit,
                          [&, i] { done[i] = sim.now(); }));
  }
  for (const auto& x : h)
    EXPECT_DOUBLE_EQ(net.rate_bps(x), 2.5 * kG);
  sim.run();
  for (const Time d : done)
    EXPECT_EQ(d, seconds(4.0) + us(2));
}

TEST(FlowNetwork, OneToManyUnicastVersusChain) {
  // Flashpoint thesis Fig. 6.3: host 1 sends a 10 Gbit model to hosts 2 and 3 over 10 Gbit/s
  // duplex links through one ToR switch. Two unicasts share host 1's uplink (5 Gbit/s each):
  // 2 s. A chain 1 -> 2 -> 3 uses h1->tor, tor->h2, h2->tor, tor->h3 once each at 10 Gbit/s: 1 s.
  const Topology t = testing::star(3, 10 * kG);
  const NodeId h1 = t.at("h1"), h2 = t.at("h2"), h3 = t.at("h3");
  {
    Simulation sim;
    FlowNetwork net(sim, t);
    Time d2, d3;
    net.start(h1, h2, 10 * kGbit, [&] { d2 = sim.now(); });
    net.start(h1, h3, 10 * kGbit, [&] { d3 = sim.now(); });
    sim.run();
    EXPECT_EQ(d2, seconds(2.0));
    EXPECT_EQ(d3, seconds(2.0));
  }
  {
    Simulation sim;
    FlowNetwork net(sim, t);
    std::vector<Time> d(2);
    const FlowHandle c =
        net.start_chain(h1, {h2, h3}, 10 * kGbit, [&](std::size_t r) { d[r] = sim.now(); });
    EXPECT_DOUBLE_EQ(net.rate_bps(c), 10 * kG);
    EXPECT_EQ(net.route(c).channels.size(), 4u);
    sim.run();
    EXPECT_EQ(d[0], seconds(1.0));
    EXPECT_EQ(d[1], seconds(1.0));
  }
}

TEST(FlowNetwork, ChainReceiversFinishAfterTheirOwnLatency) {
  // Same chain with 1 us per link: h2 is 2 links from h1, h3 is 4 links along the chain.
  const Topology t = testing::star(3, 10 * kG, us(1));
  Simulation sim;
  FlowNetwork net(sim, t);
  std::vector<Time> d(2);
  net.start_chain(t.at("h1"), {t.at("h2"), t.at("h3")}, 10 * kGbit,
                  [&](std::size_t r) { d[r] = sim.now(); });
  sim.run();
  EXPECT_EQ(d[0], seconds(1.0) + us(2));
  EXPECT_EQ(d[1], seconds(1.0) + us(4));
}

TEST(FlowNetwork, ChainSharesMaxMinWithOtherTraffic) {
  // Chain h1 -> h2 -> h3 plus a unicast h4 -> h3 (10 Gbit/s links). tor->h3 carries both:
  // 5 Gbit/s each; the chain's other channels have room, so the chain runs at 5 Gbit/s.
  const Topology t = testing::star(4, 10 * kG);
  Simulation sim;
  FlowNetwork net(sim, t);
  const FlowHandle c = net.start_chain(t.at("h1"), {t.at("h2"), t.at("h3")}, kGbit, nullptr);
  const FlowHandle u = net.start(t.at("h4"), t.at("h3"), kGbit, nullptr);
  EXPECT_DOUBLE_EQ(net.rate_bps(c), 5 * kG);
  EXPECT_DOUBLE_EQ(net.rate_bps(u), 5 * kG);
}

TEST(FlowNetwork, ChainCrossingAChannelTwiceCountsTwice) {
  // Line a - b with a chain a -> b -> a -> b: channel a->b is used twice, so the chain's rate r
  // satisfies 2r = 10 Gbit/s.
  Topology t;
  const NodeId a = t.add_node("a"), b = t.add_node("b");
  t.add_link(a, b, 10 * kG);
  Simulation sim;
  FlowNetwork net(sim, t);
  const FlowHandle c = net.start_chain(a, {b, a, b}, kGbit, nullptr);
  EXPECT_DOUBLE_EQ(net.rate_bps(c), 5 * kG);
  EXPECT_DOUBLE_EQ(net.channel_load_bps(0), 10 * kG);
}

TEST(FlowNetwork, FlowsArrivingAndLeavingMidTransfer) {
  // One 10 Gbit/s link. A (10 Gbit) starts at 0; B (2.5 Gbit) at 0.5 s; C (100 Gbit) at 0.6 s
  // and is cancelled at 0.7 s.
  //   0   .. 0.5: A alone at 10 -> A has sent 5 Gbit.
  //   0.5 .. 0.6: A, B at 5 each -> A 5.5, B 0.5.
  //   0.6 .. 0.7: A, B, C at 10/3 each -> A 5.5 + 1/3, B 0.5 + 1/3.
  //   0.7 ..    : A, B at 5 each. B has 2.5 - 0.8333.. = 1.6666.. left: 1/3 s -> B ends at
  //               0.7 + 1/3 = 1.0333.. s; A by then has 5.8333.. + 1.6666.. = 7.5, 2.5 left
  //               alone at 10: 0.25 s -> A ends at 1.2833.. s.
  Topology t;
  const NodeId a = t.add_node("a"), b = t.add_node("b");
  t.add_link(a, b, 10 * kG);
  Simulation sim;
  FlowNetwork net(sim, t);
  Time fa, fb;
  bool c_done = false;
  FlowHandle c;
  net.start(a, b, 10 * kGbit, [&] { fa = sim.now(); });
  sim.schedule_at(seconds(0.5), [&] { net.start(a, b, 2.5 * kGbit, [&] { fb = sim.now(); }); });
  sim.schedule_at(seconds(0.6), [&] { c = net.start(a, b, 100 * kGbit, [&] { c_done = true; }); });
  sim.schedule_at(seconds(0.7), [&] {
    EXPECT_NEAR(net.remaining_bytes(c), (100 - 1.0 / 3.0) * kGbit, 1.0);
    EXPECT_TRUE(net.cancel(c));
    EXPECT_FALSE(net.cancel(c));
  });
  sim.run();
  EXPECT_FALSE(c_done);
  EXPECT_NEAR(fb.to_seconds(), 0.7 + 1.0 / 3.0, 2e-9);
  EXPECT_NEAR(fa.to_seconds(), 0.7 + 1.0 / 3.0 + 0.25, 2e-9);
  EXPECT_GE(fb, seconds(0.7 + 1.0 / 3.0) - ns(1));  // rounded up, never early
}

// Parking lot: n0 - n1 - n2 - n3 with link capacities 10, 4, 10 Gbit/s. The long flow n0->n3
// crosses all three; short flows n0->n1, n1->n2 (two of them), n2->n3 cross one each.
struct ParkingLot {
  Topology t;
  NodeId n[4];
  ParkingLot() {
    for (int i = 0; i < 4; ++i)
      n[i] = t.add_node("n" + std::to_string(i));
    t.add_link(n[0], n[1], 10 * kG);
    t.add_link(n[1], n[2], 4 * kG);
    t.add_link(n[2], n[3], 10 * kG);
  }
};

TEST(FlowNetwork, ParkingLotMaxMinRates) {
  // The middle link (4) has three flows: 4/3 each, the lowest level, so it is everyone's
  // bottleneck there. The first and last links then give the short flows 10 - 4/3 = 26/3.
  ParkingLot p;
  Simulation sim;
  FlowNetwork net(sim, p.t);
  const FlowHandle lng = net.start(p.n[0], p.n[3], kGbit, nullptr);
  const FlowHandle s1 = net.start(p.n[0], p.n[1], kGbit, nullptr);
  const FlowHandle s2 = net.start(p.n[1], p.n[2], kGbit, nullptr);
  const FlowHandle s2b = net.start(p.n[1], p.n[2], kGbit, nullptr);
  const FlowHandle s3 = net.start(p.n[2], p.n[3], kGbit, nullptr);
  EXPECT_NEAR(net.rate_bps(lng), 4.0 / 3.0 * kG, 1e-3);
  EXPECT_NEAR(net.rate_bps(s2), 4.0 / 3.0 * kG, 1e-3);
  EXPECT_NEAR(net.rate_bps(s2b), 4.0 / 3.0 * kG, 1e-3);
  EXPECT_NEAR(net.rate_bps(s1), 26.0 / 3.0 * kG, 1e-3);
  EXPECT_NEAR(net.rate_bps(s3), 26.0 / 3.0 * kG, 1e-3);
  // Removing one middle flow: the middle link has 2 flows at 2 each; short ones get 8.
  net.cancel(s2b);
  EXPECT_NEAR(net.rate_bps(lng), 2 * kG, 1e-3);
  EXPECT_NEAR(net.rate_bps(s2), 2 * kG, 1e-3);
  EXPECT_NEAR(net.rate_bps(s1), 8 * kG, 1e-3);
  EXPECT_NEAR(net.rate_bps(s3), 8 * kG, 1e-3);
}

TEST(FlowNetwork, ParkingLotWithAPerFlowCap) {
  // As above, one middle flow capped at 1 Gbit/s: the middle link's other two flows share the
  // remaining 3: 1.5 each; the short end flows get 10 - 1.5 = 8.5.
  ParkingLot p;
  Simulation sim;
  FlowNetwork net(sim, p.t);
  const FlowHandle lng = net.start(p.n[0], p.n[3], kGbit, nullptr);
  const FlowHandle s1 = net.start(p.n[0], p.n[1], kGbit, nullptr);
  FlowOptions capped;
  capped.rate_cap_bps = 1 * kG;
  const FlowHandle s2 = net.start(p.n[1], p.n[2], kGbit, nullptr, capped);
  const FlowHandle s2b = net.start(p.n[1], p.n[2], kGbit, nullptr);
  const FlowHandle s3 = net.start(p.n[2], p.n[3], kGbit, nullptr);
  EXPECT_NEAR(net.rate_bps(s2), 1 * kG, 1e-3);
  EXPECT_NEAR(net.rate_bps(lng), 1.5 * kG, 1e-3);
  EXPECT_NEAR(net.rate_bps(s2b), 1.5 * kG, 1e-3);
  EXPECT_NEAR(net.rate_bps(s1), 8.5 * kG, 1e-3);
  EXPECT_NEAR(net.rate_bps(s3), 8.5 * kG, 1e-3);
}

TEST(FlowNetwork, NodeFlowCapApplies) {
  // A host with a 7,506 Mbit/s per-flow cap (thesis §8.2.1) on a 50 Gbit/s link: one flow runs
  // at the cap, so 7.506 Gbit takes 1 s.
  Topology t;
  const NodeId a = t.add_node("a", NodeKind::kHost, 7506e6);
  const NodeId b = t.add_node("b", NodeKind::kHost);
  t.add_link(a, b, 50 * kG);
  Simulation sim;
  FlowNetwork net(sim, t);
  Time d;
  const FlowHandle h = net.start(a, b, 7.506 * kGbit, [&] { d = sim.now(); });
  EXPECT_DOUBLE_EQ(net.rate_bps(h), 7506e6);
  sim.run();
  EXPECT_EQ(d, seconds(1.0));
}

TEST(FlowNetwork, OnlyFlowsWhoseRateChangedAreRerated) {
  // Two disconnected pairs: a flow starting on one pair does not touch the other.
  Topology t;
  const NodeId a = t.add_node("a"), b = t.add_node("b"), c = t.add_node("c"), d = t.add_node("d");
  t.add_link(a, b, 10 * kG);
  t.add_link(c, d, 10 * kG);
  Simulation sim;
  FlowNetwork net(sim, t);
  net.start(a, b, kGbit, nullptr);
  const auto before = net.stats().rate_changes;
  net.start(c, d, kGbit, nullptr);
  EXPECT_EQ(net.stats().rate_changes, before + 1);  // only the new flow
  // A capped flow joining an uncongested link changes nobody else's rate.
  FlowOptions capped;
  capped.rate_cap_bps = 1 * kG;
  net.start(c, d, kGbit, nullptr, capped);          // c->d: 9 + 1
  EXPECT_EQ(net.stats().rate_changes, before + 3);  // the new flow and the c->d flow (10 -> 9)
}

TEST(FlowNetwork, ZeroBytesAndSelfFlows) {
  const Topology t = testing::star(2, 10 * kG, us(3));
  Simulation sim;
  FlowNetwork net(sim, t);
  Time d0 = Time::max(), d1 = Time::max();
  net.start(t.at("h1"), t.at("h2"), 0.0, [&] { d0 = sim.now(); });
  net.start(t.at("h1"), t.at("h1"), 5 * kGbit, [&] { d1 = sim.now(); });
  sim.run();
  EXPECT_EQ(d0, us(6));  // latency of two links only
  EXPECT_EQ(d1, Time::zero());
}

TEST(FlowNetwork, RejectsBadInput) {
  const Topology t = testing::star(2, 10 * kG);
  Simulation sim;
  FlowNetwork net(sim, t);
  EXPECT_THROW(net.start(0, 1, -1.0, nullptr), std::invalid_argument);
  EXPECT_THROW(net.start(0, 1, std::nan(""), nullptr), std::invalid_argument);
  EXPECT_THROW(net.start(0, 99, 1.0, nullptr), std::invalid_argument);
  EXPECT_THROW(net.start_chain(0, {}, 1.0, nullptr), std::invalid_argument);
  FlowOptions bad;
  bad.rate_cap_bps = 0.0;
  EXPECT_THROW(net.start(1, 2, 1.0, nullptr, bad), std::invalid_argument);
  Topology disconnected;
  disconnected.add_node("x");
  disconnected.add_node("y");
  FlowNetwork net2(sim, disconnected);
  EXPECT_THROW(net2.start(0, 1, 1.0, nullptr), std::invalid_argument);
}

TEST(FlowNetwork, CancelDuringDeliveryStopsCallbacks) {
  const Topology t = testing::star(2, 10 * kG, ms(1));
  Simulation sim;
  FlowNetwork net(sim, t);
  bool called = false;
  const FlowHandle h = net.start(t.at("h1"), t.at("h2"), kGbit, [&] { called = true; });
  // Fluid transfer ends at 0.1 s; the last byte arrives 2 ms later.
  sim.run_until(seconds(0.101));
  EXPECT_FALSE(net.active(h));
  EXPECT_TRUE(net.cancel(h));
  sim.run();
  EXPECT_FALSE(called);
}

TEST(FlowNetwork, DoneCallbackMayStartFlowsThatReuseItsSlot) {
  // The callback owns heap state (a shared_ptr, so std::function stores it on the heap) and
  // starts 20 flows: they reuse the finished flow's slot and make the flow table reallocate
  // while the callback runs, then the callback uses its captures. The callback must be moved
  // out of the flow's slot before it runs (ASan catches a use of the old storage).
  // h1 -> tor -> h2 at 10 Gbit/s: the first flow (10 Gbit) ends at 1 s; the 20 flows of
  // 0.5 Gbit share 10 Gbit/s, 0.5 Gbit/s each, and all end 1 s later, at 2 s exactly.
  const Topology t = testing::star(2, 10 * kG);
  Simulation sim;
  FlowNetwork net(sim, t);
  auto calls = std::make_shared<int>(0);
  std::vector<Time> finishes;
  net.start(t.at("h1"), t.at("h2"), 10 * kGbit, [&, calls] {
    for (int i = 0; i < 20; ++i)
      net.start(t.at("h1"), t.at("h2"), 0.5 * kGbit, [&] { finishes.push_back(sim.now()); });
    ++*calls;
  });
  sim.run();
  EXPECT_EQ(*calls, 1);
  ASSERT_EQ(finishes.size(), 20u);
  for (const Time f : finishes)
    EXPECT_EQ(f, seconds(2.0));
  EXPECT_EQ(net.active_flows(), 0u);
}

}  // namespace
}  // namespace sim::net
