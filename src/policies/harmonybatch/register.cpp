// The harmonybatch policy family: one registration line per policy.

#include "sim/policy/harmonybatch/register.hpp"

#include "sim/policy/harmonybatch/deploy_planner.hpp"

namespace sim::policy::harmonybatch {

void register_policies(PolicyRegistry& registry) {
  registry.add(deploy_planner_kind());
}

}  // namespace sim::policy::harmonybatch
