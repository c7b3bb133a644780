#pragma once
/// Registers the flashpoint policy family (one line per policy) in the policy registry.

#include "sim/policy/policy_registry.hpp"

namespace sim::policy::flashpoint {

void register_policies(PolicyRegistry& registry);

}  // namespace sim::policy::flashpoint
