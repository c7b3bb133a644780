#pragma once
/// Autoscaling: at every control tick, how many instances of which configuration to start or
/// stop.

#include <nlohmann/json.hpp>

#include "sim/policy/decisions.hpp"
#include "sim/policy/policy.hpp"

namespace sim::policy {

class Autoscaler : public Policy {
 public:
  virtual Decisions decide(const PlatformView& view) = 0;
  /// What the autoscaler observed of its own decisions over the run, for the summary (under
  /// `autoscaler`); null: nothing to report.
  [[nodiscard]] virtual nlohmann::json statistics() const { return nullptr; }
  /// The platform applied `s`, one of this autoscaler's start commands: `started` of its
  /// s.count instances (or partitioned replicas) started, the rest found no room or were
  /// invalid (counted in decisions.rejected). Called once per command, when the decision takes
  /// effect (after its compute time with charge_decision_time). Default: ignored.
  virtual void started(const StartInstance& /*s*/, int /*started*/) {}
};

}  // namespace sim::policy
