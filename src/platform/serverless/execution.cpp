#include "execution.hpp"

#include <cmath>
#include <optional>
#include <string>

#include "feasibility.hpp"
#include "sim/gpu_models/exclusive_unit.hpp"
#include "sim/gpu_models/solo_latency.hpp"
#include "sim/gpu_models/time_sliced_unit.hpp"

namespace sim::platform::serverless {

Execution reserve_execution(const Fn& fn, const policy::InstanceConfig& config,
                            const policy::Location& loc, InstanceId id, cluster::Host& host,
                            std::span<const Inst* const> on_host, Simulation& sim,
                            const ServerlessConfig& settings, ContainerMemory memory) {
  Execution e;
  if (fn.spec.gpu) {
    auto& g = *host.gpus[static_cast<std::size_t>(loc.gpu)];
    const std::string name =
        host.name + "/gpu" + std::to_string(loc.gpu) + "/instance" + std::to_string(id);
    const MemoryCharge charge = memory_charge(fn, config, memory);
    e.device_gb = charge.resident_gb;
    e.activation_gb = charge.activation_gb;
    if (config.time_slice_gb > 0) {
      // HarmonyBatch eq. 3-4: its own window of the GPU's time.
      e.window_gb = *time_slice_window(fn, loc, config.time_slice_gb, on_host);
      e.own_unit = std::make_unique<gpu::TimeSlicedUnit>(
          sim, name, g.type(),
          gpu::TimeSlicedUnit::options_for(*fn.model, config.time_slice_gb,
                                           e.window_gb * fn.model->cgpu->tau_s.value,
                                           settings.time_slice_mode));
      e.unit = e.own_unit.get();
    } else if (config.cpu_threads > 0) {
      // INFless §3.3: threads + SM share, latency from combined operator profiling.
      e.cores = config.cpu_threads;
      host.reserved_cores += e.cores;
      e.own_unit = std::make_unique<gpu::ExclusiveUnit>(
          sim, name,
          std::make_unique<gpu::OperatorProfileLatency>(
              config.cpu_threads, static_cast<int>(std::lround(100.0 * config.gpu_share))));
      e.unit = e.own_unit.get();
    } else {
      e.unit = &g.unit(loc.slice);
    }
    g.reserve(loc.slice, e.device_gb, e.activation_gb);
    return e;
  }
  e.cores = config.cpu_cores;
  host.reserved_cores += config.cpu_cores;
  e.own_unit = std::make_unique<gpu::ExclusiveUnit>(
      sim, host.name + "/cpu-instance" + std::to_string(id),
      std::make_unique<gpu::CpuFunctionLatency>(
          config.cpu_cores, settings.cpu_latency,
          settings.cpu_latency == gpu::CpuLatencyMode::kSampled
              ? std::optional<RandomStream>(
                    sim.rng("cpu-latency", "instance-" + std::to_string(id)))
              : std::nullopt));
  e.unit = e.own_unit.get();
  return e;
}

}  // namespace sim::platform::serverless
