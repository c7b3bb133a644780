// The protean policy family: one registration line per policy.

#include "sim/policy/protean/register.hpp"

namespace sim::policy::protean {

void register_policies(PolicyRegistry& /*registry*/) {}

}  // namespace sim::policy::protean
