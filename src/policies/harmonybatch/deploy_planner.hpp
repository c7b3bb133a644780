#pragma once
/// The HarmonyBatch system on the serverless platform: an offline Planner that, at time zero,
/// computes the plan of HarmonyBatch, BATCH or MBS+ for the scenario's applications and starts
/// each group's instances (CPU functions with the plan's vCPUs, cGPU time-sliced GPU functions
/// with its GPU memory, both with its batch size). The scenario declares the matching functions
/// (function_name(), queue_group_name(), per-application timeouts); `dcsim plan --scenario`
/// writes such a scenario. A mismatch is an error naming the function.

#include <optional>
#include <string>
#include <vector>

#include "plan_types.hpp"
#include "sim/gpu_models/model_catalog.hpp"
#include "sim/policy/planner.hpp"
#include "sim/policy/policy_registry.hpp"

namespace sim::policy::harmonybatch {

class DeployPlanner final : public Planner {
 public:
  struct Config {
    std::string algorithm = "harmonybatch";
    std::string model;
    std::vector<Application> apps;
    PlannerOptions options;
    int instances = 0;  ///< per group; 0: instances_for()
  };
  /// `catalog` must outlive the planner.
  DeployPlanner(Config config, const gpu::ModelCatalog* catalog);
  Decisions plan(const PlatformView& view) override;

 private:
  struct FreeResources {
    std::vector<double> cores;                ///< by host
    std::vector<std::vector<double>> gpu_gb;  ///< by host, GPU
  };
  static std::optional<Location> place(const InstanceConfig& c, bool gpu, FreeResources& free);

  Config config_;
  const gpu::ModelCatalog* catalog_;
};

PolicyKind deploy_planner_kind();

}  // namespace sim::policy::harmonybatch
