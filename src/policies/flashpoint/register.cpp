// The flashpoint policy family: one registration line per policy.

#include "sim/policy/flashpoint/register.hpp"

namespace sim::policy::flashpoint {

void register_policies(PolicyRegistry& /*registry*/) {}

}  // namespace sim::policy::flashpoint
