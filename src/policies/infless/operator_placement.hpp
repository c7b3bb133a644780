#pragma once
/// Placement of operator-profile instances (INFless §3.4): the server with the largest resource
/// efficiency (eq. 10) for the instance's configuration, or the first one that fits; both count
/// free CPU threads, free SM shares (MPS) and GPU memory, which the reference first-fit does not.

#include "sim/policy/placement.hpp"

namespace sim::policy::infless {

class OperatorPlacement final : public Placement {
 public:
  OperatorPlacement(bool efficiency, double beta) : efficiency_(efficiency), beta_(beta) {}
  std::optional<Location> place(const PlacementRequest& request, const PlatformView& view) override;

 private:
  bool efficiency_;
  double beta_;
};

}  // namespace sim::policy::infless
