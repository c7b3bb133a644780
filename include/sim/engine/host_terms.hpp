#pragma once
/// How a host is paid for and how its GPUs are shared. One type each for the whole simulator:
/// the cluster builds hosts with them (sim::cluster), the policies' views report them and the
/// procurement policies request them (sim::policy); each layer names them through a
/// using-declaration, so a value is copied, never translated.

#include <cstdint>
#include <string>

namespace sim {

/// How a host is paid for.
enum class Market : std::uint8_t { kOwned, kOnDemand, kSpot };
/// "owned", "on-demand", "spot".
const char* to_string(Market m);
/// Inverse of to_string; throws std::invalid_argument otherwise.
Market parse_market(const std::string& s);

/// How a GPU (or each of its MIG slices) is shared by the instances placed on it.
/// kExclusive: one instance per GPU or slice; kMps: several, SM-capped (MPS); kTimeSlice:
/// several containers' contexts time-share the GPU or slice (no MPS; cGPU windows).
enum class GpuSharing : std::uint8_t { kExclusive, kMps, kTimeSlice };
/// "exclusive", "mps", "time-slice".
const char* to_string(GpuSharing s);
/// Inverse of to_string; throws std::invalid_argument otherwise.
GpuSharing parse_gpu_sharing(const std::string& s);

}  // namespace sim
