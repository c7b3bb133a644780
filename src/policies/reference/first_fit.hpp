#pragma once
/// Reference placement.

#include "sim/policy/placement.hpp"

namespace sim::policy::reference {

/// "first-fit": the first available host (by index) with the memory (and, for CPU functions,
/// the cores), and on it the first GPU and slice (by index) with room: enough free device
/// memory, and no other instance when the GPU is exclusive.
class FirstFitPlacement final : public Placement {
 public:
  std::optional<Location> place(const PlacementRequest& request, const PlatformView& view) override;
};

}  // namespace sim::policy::reference
