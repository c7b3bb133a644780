#include "operator_placement.hpp"

#include <cmath>
#include <limits>

#include "resource_efficiency.hpp"
#include "schedule.hpp"

namespace sim::policy::infless {

std::optional<Location> OperatorPlacement::place(const PlacementRequest& request,
                                                 const PlatformView& view) {
  const FunctionView& f = *request.function;
  if (!f.gpu || request.config.cpu_threads <= 0) return std::nullopt;
  Configuration c;
  c.batch = request.config.max_batch;
  c.threads = request.config.cpu_threads;
  c.gpu_percent = static_cast<int>(std::lround(100.0 * request.config.gpu_share));
  ScheduleOptions o;
  o.model_bytes = f.model_bytes;
  o.device_memory_gb = f.device_memory_gb;
  const auto servers = servers_of(view);
  const double demand = unified_resource(c.threads, c.gpu_percent, beta_);
  std::optional<Location> best;
  double best_e = -std::numeric_limits<double>::infinity();
  for (const ServerState& s : servers) {
    const int g = gpu_for(s, c, o);
    if (g < 0) continue;
    const Location loc{s.host, s.gpus[static_cast<std::size_t>(g)].gpu, -1};
    if (!efficiency_) return loc;
    // Eq. (10) for a fixed configuration: only the fragment term differs between servers.
    const double e = resource_efficiency(1.0, demand, s.available(beta_), 1.0);
    if (e > best_e) {
      best_e = e;
      best = loc;
    }
  }
  return best;
}

}  // namespace sim::policy::infless
