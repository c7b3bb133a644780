#pragma once
/// Reference offline planners.

#include "sim/policy/planner.hpp"

namespace sim::policy::reference {

/// "none": plans nothing; the autoscaler starts every instance.
class NoPlanner final : public Planner {
 public:
  Decisions plan(const PlatformView&) override { return {}; }
};

/// "initial-pool": at time zero, starts `instances` instances of every function with its
/// default configuration, placed by the placement policy (warm capacity before the first
/// request; the keep-alive and autoscaler policies decide what happens to them later).
class InitialPoolPlanner final : public Planner {
 public:
  explicit InitialPoolPlanner(int instances) : instances_(instances) {}
  Decisions plan(const PlatformView& view) override;

 private:
  int instances_;
};

}  // namespace sim::policy::reference
