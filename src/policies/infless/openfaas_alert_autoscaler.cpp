#include "openfaas_alert_autoscaler.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "configuration_space.hpp"
#include "schedule.hpp"
#include "sim/gpu_models/model_profile.hpp"

namespace sim::policy::infless {

int openfaas_step(int max_replicas, double scaling_factor) {
  return std::max(1, static_cast<int>(std::ceil(max_replicas * scaling_factor - 1e-9)));
}

bool OpenFaasAlertAutoscaler::firing(std::uint32_t function) const {
  const auto it = alerts_.find(function);
  return it != alerts_.end() && it->second.firing;
}

Decisions OpenFaasAlertAutoscaler::decide(const PlatformView& view) {
  Decisions d;
  // The cluster's free resources are read only on a tick that starts replicas: most ticks
  // start none, and servers_of scans every host and live instance.
  std::optional<std::vector<ServerState>> servers;
  const int step = openfaas_step(config_.max_replicas, config_.scaling_factor);
  for (const FunctionView& f : view.functions) {
    if (f.profile == nullptr || !f.profile->operators || !f.gpu) continue;
    AlertState& a = alerts_[f.id];
    // Prometheus's rate over the last rate_span, from the platform's per-tick window rates.
    const double sample =
        config_.rate_window < f.arrival_rate.size() ? f.arrival_rate[config_.rate_window] : 0.0;
    a.samples.emplace_back(view.now, sample);
    while (!a.samples.empty() && a.samples.front().first <= view.now - config_.rate_span)
      a.samples.pop_front();
    double sum = 0.0;
    for (const auto& s : a.samples)
      sum += s.second;
    const double rate = sum / static_cast<double>(a.samples.size());

    int live = 0;
    std::vector<InstanceId> idle;
    for (const InstanceView& i : view.instances) {
      if (i.function != f.id || i.state == InstanceState::kDraining) continue;
      ++live;
      if (i.state == InstanceState::kIdle) idle.push_back(i.id);
    }
    const double measured = config_.per_replica ? rate / std::max(1, live) : rate;
    int want = live;
    if (measured > config_.threshold_rps) {
      if (!a.pending) {
        a.pending = true;
        a.pending_since = view.now;
      }
      if (!a.firing && view.now - a.pending_since >= config_.for_duration) {
        a.firing = true;
        a.next_notification = view.now + config_.group_wait;
      }
      if (a.firing && view.now >= a.next_notification) {
        want = std::min(config_.max_replicas, live + step);
        a.next_notification = view.now + config_.repeat_interval;
      }
    } else {
      if (a.firing && config_.resolved_to_min) {
        for (std::size_t k = 0;
             k < idle.size() && live - static_cast<int>(k) > config_.min_replicas; ++k)
          d.stop.push_back({idle[k]});
      }
      a.pending = false;
      a.firing = false;
    }
    // Scale from zero: the gateway holds the request and asks for min_replicas.
    if (live == 0 && f.queue_length > 0) want = std::max(want, config_.min_replicas);
    if (want <= live) continue;

    const LatencyPredictor predictor(*f.profile->operators, std::nullopt);
    const auto t = predictor.t_exec_s(config_.batch, config_.threads, config_.gpu_percent);
    if (!t) continue;  // the fixed configuration was not profiled for this model
    const double slo = config_.slo.of(f.name).to_seconds();
    const Configuration c{config_.batch, config_.threads, config_.gpu_percent, *t,
                          rate_bounds(*t, slo, config_.batch)};
    ScheduleOptions o;
    o.model_bytes = f.model_bytes;
    o.device_memory_gb = f.device_memory_gb;
    // First fit, as for the other baselines (Kubernetes' own scoring is not modelled).
    if (!servers) servers = servers_of(view);
    place_first_fit(f.id, c, o, want - live, *servers, d.start);
  }
  return d;
}

}  // namespace sim::policy::infless
