#pragma once
// Constants shared by the parts of FlowNetwork (flow_network.cpp, flow_lifecycle.cpp,
// flow_solver.cpp); private to src/network.

#include <cstdint>
#include <limits>

namespace sim::net::flow {

// Rates that differ by less than this (relative) are treated as unchanged: no new event.
inline constexpr double kSameRate = 1e-12;
// Flows down to this factor below the cut level join the re-solved set, so that rounding in the
// level (or in rates that are equal in exact arithmetic) never leaves out a flow that changes.
inline constexpr double kCutMargin = 1.0 - 1e-9;
// A channel whose crossings sum to at most (1 - kFitSlack) of its capacity (less the margin)
// saturates at no level: far above the rounding of such sums (n * 2^-53 of the capacity).
inline constexpr double kFitSlack = 1e-6;
inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
// A channel's entry for a flow attached but not yet solved (a new flow): above every threshold,
// so the search always takes it in, and never counted in a held load.
inline constexpr double kUnsolved = kInf;
// A boundary channel's held load is the channel's load less its re-solved members' rates, and
// its load is then updated by their change, at most this many times in a row; then, and whenever
// flows joined or left the channel (drift set to this), it is summed again flow by flow. Each
// update is off by at most (2m + 2) * 2^-53 of the capacity (m members; every rate, partial sum
// and load is at most the capacity, as the channel stays unsaturated), so 64 updates stay within
// 64 * (2m + 2) * 2^-53 < 1e-11 of the capacity for m < 700: far inside the 1e-9 margin of the
// saturation tests, which are all a channel's load decides (docs/network.md "Rate allocation").
inline constexpr std::uint32_t kExactSum = 64;

}  // namespace sim::net::flow
