#pragma once
/// OpenFaaS's own auto-scaling, the one INFless's OpenFaaS+ baseline inherits (INFless §5.1,
/// Table 3: no function profiling, uniform scaling, fixed keep-alive). OpenFaaS scales on a
/// Prometheus alert, not on a model of the function:
///   - rule APIHighInvocationRate: rate(invocations[10s]) > 5 req/s, held `for: 5s`;
///   - AlertManager notifies the gateway group_wait (5 s) after the alert fires and again
///     every repeat_interval (30 s) while it keeps firing;
///   - each notification adds ceil(max_replicas * scaling_factor) replicas, at most
///     max_replicas (defaults 20 and 20%: steps of 4);
///   - a request for a function with no replica scales it from zero to min_replicas (1).
/// (OpenFaaS CE defaults: faas alert.rules, the helm chart's alertmanager.yml, and the
/// gateway's com.openfaas.scale.{min,max,factor} labels.) Every replica has the same fixed
/// configuration (INFless: batch 1, 2 threads, 10% of the SMs), placed first fit.
/// Releases: INFless gives OpenFaaS+ a fixed 300 s keep-alive, so by default the keep-alive
/// policy reclaims idle replicas; `resolved_to_min` instead stops idle replicas above the
/// minimum when the alert resolves, as the stock gateway does.

#include <cstdint>
#include <deque>
#include <map>

#include "sim/engine/time.hpp"
#include "sim/policy/autoscaler.hpp"
#include "slo_map.hpp"

namespace sim::policy::infless {

struct OpenFaasAlertConfig {
  SloMap slo;                    ///< only to price the fixed configuration's latency
  std::size_t rate_window = 0;   ///< the platform window sampled at every control tick
  Time rate_span = seconds(10);  ///< Prometheus rate(...[10s])
  double threshold_rps = 5.0;
  bool per_replica = false;  ///< compare rate / replicas instead of the function's rate
  Time for_duration = seconds(5);
  Time group_wait = seconds(5);
  Time repeat_interval = seconds(30);
  int min_replicas = 1;
  int max_replicas = 20;
  double scaling_factor = 0.2;
  bool resolved_to_min = false;
  int batch = 1;
  int threads = 2;
  int gpu_percent = 10;
};

/// The replicas one notification adds: ceil(max_replicas * scaling_factor), at least 1.
int openfaas_step(int max_replicas, double scaling_factor);

class OpenFaasAlertAutoscaler final : public Autoscaler {
 public:
  explicit OpenFaasAlertAutoscaler(OpenFaasAlertConfig config) : config_(std::move(config)) {}
  Decisions decide(const PlatformView& view) override;

  /// Whether the function's alert is firing after the last decide() (for tests and traces).
  [[nodiscard]] bool firing(std::uint32_t function) const;

 private:
  struct AlertState {
    std::deque<std::pair<Time, double>> samples;  ///< (tick, rate of the platform window)
    bool pending = false;
    Time pending_since;
    bool firing = false;
    Time next_notification;
  };
  OpenFaasAlertConfig config_;
  std::map<std::uint32_t, AlertState> alerts_;
};

}  // namespace sim::policy::infless
