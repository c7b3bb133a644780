#include "sim/platform/fragmentation.hpp"

#include <algorithm>
#include <limits>

namespace sim::platform {

GpuFragmentation gpu_fragmentation(const policy::PlatformView& view) {
  GpuFragmentation out;
  double smallest = std::numeric_limits<double>::infinity();
  for (const auto& f : view.functions) {
    if (!f.gpu) continue;
    smallest = std::min(smallest,
                        f.config.time_slice_gb > 0 ? f.config.time_slice_gb : f.device_memory_gb);
  }
  const bool any_gpu_function = smallest < std::numeric_limits<double>::infinity();
  const auto place = [&](double free_gb, bool exclusive, int instances) {
    free_gb = std::max(free_gb, 0.0);
    out.free_gb += free_gb;
    if (!any_gpu_function) return;
    // Tiny negative/positive rounding of reservations must not count as free room.
    if ((exclusive && instances > 0) || free_gb + 1e-9 < smallest) out.stranded_gb += free_gb;
  };
  for (const auto& h : view.hosts) {
    if (!h.available) continue;
    for (const auto& g : h.gpus) {
      const bool exclusive = g.sharing == policy::GpuSharing::kExclusive;
      if (!g.mig) {
        place(g.memory_free_gb, exclusive, g.instances);
        continue;
      }
      for (const auto& s : g.slices)
        if (s.enabled) place(s.memory_free_gb, exclusive, s.instances);
    }
  }
  return out;
}

}  // namespace sim::platform
