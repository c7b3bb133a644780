#pragma once
// The max-min checks shared by the network property tests: a naive from-scratch progressive
// filling (the reference solver) and the optimality conditions of an allocation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "sim/network/flow_network.hpp"

namespace sim::net::testing {

constexpr double kRel = 1e-9;

// Naive progressive filling over all flows: raise all unfrozen flows by the smallest increment
// that saturates a channel or reaches a cap.
inline std::vector<double> reference_rates(const Topology& t,
                                           const std::vector<FlowNetwork::FlowView>& flows) {
  const std::size_t nc = t.channel_count();
  std::vector<double> rate(flows.size(), 0.0);
  std::vector<bool> frozen(flows.size(), false);
  std::vector<double> used(nc, 0.0);
  for (;;) {
    std::vector<double> weight(nc, 0.0);
    bool any = false;
    for (std::size_t i = 0; i < flows.size(); ++i) {
      if (frozen[i]) continue;
      any = true;
      for (const ChannelId c : *flows[i].channels)
        weight[c] += 1.0;
    }
    if (!any) break;
    double inc = std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < nc; ++c) {
      if (weight[c] > 0)
        inc = std::min(inc,
                       (t.channel_capacity_bps(static_cast<ChannelId>(c)) - used[c]) / weight[c]);
    }
    for (std::size_t i = 0; i < flows.size(); ++i) {
      if (!frozen[i]) inc = std::min(inc, flows[i].cap_bps - rate[i]);
    }
    inc = std::max(inc, 0.0);
    for (std::size_t i = 0; i < flows.size(); ++i) {
      if (frozen[i]) continue;
      rate[i] += inc;
      for (const ChannelId c : *flows[i].channels)
        used[c] += inc;
    }
    for (std::size_t i = 0; i < flows.size(); ++i) {
      if (frozen[i]) continue;
      bool stop = rate[i] >= flows[i].cap_bps * (1 - 1e-12);
      for (const ChannelId c : *flows[i].channels) {
        if (used[c] >= t.channel_capacity_bps(c) * (1 - 1e-12)) stop = true;
      }
      if (stop) frozen[i] = true;
    }
  }
  return rate;
}

inline void check_allocation(const Topology& t, const FlowNetwork& net, const std::string& where) {
  const auto flows = net.flows();
  std::vector<double> load(t.channel_count(), 0.0);
  std::vector<double> max_rate(t.channel_count(), 0.0);
  for (const auto& f : flows) {
    ASSERT_GT(f.rate_bps, 0.0) << where;
    for (const ChannelId c : *f.channels) {
      load[c] += f.rate_bps;
      max_rate[c] = std::max(max_rate[c], f.rate_bps);
    }
  }
  for (ChannelId c = 0; c < t.channel_count(); ++c) {
    const double cap = t.channel_capacity_bps(c);
    ASSERT_LE(load[c], cap * (1 + kRel)) << where << " channel " << t.channel_name(c);
    ASSERT_NEAR(net.channel_load_bps(c), load[c], cap * kRel) << where;
  }
  for (const auto& f : flows) {
    bool has_bottleneck = f.rate_bps >= f.cap_bps * (1 - kRel);
    for (const ChannelId c : *f.channels) {
      const double cap = t.channel_capacity_bps(c);
      if (load[c] >= cap * (1 - kRel) && max_rate[c] <= f.rate_bps * (1 + kRel)) {
        has_bottleneck = true;
      }
    }
    ASSERT_TRUE(has_bottleneck) << where << ": flow " << f.handle.serial << " at " << f.rate_bps
                                << " bit/s has no bottleneck";
  }
  const std::vector<double> ref = reference_rates(t, flows);
  for (std::size_t i = 0; i < flows.size(); ++i) {
    ASSERT_NEAR(flows[i].rate_bps, ref[i], ref[i] * 1e-8) << where << " flow " << i;
  }
}

}  // namespace sim::net::testing
