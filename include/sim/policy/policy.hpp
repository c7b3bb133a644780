#pragma once
/// The base of every policy and what each one is given when it is built.
///
/// A policy is selected in a scenario as a component, e.g. `"autoscaler": {"type":
/// "reactive-rate", "target_utilisation": 0.7}`; its parameters are declared once in a
/// config::Schema (see PolicyKind). It sees the platform only through the values it is passed
/// (PlatformView and the narrower views of each interface) and returns decisions as values.

#include <memory>
#include <string>

#include "sim/engine/random.hpp"

namespace sim::gpu {
class ModelCatalog;
}

namespace sim::policy {

/// Policy categories: the scenario key under `policies` and the component category.
inline constexpr const char* kBatcher = "batcher";
inline constexpr const char* kDispatcher = "dispatcher";
inline constexpr const char* kAutoscaler = "autoscaler";
inline constexpr const char* kPlacement = "placement";
inline constexpr const char* kGpuPartitioner = "gpu_partitioner";
inline constexpr const char* kKeepAlive = "keep_alive";
inline constexpr const char* kColdStartSourcing = "cold_start_sourcing";
inline constexpr const char* kProcurement = "procurement";
inline constexpr const char* kPlanner = "planner";

class Policy {
 public:
  virtual ~Policy() = default;
};

/// Built per policy instance: its own random stream, derived from the scenario seed and
/// "policy/<category>" so that adding a policy does not shift another's draws.
struct PolicyContext {
  RandomStream rng{0};
  /// The model catalog, for planners that need model coefficients (HarmonyBatch); may be
  /// null outside a platform.
  const gpu::ModelCatalog* catalog = nullptr;
};

}  // namespace sim::policy
