#pragma once
/// Procurement: requesting and releasing VMs (on-demand or spot), at control ticks.

#include "sim/policy/decisions.hpp"
#include "sim/policy/policy.hpp"

namespace sim::policy {

class Procurement : public Policy {
 public:
  /// Like every tick policy's, the whole result is applied (usually only request_vms and
  /// release_vms are set); its compute_time is not charged.
  virtual Decisions decide(const PlatformView& view) = 0;
};

}  // namespace sim::policy
