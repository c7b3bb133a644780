#pragma once
/// Resolving the workload's functions against the catalog and the cluster (FunctionSpec ->
/// Fn), and grouping them into queues. Runs once, before time zero; every problem is an
/// std::invalid_argument naming the function.

#include <memory>
#include <vector>

#include "model.hpp"
#include "sim/traces/arrival_source.hpp"

namespace sim::platform::serverless {

struct FunctionTable {
  std::vector<std::unique_ptr<Fn>> functions;  ///< by workload function id
  std::vector<std::unique_ptr<Queue>> queues;  ///< by first member function id
  /// The first GPU type of the cluster: the functions' planning latencies are on it.
  const gpu::GpuType* planning_gpu = nullptr;
};

/// Every function the workload names (`labels`) needs a spec in config.functions. `sim` hosts
/// the throw-away units that predict a time-sliced function's latency.
[[nodiscard]] FunctionTable build_function_table(const ServerlessConfig& config,
                                                 const gpu::ModelCatalog& catalog, Simulation& sim,
                                                 const traces::WorkloadLabels* labels);

}  // namespace sim::platform::serverless
