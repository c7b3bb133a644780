#include "autoscalers.hpp"

#include <algorithm>
#include <cmath>

namespace sim::policy::reference {

Decisions FixedPoolAutoscaler::decide(const PlatformView& view) {
  Decisions d;
  for (const auto& f : view.functions) {
    const int missing = instances_ - f.live();
    if (missing > 0) d.start.push_back({f.id, missing, std::nullopt, std::nullopt});
  }
  return d;
}

int ReactiveRateAutoscaler::desired(const FunctionView& f, const PlatformView& view) const {
  double rate = 0.0;
  if (!f.arrival_rate.empty()) {
    const auto w = static_cast<std::size_t>(
        std::clamp(config_.window, 0, static_cast<int>(f.arrival_rate.size()) - 1));
    rate = f.arrival_rate[w];
  }
  (void)view;
  // One instance serves max_batch requests per batch_latency at full load.
  const double per_instance =
      f.batch_latency_s > 0 ? static_cast<double>(f.config.max_batch) / f.batch_latency_s : 0.0;
  int n = 0;
  if (per_instance > 0) {
    n = static_cast<int>(std::ceil(rate / (config_.target_utilisation * per_instance) - 1e-9));
  } else if (rate > 0) {
    n = 1;
  }
  if (f.queue_length > 0) n = std::max(n, 1);
  return std::clamp(n, config_.min_instances, config_.max_instances);
}

Decisions ReactiveRateAutoscaler::decide(const PlatformView& view) {
  Decisions d;
  for (const auto& f : view.functions) {
    const int n = desired(f, view);
    const int live = f.live();
    if (n > live) {
      d.start.push_back({f.id, n - live, std::nullopt, std::nullopt});
    } else if (config_.scale_down && n < live) {
      int excess = live - n;
      // Newest idle instances first (instances are ordered by id).
      for (auto it = view.instances.rbegin(); it != view.instances.rend() && excess > 0; ++it) {
        if (it->function == f.id && it->state == InstanceState::kIdle) {
          d.stop.push_back({it->id});
          --excess;
        }
      }
    }
  }
  return d;
}

}  // namespace sim::policy::reference
