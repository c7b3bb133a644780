// The harmonybatch policy family: one registration line per policy.

#include "register.hpp"

#include "deploy_planner.hpp"

namespace sim::policy::harmonybatch {

void register_policies(PolicyRegistry& registry) {
  registry.add(deploy_planner_kind());
}

}  // namespace sim::policy::harmonybatch
