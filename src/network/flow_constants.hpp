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
inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
// A channel's entry for a flow attached but not yet solved (a new flow): above every threshold,
// so the search always takes it in, and never counted in a held load.
inline constexpr double kUnsolved = kInf;

}  // namespace sim::net::flow
