// The built-in components (registry.hpp), apart from the registry itself: the registry and the
// scenario loader need no simulator code, so the scenario fuzz target (fuzz/fuzz_scenario.cpp)
// links them without the platforms and policies.

#include "sim/platform/fifo_gpu_platform.hpp"
#include "sim/platform/serverless_platform.hpp"
#include "sim/policy/policy_registry.hpp"
#include "sim/scenario/registry.hpp"
#include "sim/traces/workload_kinds.hpp"

namespace sim::scenario {

void register_builtin_components(Registry& registry) {
  for (auto& kind : traces::builtin_workload_kinds())
    registry.add_workload(std::move(kind));
  registry.add_platform(platform::fifo_gpu_platform_kind());
  registry.add_platform(platform::serverless_platform_kind());
  policy::PolicyRegistry policies;
  policy::register_builtin_policies(policies);
  for (const auto* k : policies.kinds())
    registry.add_policy(*k);
}

}  // namespace sim::scenario
