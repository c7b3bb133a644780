// A warm start state (planner/warm-pool): instances that exist warm at time zero, placed by the
// scheme's placement policy while memory permits, and not counted as cold starts. Used as the
// start-state sensitivity of Protean's Table 5 (docs/reproduction/protean.md), so one case runs
// the Protean family's autoscaler on a MIG + MPS node with weights-resident containers.

#include <gtest/gtest.h>

#include <string>

#include "flashpoint/warm_pool.hpp"
#include "harness.hpp"
#include "sim/scenario/registry.hpp"
#include "sim/scenario/run.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace sim::platform {
namespace {

using testing::Harness;

/// Two exclusive GPUs and a pool of three: two start warm (one instance per exclusive GPU),
/// the third finds no place. A request at 1 s runs at once on a warm instance: test/fig42 takes
/// 4 s per request (batch 1), so it finishes at 5 s with no cold-start wait (its cold start
/// would be 24 s: download 8 + load 12 + copy 4).
TEST(WarmStart, PoolIsIdleAtTimeZeroAndServesWithoutAColdStart) {
  ServerlessConfig c = testing::config(testing::host(2));
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  auto p = testing::manual_policies();
  p.planner = std::make_unique<policy::flashpoint::WarmPoolPlanner>(3);
  Harness h(std::move(c), std::move(p));
  h.arrive(seconds(1), 0, Time::zero(), traces::RequestClass::kBestEffort);
  h.sim.run_until(seconds(0.5));
  {
    const auto v = h.platform->view();
    ASSERT_EQ(v.instances.size(), 2u);
    for (const auto& i : v.instances) {
      EXPECT_EQ(i.state, policy::InstanceState::kIdle);
      EXPECT_EQ(i.created, Time::zero());
    }
  }
  h.sim.run_until(seconds(30));
  EXPECT_TRUE(h.platform->cold_starts().empty());
  ASSERT_EQ(h.records.size(), 1u);
  const auto& r = h.records[0];
  EXPECT_EQ(r.cold_start_wait, Time::zero());
  EXPECT_EQ(r.finish, seconds(5));
  EXPECT_EQ(r.execution, seconds(4));
  const auto extra = h.platform->summary_extra(seconds(30));
  EXPECT_EQ(extra["decisions"]["applied"]["start_warm"].get<int>(), 2);
  EXPECT_FALSE(extra["decisions"]["applied"].contains("start"));
  EXPECT_EQ(extra["decisions"]["rejected"]["start_unplaced"].get<int>(), 1);
}

/// Without the planner the same request waits for the autoscaler's cold start (24 s), so the
/// case above can tell a warm start from a cold one.
TEST(WarmStart, WithoutThePoolTheFirstRequestWaitsForAColdStart) {
  ServerlessConfig c = testing::config(testing::host(2));
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  Harness h(std::move(c), testing::reference_policies());  // FixedPoolAutoscaler(1)
  h.arrive(seconds(1), 0, Time::zero(), traces::RequestClass::kBestEffort);
  h.sim.run_until(seconds(60));
  ASSERT_EQ(h.records.size(), 1u);
  EXPECT_GT(h.records[0].cold_start_wait, seconds(20));
  EXPECT_EQ(h.platform->cold_starts().size(), 1u);
}

nlohmann::json one_naive_slicing_node(const nlohmann::json& planner) {
  // Naive Slicing's settings (scenarios/presets/protean-naive-slicing.json) on one node.
  return nlohmann::json{
      {"name", "warm-start-test"},
      {"duration", "3s"},
      {"seed", 1},
      {"workload",
       {{{"type", "poisson"}, {"rate", "20/s"}, {"function", "dpn-92"}, {"class", "best-effort"}}}},
      {"platform",
       {{"type", "serverless"},
        {"dispatch_scope", "node"},
        {"gateway", "least-loaded"},
        {"container_memory", "weights-resident"},
        {"cluster",
         {{"hosts",
           {{{"count", 1},
             {"gpus",
              {{{"type", "A100-40GB"},
                {"count", 1},
                {"sharing", "mps"},
                {"mig", {"4g.20gb", "3g.20gb"}}}}}}}}}},
        {"functions",
         {{{"name", "dpn-92"},
           {"model", "protean/dpn-92"},
           {"max_batch", 128},
           {"batch_timeout", "50ms"},
           {"model_size", "4GB"}}}},
        {"policies",
         {{"autoscaler", {{"type", "protean"}, {"placement", "spread"}, {"reconfigure", false}}},
          {"placement", {{"type", "spread"}}},
          {"keep_alive", {{"type", "forever"}}},
          {"planner", planner}}}}}};
}

/// The Protean family's node (MIG 4g + 3g, MPS, weights-resident): DPN 92's footprint is 14 GB
/// (data/models/protean.json) and its weights are set to 4 GB, so a container holds 4 GB and a
/// batch 10 GB of activations. A 20 GB slice takes n containers while 4n + 10 <= 20: two per
/// slice, four on the GPU. A pool of six starts four warm and the fifth finds no place (the
/// platform stops a function's starts at its first failure). The 20 rps need one container
/// (n_c = ceil(n_r / 128)), which the four warm ones provide: no cold start, no request waits
/// for one.
TEST(WarmStart, ProteanFamilyNodeRespectsMemoryAndNeedsNoColdStart) {
  scenario::Registry registry;
  scenario::register_builtin_components(registry);
  const scenario::LoadedScenario loaded{
      "warm.json",
      scenario::resolve_document(one_naive_slicing_node({{"type", "warm-pool"}, {"instances", 6}}),
                                 "warm.json", registry)};
  scenario::RunOptions ro;
  ro.data_dir = SIM_SOURCE_DIR "/data";
  ro.write_files = false;  // a run in memory: no folder, nothing shared between test processes
  const auto s = scenario::run_scenario(loaded, registry, ro).summary;
  EXPECT_EQ(s["decisions"]["applied"]["start_warm"].get<int>(), 4);
  EXPECT_EQ(s["decisions"]["rejected"]["start_unplaced"].get<int>(), 1);
  EXPECT_EQ(s["cold_starts"]["count"].get<int>(), 0);
  EXPECT_GT(s["requests"]["completed"].get<int>(), 0);
  EXPECT_EQ(s["per_class"]["best_effort"]["waits_s"]["cold_start_affected"].get<int>(), 0);
}

/// A negative pool size is a validation error that names the JSON path.
TEST(WarmStart, NegativePoolIsAnErrorWithItsPath) {
  scenario::Registry registry;
  scenario::register_builtin_components(registry);
  try {
    (void)scenario::resolve_document(
        one_naive_slicing_node({{"type", "warm-pool"}, {"instances", -1}}), "bad.json", registry);
    FAIL() << "instances -1 was accepted";
  } catch (const std::exception& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("/platform/policies/planner/instances"), std::string::npos) << m;
    EXPECT_NE(m.find("bad.json"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace sim::platform
