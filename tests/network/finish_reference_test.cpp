// Finish times of random flow sets against an independent fluid simulation: the flows' rates
// from the naive progressive filling (network/maxmin_reference.hpp), recomputed at every start
// and finish, each flow's bytes drained at its rate in doubles, no rounding to nanoseconds. The
// network (incremental solver, finish times in a CompletionHeap, rounded up to the nanosecond)
// must agree to 1 us + 1e-9 of the duration on every flow (the issue 24 tolerance).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "network/maxmin_reference.hpp"
#include "sim/network/flow_network.hpp"

namespace sim::net {
namespace {

struct Spec {
  NodeId src = 0;
  NodeId dst = 0;
  double bytes = 0.0;
  std::int64_t start_ns = 0;
  double cap = std::numeric_limits<double>::infinity();
  std::vector<ChannelId> channels;  // the route the network chose
};

// 2 spines, 3 leaves of 3 hosts, 40 Gbit/s leaf-spine, 25 Gbit/s host links, no latency.
Topology fabric(std::vector<NodeId>& hosts) {
  Topology t;
  std::vector<NodeId> spines, leaves;
  for (int i = 0; i < 2; ++i)
    spines.push_back(t.add_node("s" + std::to_string(i), NodeKind::kSpine));
  for (int j = 0; j < 3; ++j) {
    leaves.push_back(t.add_node("l" + std::to_string(j), NodeKind::kLeaf));
    for (const NodeId s : spines)
      t.add_link(leaves.back(), s, 40e9);
  }
  for (int h = 0; h < 9; ++h) {
    hosts.push_back(t.add_node("h" + std::to_string(h), NodeKind::kHost));
    t.add_link(hosts.back(), leaves[static_cast<std::size_t>(h / 3)], 25e9);
  }
  return t;
}

// Fluid simulation with reference rates; returns each flow's finish time in seconds.
std::vector<double> reference_finish(const Topology& t, const std::vector<Spec>& specs) {
  std::vector<double> finish(specs.size(), -1.0);
  std::vector<double> remaining(specs.size());
  std::vector<std::size_t> active;
  std::size_t next = 0;  // specs are in start order
  double now = 0.0;
  while (next < specs.size() || !active.empty()) {
    std::vector<FlowNetwork::FlowView> views;
    for (const std::size_t i : active)
      views.push_back(FlowNetwork::FlowView{FlowHandle{}, &specs[i].channels, 0.0, specs[i].cap});
    const std::vector<double> rate = testing::reference_rates(t, views);
    double step = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < active.size(); ++k)
      step = std::min(step, remaining[active[k]] * 8.0 / rate[k]);
    const double next_start = next < specs.size() ? static_cast<double>(specs[next].start_ns) * 1e-9
                                                  : std::numeric_limits<double>::infinity();
    const bool finishing = now + step <= next_start;
    const double dt = finishing ? step : next_start - now;
    now = finishing ? now + dt : next_start;
    std::vector<std::size_t> still;
    for (std::size_t k = 0; k < active.size(); ++k) {
      const std::size_t i = active[k];
      const double left = remaining[i] * 8.0 / rate[k] - dt;  // seconds still to go
      remaining[i] -= rate[k] * dt / 8.0;
      if (finishing && left <= 1e-12 * std::max(1.0, now)) {
        finish[i] = now;
      } else {
        still.push_back(i);
      }
    }
    active.swap(still);
    while (next < specs.size() && static_cast<double>(specs[next].start_ns) * 1e-9 <= now) {
      remaining[next] = specs[next].bytes;
      active.push_back(next++);
    }
  }
  return finish;
}

// Runs one random flow set; returns the number of pairs of flows finishing at one nanosecond.
std::size_t check_seed(std::uint64_t seed) {
  std::vector<NodeId> hosts;
  const Topology t = fabric(hosts);
  Simulation sim(seed);
  RandomStream rng = sim.rng("test", "flows");
  std::vector<Spec> specs;
  std::int64_t at = 0;
  for (int k = 0; k < 80; ++k) {
    // Bursts: a third of the flows start with the one before (equal start times).
    if (k == 0 || !rng.bernoulli(0.35)) {
      at += static_cast<std::int64_t>(rng.uniform_int(1, 400)) * 1000000;
    }
    Spec s;
    const std::uint64_t a = rng.uniform_int(0, hosts.size() - 1);
    const std::uint64_t b = (a + rng.uniform_int(1, hosts.size() - 1)) % hosts.size();
    s.src = hosts[a];
    s.dst = hosts[b];
    // Equal sizes are common (model images), so flows often finish at the same nanosecond.
    s.bytes = 1e8 * static_cast<double>(rng.uniform_int(1, 4));
    if (rng.bernoulli(0.25)) s.cap = 1e9 * static_cast<double>(rng.uniform_int(2, 20));
    s.start_ns = at;
    specs.push_back(s);
  }
  FlowNetwork net(sim, t);
  std::vector<double> finish(specs.size(), -1.0);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    sim.schedule_at(ns(specs[i].start_ns), [&, i] {
      FlowOptions o;
      if (std::isfinite(specs[i].cap)) o.rate_cap_bps = specs[i].cap;
      const FlowHandle h = net.start(
          specs[i].src, specs[i].dst, specs[i].bytes,
          [&, i] { finish[i] = sim.now().to_seconds(); }, o);
      specs[i].channels = net.route(h).channels;
    });
  }
  sim.run();
  const std::vector<double> expected = reference_finish(t, specs);
  std::size_t tied = 0;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    EXPECT_GE(finish[i], 0.0) << "seed " << seed << ", flow " << i << " never finished";
    const double duration = expected[i] - static_cast<double>(specs[i].start_ns) * 1e-9;
    EXPECT_NEAR(finish[i], expected[i], 1e-6 + 1e-9 * duration)
        << "seed " << seed << ", flow " << i;
    for (std::size_t j = 0; j < i; ++j)
      tied += finish[j] == finish[i] ? 1 : 0;
  }
  return tied;
}

TEST(FinishReference, RandomFlowSetsMatchAFluidReference) {
  std::size_t tied = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed)
    tied += check_seed(seed);
  // The sets must have many flows finishing together (the order of ties is what the heap keeps).
  EXPECT_GT(tied, 30u) << tied;
}

}  // namespace
}  // namespace sim::net
