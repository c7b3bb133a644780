#include "infless_autoscaler.hpp"

#include <algorithm>
#include <cmath>

#include "dispatch_rules.hpp"
#include "resource_efficiency.hpp"
#include "schedule.hpp"
#include "sim/gpu_models/model_profile.hpp"

namespace sim::policy::infless {

namespace {

bool serving(const InstanceView& i) {
  return i.state == InstanceState::kColdStarting || i.state == InstanceState::kIdle ||
         i.state == InstanceState::kBusy;
}

}  // namespace

Decisions InflessAutoscaler::decide(const PlatformView& view) {
  Decisions d;
  std::vector<ServerState> servers = servers_of(view);
  const double beta = conversion_factor(config_.cpu_gflops_per_thread, config_.gpu_gflops);
  // The serving instances of each function, in the view's order: one pass over the instances
  // rather than one per function.
  std::vector<std::vector<const InstanceView*>> serving_of;
  for (const InstanceView& i : view.instances) {
    if (!serving(i)) continue;
    if (i.function >= serving_of.size()) serving_of.resize(i.function + 1);
    serving_of[i.function].push_back(&i);
  }
  const std::vector<const InstanceView*> none;
  for (const FunctionView& f : view.functions) {
    if (f.profile == nullptr || !f.profile->operators || !f.gpu) continue;
    if (f.id >= memo_.size()) memo_.resize(f.id + 1);
    const LatencyPredictor predictor(*f.profile->operators, config_.latency_factor, &memo_[f.id]);
    const double slo = config_.slo.of(f.name).to_seconds();
    double rate =
        config_.rate_window < f.arrival_rate.size() ? f.arrival_rate[config_.rate_window] : 0.0;
    // Scale from zero: a request waits and nothing serves it yet.
    if (f.live() == 0 && f.queue_length > 0) rate = std::max(rate, 1.0);
    std::vector<RateBounds> bounds;
    std::vector<InstanceId> ids;
    const std::vector<const InstanceView*>& mine =
        f.id < serving_of.size() ? serving_of[f.id] : none;
    for (const InstanceView* ip : mine) {
      const InstanceView& i = *ip;
      const auto t = predictor.t_exec_s(i.config.max_batch, i.config.cpu_threads,
                                        static_cast<int>(std::lround(100.0 * i.config.gpu_share)));
      const double t_exec = t ? *t : i.batch_latency_s * predictor.factor();
      bounds.push_back(rate_bounds(t_exec, slo, i.config.max_batch));
      ids.push_back(i.id);
    }
    if (rate > 0.0) {
      Activity& a = activity_[f.id];
      if (!a.last || view.now - *a.last >= config_.release_hold) a.since = view.now;
      a.last = view.now;
    }
    auto& hist = history_[f.id];
    while (!hist.empty() && hist.front().first + config_.release_hold <= view.now)
      hist.pop_front();
    const DispatchPlan plan = dispatch_rates(rate, bounds, config_.alpha);
    if (plan.which == DispatchCase::kOverload) {
      // Rule (i): Schedule (Algorithm 1) for the residual R - R_max.
      ScheduleOptions o;
      const int max_batch = config_.max_batch > 0 ? config_.max_batch : f.config.max_batch;
      o.batches = config_.batching ? batch_set(max_batch) : std::vector<int>{1};
      o.t_slo_s = slo;
      o.beta = beta;
      o.resource_scheduling = config_.resource_scheduling;
      o.rs_off_per_resource = config_.rs_off_per_resource;
      o.model_bytes = f.model_bytes;
      o.device_memory_gb = f.device_memory_gb;
      for (const PlacedInstance& p : schedule(plan.residual, o, predictor, servers)) {
        d.start.push_back({f.id, 1, instance_config(p.config), p.location});
      }
    } else if (plan.which == DispatchCase::kRelease && config_.release) {
      // Rule (iii): release until rule (ii) holds again, for the largest R of the hold.
      double held = rate;
      for (const auto& [t, r] : hist)
        held = std::max(held, r);
      const Activity& a = activity_[f.id];
      if (!config_.hold_after_quiet || view.now - a.since >= config_.release_hold) {
        for (std::size_t k : release_set(held, bounds, config_.alpha))
          d.stop.push_back({ids[k]});
      }
    }
    hist.emplace_back(view.now, rate);
  }
  return d;
}

}  // namespace sim::policy::infless
