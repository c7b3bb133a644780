#include "feasibility.hpp"

#include <algorithm>
#include <utility>

#include "sim/policy/memory_rule.hpp"

namespace sim::platform::serverless {

MemoryCharge memory_charge(const Fn& fn, const policy::InstanceConfig& c, ContainerMemory mode) {
  if (!fn.spec.gpu) return {};
  if (c.time_slice_gb > 0) return {c.time_slice_gb, 0.0};
  if (mode == ContainerMemory::kBatchFootprint || c.cpu_threads > 0) return {fn.device_gb, 0.0};
  const double weights = std::min(fn.bytes / 1e9, fn.device_gb);
  return {weights, fn.device_gb - weights};
}

bool fits(const Fn& fn, const policy::InstanceConfig& c, const policy::Location& loc, double bytes,
          const Hosts& hosts, std::span<const Inst* const> on_host, ContainerMemory mode,
          double freed_gb) {
  if (loc.host < 0 || static_cast<std::size_t>(loc.host) >= hosts.size()) return false;
  const auto& h = *hosts[static_cast<std::size_t>(loc.host)];
  if (!h.available || h.gone) return false;
  if (h.free_bytes() < bytes) return false;
  if (c.max_batch < 1) return false;
  if (!fn.spec.gpu) {
    if (loc.gpu >= 0 || c.cpu_cores <= 0 || c.time_slice_gb > 0 || c.cpu_threads > 0) {
      return false;
    }
    if (c.max_batch > fn.model->cpu->max_batch()) return false;
    return h.spec.cores - h.reserved_cores >= c.cpu_cores;
  }
  if (loc.gpu < 0 || static_cast<std::size_t>(loc.gpu) >= h.gpus.size()) return false;
  if (c.gpu_share <= 0 || c.gpu_share > 1) return false;
  const auto& g = *h.gpus[static_cast<std::size_t>(loc.gpu)];
  if (g.mig() ? (loc.slice < 0 || static_cast<std::size_t>(loc.slice) >= g.places())
              : loc.slice != -1) {
    return false;
  }
  if (!g.place_enabled(loc.slice)) return false;
  // Instances already on this GPU or slice.
  int sliced = 0;
  int others = 0;
  double op_share = 0.0;
  const MemoryCharge charge = memory_charge(fn, c, mode);
  double resident = charge.resident_gb;      // weights of the place's instances and this one
  double activation = charge.activation_gb;  // the largest activations among them
  for (const Inst* i : on_host) {
    if (!i->fn->spec.gpu || i->loc != loc) continue;
    ++(i->config.time_slice_gb > 0 ? sliced : others);
    if (i->config.cpu_threads > 0) op_share += i->config.gpu_share;
    resident += i->device_gb;
    activation = std::max(activation, i->activation_gb);
  }
  if (c.time_slice_gb > 0) {
    // cGPU: co-located time-sliced functions only, each in its own window.
    if (!fn.model->cgpu || g.mig() || c.cpu_threads > 0 || others > 0) return false;
    if (!time_slice_window(fn, loc, c.time_slice_gb, on_host)) return false;
  } else {
    if (sliced > 0) return false;
    if (g.sharing() == cluster::GpuSharing::kExclusive && g.instances(loc.slice) > 0) return false;
  }
  if (c.cpu_threads > 0) {
    // INFless: SM shares of operator-profile instances partition the GPU.
    if (!fn.model->operators || op_share + c.gpu_share > 1.0 + 1e-9) return false;
    if (h.spec.cores - h.reserved_cores < c.cpu_threads) return false;
  }
  // The memory rule the placement policies see too (policy::container_fits).
  const double capacity = g.place_memory_gb(loc.slice);
  return policy::memory_fits(capacity - g.reserved_gb(loc.slice) + freed_gb, charge.resident_gb,
                             resident, activation, capacity);
}

std::optional<double> time_slice_window(const Fn& fn, const policy::Location& loc, double m_gb,
                                        std::span<const Inst* const> on_host) {
  // Windows in GB units of the cycle [0, M_max): first fit. All time-sliced instances of a GPU
  // must share tau and M_max, or their cycles would not line up.
  const auto& cg = *fn.model->cgpu;
  std::vector<std::pair<double, double>> used;
  for (const Inst* i : on_host) {
    if (i->loc != loc || i->config.time_slice_gb <= 0) continue;
    const auto& other = *i->fn->model->cgpu;
    if (other.tau_s.value != cg.tau_s.value || other.m_max_gb.value != cg.m_max_gb.value) {
      return std::nullopt;
    }
    used.emplace_back(i->window_gb, i->window_gb + i->config.time_slice_gb);
  }
  std::sort(used.begin(), used.end());
  double at = 0.0;
  for (const auto& [from, to] : used) {
    if (from - at >= m_gb - 1e-9) break;
    at = std::max(at, to);
  }
  if (at + m_gb > cg.m_max_gb.value + 1e-9) return std::nullopt;
  return at;
}

}  // namespace sim::platform::serverless
