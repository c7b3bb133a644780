#pragma once
/// Keep-alive and pre-warming: how long an idle instance is kept, and which instances to start
/// ahead of demand.

#include "sim/policy/decisions.hpp"
#include "sim/policy/policy.hpp"

namespace sim::policy {

class KeepAlive : public Policy {
 public:
  /// Called when `instance` becomes idle and no batch is formed for it at once: it is stopped
  /// after this much idle time (Time::max() = never) unless work arrives first. `function` is
  /// the whole view of the function at that moment, as PlatformView::functions would show it
  /// then: arrival rates over PlatformView::rate_windows, queue and instance counts (`instance`
  /// itself counted idle).
  virtual Time idle_timeout(const InstanceView& instance, const FunctionView& function) = 0;
  /// Called at every control tick: instances to start ahead of demand, as the other tick
  /// policies' Decisions (applied by the same code; usually only `start`).
  virtual Decisions prewarm(const PlatformView& view) = 0;
};

}  // namespace sim::policy
