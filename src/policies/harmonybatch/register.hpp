#pragma once
/// Registers the harmonybatch policy family (one line per policy) in the policy registry.

#include "sim/policy/policy_registry.hpp"

namespace sim::policy::harmonybatch {

void register_policies(PolicyRegistry& registry);

}  // namespace sim::policy::harmonybatch
