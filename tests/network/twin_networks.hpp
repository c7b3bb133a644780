#pragma once
// Two FlowNetworks on one topology, each with its own Simulation, driven by the same changes:
// `a` as built, `b` with one of its shortcuts switched off by the test (keep_all_channels,
// keep_rates_per_flow). The property tests compare them bit for bit after every change; this
// fixture applies each change to both and records every delivery, so that a test holds only its
// own random choices and comparisons.
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <vector>

#include "sim/network/flow_network.hpp"

namespace sim::net::testing {

class TwinNetworks {
 public:
  /// One delivery: flow index (in start order), receiver (0 for a plain flow), time.
  using Delivery = std::tuple<std::size_t, std::size_t, Time>;

  explicit TwinNetworks(const Topology& t) : a(sim_a, t), b(sim_b, t) {}
  TwinNetworks(const Topology& t, std::uint64_t seed, int sequence_bits)
      : sim_a(seed, sequence_bits), sim_b(seed, sequence_bits), a(sim_a, t), b(sim_b, t) {}

  /// A flow src -> dst on both networks; returns its index.
  std::size_t start(NodeId src, NodeId dst, double bytes, const FlowOptions& o = {}) {
    const std::size_t i = ha_.size();
    ha_.push_back(a.start(
        src, dst, bytes, [this, i] { done_a_.emplace_back(i, 0, sim_a.now()); }, o));
    hb_.push_back(b.start(
        src, dst, bytes, [this, i] { done_b_.emplace_back(i, 0, sim_b.now()); }, o));
    return i;
  }

  /// A chain src -> receivers[0] -> ... on both networks; returns its index.
  std::size_t start_chain(NodeId src, const std::vector<NodeId>& receivers, double bytes,
                          const FlowOptions& o = {}) {
    const std::size_t i = ha_.size();
    ha_.push_back(a.start_chain(
        src, receivers, bytes,
        [this, i](std::size_t k) { done_a_.emplace_back(i, k, sim_a.now()); }, o));
    hb_.push_back(b.start_chain(
        src, receivers, bytes,
        [this, i](std::size_t k) { done_b_.emplace_back(i, k, sim_b.now()); }, o));
    return i;
  }

  /// Cancels flow `i` on both; whether it was still running (the same on both, or the test
  /// fails at the call's site through the returned pair).
  [[nodiscard]] std::pair<bool, bool> cancel(std::size_t i) {
    return {a.cancel(ha_[i]), b.cancel(hb_[i])};
  }

  [[nodiscard]] std::size_t started() const { return ha_.size(); }
  [[nodiscard]] FlowHandle handle_a(std::size_t i) const { return ha_[i]; }
  [[nodiscard]] FlowHandle handle_b(std::size_t i) const { return hb_[i]; }

  void run_until(Time t) {
    sim_a.run_until(t);
    sim_b.run_until(t);
  }
  void run() {
    sim_a.run();
    sim_b.run();
  }

  /// Every delivery so far, in the order it happened.
  [[nodiscard]] const std::vector<Delivery>& deliveries_a() const { return done_a_; }
  [[nodiscard]] const std::vector<Delivery>& deliveries_b() const { return done_b_; }

  /// Starts and cancels made while it lives are one batch on both networks.
  class Batch {
   public:
    explicit Batch(TwinNetworks& n) : a_(n.a), b_(n.b) {}

   private:
    FlowNetwork::BatchUpdate a_;
    FlowNetwork::BatchUpdate b_;
  };

  Simulation sim_a;
  Simulation sim_b;
  FlowNetwork a;
  FlowNetwork b;

 private:
  std::vector<FlowHandle> ha_;
  std::vector<FlowHandle> hb_;
  std::vector<Delivery> done_a_;
  std::vector<Delivery> done_b_;
};

}  // namespace sim::net::testing
