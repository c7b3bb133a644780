#pragma once
/// Reference keep-alive policies.

#include "sim/policy/keep_alive.hpp"

namespace sim::policy::reference {

/// "fixed": an idle instance is stopped after `keep_alive` (the fixed window of OpenWhisk and
/// of the Azure study's baseline); pre-warming keeps at least `min_warm` live instances of
/// every function (started at ticks).
class FixedKeepAlive final : public KeepAlive {
 public:
  FixedKeepAlive(Time keep_alive, int min_warm) : keep_alive_(keep_alive), min_warm_(min_warm) {}
  Time idle_timeout(const InstanceView& instance, const FunctionView& function) override;
  Decisions prewarm(const PlatformView& view) override;

 private:
  Time keep_alive_;
  int min_warm_;
};

/// "forever": instances are never stopped for being idle; no pre-warming.
class KeepForever final : public KeepAlive {
 public:
  Time idle_timeout(const InstanceView&, const FunctionView&) override { return Time::max(); }
  Decisions prewarm(const PlatformView&) override { return {}; }
};

}  // namespace sim::policy::reference
