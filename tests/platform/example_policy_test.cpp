// The example policy of docs/policy-authors.md: unit test, then registration and a run of its
// scenario (which also uses the serverless-reference preset).

#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>

#include "least_used_dispatcher/least_used_dispatcher.hpp"
#include "sim/scenario/registry.hpp"
#include "sim/scenario/run.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace {

sim::policy::InstanceView idle(sim::policy::InstanceId id, std::uint64_t batches) {
  sim::policy::InstanceView v;
  v.id = id;
  v.state = sim::policy::InstanceState::kIdle;
  v.batches = batches;
  return v;
}

TEST(ExamplePolicy, LeastUsedDispatcherChoosesFewestBatches) {
  const std::vector<sim::policy::InstanceView> v{idle(1, 5), idle(2, 3), idle(3, 3)};
  example::LeastUsedDispatcher oldest(false);
  EXPECT_EQ(oldest.choose({sim::Time::zero(), 0, v}), sim::policy::InstanceId{2});
  example::LeastUsedDispatcher newest(true);
  EXPECT_EQ(newest.choose({sim::Time::zero(), 0, v}), sim::policy::InstanceId{3});
  EXPECT_FALSE(oldest.choose({sim::Time::zero(), 0, {}}).has_value());
}

TEST(ExamplePolicy, RegistersAndRunsFromItsScenario) {
  sim::scenario::Registry registry;
  sim::scenario::register_builtin_components(registry);
  registry.add_policy(example::least_used_dispatcher_kind());
  EXPECT_THROW(registry.add_policy(example::least_used_dispatcher_kind()), std::logic_error);

  sim::scenario::LoadOptions lo;
  lo.preset_dirs = {SIM_SOURCE_DIR "/scenarios/presets"};
  const auto loaded = sim::scenario::load_scenario(
      SIM_SOURCE_DIR "/examples/least_used_dispatcher/scenario.json", registry, lo);
  const auto& policies = loaded.resolved["platform"]["policies"];
  EXPECT_EQ(policies["dispatcher"]["type"], "least-used");
  EXPECT_EQ(policies["dispatcher"]["prefer_newest"], true);
  EXPECT_EQ(policies["batcher"]["type"], "fifo");        // from the preset
  EXPECT_EQ(policies["keep_alive"]["type"], "forever");  // the scenario overrides the preset

  sim::scenario::RunOptions ro;
  ro.out_dir = std::filesystem::temp_directory_path() /
               ("dcsim_example_policy_test-" + std::to_string(::getpid()));
  ro.data_dir = SIM_SOURCE_DIR "/data";
  const auto result = sim::scenario::run_scenario(loaded, registry, ro);
  const auto& s = result.summary;
  EXPECT_GT(s["requests"]["completed"].get<int>(), 500);
  EXPECT_EQ(s["cold_starts"]["count"], 2);
  EXPECT_EQ(s["requests_arrived"].get<std::uint64_t>(),
            s["requests"]["recorded"].get<std::uint64_t>() +
                s["requests_in_system_at_end"].get<std::uint64_t>());
  std::filesystem::remove_all(ro.out_dir);
}

}  // namespace
