#include "first_fit.hpp"

namespace sim::policy::reference {

std::optional<Location> FirstFitPlacement::place(const PlacementRequest& request,
                                                 const PlatformView& view) {
  const FunctionView& f = *request.function;
  for (const auto& h : view.hosts) {
    if (!h.available || h.memory_free_bytes < f.model_bytes) continue;
    if (!f.gpu) {
      if (h.cores_free >= request.config.cpu_cores) return Location{h.index, -1, -1};
      continue;
    }
    for (std::size_t g = 0; g < h.gpus.size(); ++g) {
      const GpuView& gv = h.gpus[g];
      const bool exclusive = gv.sharing == GpuSharing::kExclusive;
      if (!gv.mig) {
        if ((!exclusive || gv.instances == 0) && gv.memory_free_gb >= f.device_memory_gb) {
          return Location{h.index, static_cast<int>(g), -1};
        }
        continue;
      }
      for (std::size_t s = 0; s < gv.slices.size(); ++s) {
        const SliceView& sv = gv.slices[s];
        if (sv.enabled && (!exclusive || sv.instances == 0) &&
            sv.memory_free_gb >= f.device_memory_gb) {
          return Location{h.index, static_cast<int>(g), static_cast<int>(s)};
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace sim::policy::reference
