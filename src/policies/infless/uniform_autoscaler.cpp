#include "uniform_autoscaler.hpp"

#include <algorithm>
#include <cmath>

#include "resource_efficiency.hpp"
#include "schedule.hpp"
#include "sim/gpu_models/model_profile.hpp"

namespace sim::policy::infless {

std::optional<Configuration> uniform_choice(const LatencyPredictor& predictor, int max_batch,
                                            double rate, double t_slo_s, double beta) {
  std::optional<Configuration> best;
  double best_eff = -1.0;
  for (int b : batch_set(max_batch)) {
    for (const Configuration& c : available_configs(predictor, b, rate, t_slo_s)) {
      const double eff = c.bounds.r_up / unified_resource(c.threads, c.gpu_percent, beta);
      if (eff > best_eff) {  // batch sizes visited descending: ties keep the larger batch
        best_eff = eff;
        best = c;
      }
    }
  }
  return best;
}

std::optional<Configuration> largest_batch_choice(const LatencyPredictor& predictor, int max_batch,
                                                  const std::vector<ResourceTier>& tiers,
                                                  double t_slo_s, double beta) {
  for (int b : batch_set(max_batch)) {
    const double budget = b > 1 ? t_slo_s / 2.0 : t_slo_s;
    std::optional<Configuration> best;
    double best_cost = 0.0;
    for (const ResourceTier& tier : tiers) {
      const auto t = predictor.t_exec_s(b, tier.threads, tier.gpu_percent);
      if (!t || *t > budget) continue;
      const double cost = unified_resource(tier.threads, tier.gpu_percent, beta);
      if (!best || cost < best_cost) {
        best_cost = cost;
        best = Configuration{b, tier.threads, tier.gpu_percent, *t, rate_bounds(*t, t_slo_s, b)};
      }
    }
    if (best && best->bounds.r_up > 0) return best;
  }
  return std::nullopt;
}

Decisions UniformAutoscaler::decide(const PlatformView& view) {
  Decisions d;
  std::vector<ServerState> servers = servers_of(view);
  const double beta = conversion_factor(config_.cpu_gflops_per_thread, config_.gpu_gflops);
  for (const FunctionView& f : view.functions) {
    if (f.profile == nullptr || !f.profile->operators || !f.gpu) continue;
    const LatencyPredictor predictor(*f.profile->operators, std::nullopt);
    const double slo = config_.slo.of(f.name).to_seconds();
    double rate =
        config_.rate_window < f.arrival_rate.size() ? f.arrival_rate[config_.rate_window] : 0.0;
    if (f.live() == 0 && f.queue_length > 0) rate = std::max(rate, 1.0);
    if (rate <= 0.0) continue;
    auto it = chosen_.find(f.id);
    // The efficiency rule re-chooses its configuration for the current rate whenever it scales
    // up (new instances use it; older ones stay until the keep-alive reclaims them). BATCH's
    // largest-batch choice does not depend on the rate, so it is made once per function.
    const bool rising = it == chosen_.end() || rate > f.live() * it->second.bounds.r_up;
    if (rising && config_.batch == 0 && config_.rule == BatchRule::kEfficiency) {
      chosen_.erase(f.id);
      it = chosen_.end();
    }
    if (it == chosen_.end()) {
      std::optional<Configuration> c;
      if (config_.batch > 0) {
        const auto t = predictor.t_exec_s(config_.batch, config_.threads, config_.gpu_percent);
        if (t)
          c = Configuration{config_.batch, config_.threads, config_.gpu_percent, *t,
                            rate_bounds(*t, slo, config_.batch)};
      } else {
        const int mb = config_.max_batch > 0 ? config_.max_batch : f.config.max_batch;
        c = config_.rule == BatchRule::kEfficiency
                ? uniform_choice(predictor, mb, rate, slo, beta)
                : largest_batch_choice(predictor, mb, config_.tiers, slo, beta);
      }
      if (!c || !(c->bounds.r_up > 0)) continue;
      it = chosen_.emplace(f.id, *c).first;
    }
    const Configuration& c = it->second;
    // Uniform scaling: n = ceil(R / r_up) instances of the one configuration.
    // Capacity of the live instances at their own configurations' r_up.
    double capacity = 0.0;
    int have = 0;
    for (const InstanceView& i : view.instances) {
      if (i.function != f.id || i.state == InstanceState::kDraining) continue;
      const auto t = predictor.t_exec_s(i.config.max_batch, i.config.cpu_threads,
                                        static_cast<int>(std::lround(100.0 * i.config.gpu_share)));
      capacity += t ? rate_bounds(*t, slo, i.config.max_batch).r_up : 0.0;
      ++have;
    }
    const int want =
        have + std::max(0, static_cast<int>(std::ceil((rate - capacity) / c.bounds.r_up - 1e-9)));
    if (want > have) {
      ScheduleOptions o;
      o.model_bytes = f.model_bytes;
      o.device_memory_gb = f.device_memory_gb;
      // First fit: the baselines place without INFless's resource scheduling.
      place_first_fit(f.id, c, o, want - have, servers, d.start);
    } else if (config_.scale_down && rate < capacity) {
      int surplus = static_cast<int>(std::floor((capacity - rate) / c.bounds.r_up));
      for (const InstanceView& i : view.instances) {
        if (surplus == 0) break;
        if (i.function == f.id && i.state == InstanceState::kIdle) {
          d.stop.push_back({i.id});
          --surplus;
        }
      }
    }
  }
  return d;
}

}  // namespace sim::policy::infless
