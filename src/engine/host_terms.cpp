#include "sim/engine/host_terms.hpp"

#include <stdexcept>

namespace sim {

const char* to_string(Market m) {
  switch (m) {
    case Market::kOwned:
      return "owned";
    case Market::kOnDemand:
      return "on-demand";
    case Market::kSpot:
      return "spot";
  }
  return "?";
}

Market parse_market(const std::string& s) {
  if (s == "owned") return Market::kOwned;
  if (s == "on-demand") return Market::kOnDemand;
  if (s == "spot") return Market::kSpot;
  throw std::invalid_argument("market must be \"owned\", \"on-demand\" or \"spot\", found \"" + s +
                              "\"");
}

const char* to_string(GpuSharing s) {
  switch (s) {
    case GpuSharing::kExclusive:
      return "exclusive";
    case GpuSharing::kMps:
      return "mps";
    case GpuSharing::kTimeSlice:
      return "time-slice";
  }
  return "?";
}

GpuSharing parse_gpu_sharing(const std::string& s) {
  if (s == "exclusive") return GpuSharing::kExclusive;
  if (s == "mps") return GpuSharing::kMps;
  if (s == "time-slice") return GpuSharing::kTimeSlice;
  throw std::invalid_argument(
      "GPU sharing must be \"exclusive\", \"mps\" or \"time-slice\", found \"" + s + "\"");
}

}  // namespace sim
