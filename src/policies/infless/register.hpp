#pragma once
/// Registers the infless policy family (one line per policy) in the policy registry.

#include "sim/policy/policy_registry.hpp"

namespace sim::policy::infless {

void register_policies(PolicyRegistry& registry);

}  // namespace sim::policy::infless
