#pragma once
/// Reference autoscalers.

#include "sim/policy/autoscaler.hpp"

namespace sim::policy::reference {

/// "fixed-pool": keeps `instances` live instances of every function (starting what is
/// missing at each tick); never stops any.
class FixedPoolAutoscaler final : public Autoscaler {
 public:
  explicit FixedPoolAutoscaler(int instances) : instances_(instances) {}
  Decisions decide(const PlatformView& view) override;

 private:
  int instances_;
};

/// "reactive-rate": per function, the instances needed to serve the observed arrival rate at
/// a target utilisation, n = ceil(rate / (target * max_batch / batch_latency)), with at least
/// one instance while requests wait, between min_instances and max_instances. It starts what
/// is missing; with scale_down it also stops idle instances above n (newest first),
/// otherwise idle instances are left to the keep-alive policy.
class ReactiveRateAutoscaler final : public Autoscaler {
 public:
  struct Config {
    double target_utilisation = 0.7;
    int window = 0;  ///< index into PlatformView::rate_windows
    int min_instances = 0;
    int max_instances = 1000;
    bool scale_down = false;
  };
  explicit ReactiveRateAutoscaler(Config c) : config_(c) {}
  Decisions decide(const PlatformView& view) override;
  /// The instance count the rule asks for (exposed for tests).
  [[nodiscard]] int desired(const FunctionView& f, const PlatformView& view) const;

 private:
  Config config_;
};

}  // namespace sim::policy::reference
