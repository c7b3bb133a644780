// The infless policy family: one registration line per policy.

#include "sim/policy/infless/register.hpp"

namespace sim::policy::infless {

void register_policies(PolicyRegistry& /*registry*/) {}

}  // namespace sim::policy::infless
