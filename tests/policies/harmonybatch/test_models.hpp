#pragma once
// The HarmonyBatch models of the repository catalog (data/models/harmonybatch.json), as the
// planner reads them.

#include <string>

#include "harmonybatch/plan_types.hpp"
#include "sim/gpu_models/model_catalog.hpp"

namespace sim::policy::harmonybatch::testing {

inline const gpu::ModelCatalog& catalog() {
  static const gpu::ModelCatalog c =
      gpu::ModelCatalog::load(std::string(SIM_SOURCE_DIR) + "/data/models");
  return c;
}

inline PlannerModel model(const std::string& name) {
  return PlannerModel::from_profile(catalog().model("harmonybatch/" + name));
}

}  // namespace sim::policy::harmonybatch::testing
