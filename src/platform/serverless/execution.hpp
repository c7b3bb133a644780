#pragma once
/// What an instance runs its batches on, by kind of instance: a GPU (or MIG slice) shared with
/// the device's other instances, its own window of a GPU's time (time-sliced, cGPU), its own
/// unit of CPU threads and an SM share (operator profiles), or its own CPU cores; and the
/// resources it reserves on its host for its lifetime.

#include <memory>
#include <span>

#include "model.hpp"

namespace sim::platform::serverless {

struct Execution {
  gpu::ExecutionUnit* unit = nullptr;
  std::unique_ptr<gpu::ExecutionUnit> own_unit;  ///< CPU, time-sliced, operator-profile
  double device_gb = 0.0;                        ///< GPU memory reserved
  double activation_gb = 0.0;                    ///< GPU memory per running batch
  double cores = 0.0;                            ///< host cores reserved
  double window_gb = 0.0;  ///< time-sliced: window start within the cycle, in GB units
};

/// Builds the execution unit of instance `id` of `fn` at `loc` (feasible: fits() held) and
/// reserves its GPU memory (memory_charge(fn, config, memory)) and cores on `host` (`on_host`:
/// the live instances there, as for fits()).
[[nodiscard]] Execution reserve_execution(const Fn& fn, const policy::InstanceConfig& config,
                                          const policy::Location& loc, InstanceId id,
                                          cluster::Host& host, std::span<const Inst* const> on_host,
                                          Simulation& sim, const ServerlessConfig& settings,
                                          ContainerMemory memory);

}  // namespace sim::platform::serverless
