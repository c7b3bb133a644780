#pragma once
/// GPU partitioning: MIG geometry changes, decided at control ticks.

#include "sim/policy/decisions.hpp"
#include "sim/policy/policy.hpp"

namespace sim::policy {

class GpuPartitioner : public Policy {
 public:
  /// Like every tick policy's, the whole result is applied (usually only `reconfigure` is
  /// set); its compute_time is not charged.
  virtual Decisions decide(const PlatformView& view) = 0;
};

}  // namespace sim::policy
