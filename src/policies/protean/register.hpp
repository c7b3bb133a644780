#pragma once
/// Registers the protean policy family (one line per policy) in the policy registry.

#include "sim/policy/policy_registry.hpp"

namespace sim::policy::protean {

void register_policies(PolicyRegistry& registry);

}  // namespace sim::policy::protean
