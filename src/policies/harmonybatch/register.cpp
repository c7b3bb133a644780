// The harmonybatch policy family: one registration line per policy.

#include "sim/policy/harmonybatch/register.hpp"

namespace sim::policy::harmonybatch {

void register_policies(PolicyRegistry& /*registry*/) {}

}  // namespace sim::policy::harmonybatch
