#pragma once
/// "warm-pool" planner: the evaluation's runs start from a steady state rather than an empty
/// cluster (the thesis's Fig. 3.2 run has 19 replicas serving before its first burst): at time
/// zero, `instances` warm replicas of every GPU function (StartInstance::warm), placed by the
/// placement policy. Not Flashpoint-specific: any family's scenario may select it as a start
/// state (Protean Table 5: §4.1 assumes warm containers, docs/reproduction/protean.md).

#include "sim/policy/planner.hpp"

namespace sim::policy::flashpoint {

class WarmPoolPlanner final : public Planner {
 public:
  explicit WarmPoolPlanner(int instances) : instances_(instances) {}
  Decisions plan(const PlatformView& view) override;

 private:
  int instances_;
};

}  // namespace sim::policy::flashpoint
