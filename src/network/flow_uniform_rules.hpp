#pragma once
// The tests the uniform mode's entries (flow_uniform_entry.cpp) and its record's own changes
// (flow_uniform.cpp) share: kept in one place so that both hand a change to the solver on the
// same conditions (docs/network.md "Uniform channels"); private to src/network.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "flow_constants.hpp"

namespace sim::net::flow {

// Whether exactly one bit is set (std::popcount is a libgcc call without -mpopcnt).
inline bool one_bit(std::uint8_t x) {
  return x != 0 && (x & (x - 1)) == 0;
}

// fill_single's conditions on the new share, and commit's test that every member's rate changes.
// `sum_caps()`: the members' caps summed in ch.flows order (the Local's caps).
template <class SumCaps>
inline bool share_applies(double capacity, std::size_t weight, double min_cap, double max_cap,
                          const SumCaps& sum_caps, double old_rate, double& share) {
  // The Local's caps must exceed its remaining capacity (the whole capacity: nothing is held). A
  // sum of positive terms is at least its largest, so that decides unless the largest is at most
  // the capacity.
  if (!(max_cap > capacity) && sum_caps() <= capacity) return false;
  share = capacity / static_cast<double>(static_cast<std::uint32_t>(weight));
  if (!(min_cap > share) || !(share < kInf)) return false;
  share = std::max(0.0, share);
  return !(old_rate > 0.0 && std::fabs(share - old_rate) <= kSameRate * std::max(share, old_rate));
}

}  // namespace sim::net::flow
