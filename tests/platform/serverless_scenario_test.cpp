// The serverless platform through the scenario layer: quickstart.json runs on it, policies
// resolve as components, and the summary carries the platform figures.

#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>

#include "sim/scenario/registry.hpp"
#include "sim/scenario/run.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace sim::scenario {
namespace {

TEST(ServerlessScenario, QuickstartRunsAndConservesRequests) {
  Registry registry;
  register_builtin_components(registry);
  LoadOptions lo;
  lo.overrides.push_back(parse_override("duration=30s"));
  const auto loaded = load_scenario(SIM_SOURCE_DIR "/scenarios/quickstart.json", registry, lo);
  EXPECT_EQ(loaded.resolved["platform"]["type"], "serverless");
  RunOptions ro;
  ro.out_dir = std::filesystem::temp_directory_path() /
               ("dcsim_serverless_scenario_test-" + std::to_string(::getpid()));
  ro.data_dir = SIM_SOURCE_DIR "/data";
  const auto result = run_scenario(loaded, registry, ro);
  const auto& s = result.summary;
  const auto arrived = s.at("requests_arrived").get<std::uint64_t>();
  EXPECT_GT(arrived, 5000u);
  EXPECT_EQ(arrived, s["requests"]["recorded"].get<std::uint64_t>() +
                         s["requests"]["warmup_excluded"].get<std::uint64_t>() +
                         s["requests_in_system_at_end"].get<std::uint64_t>());
  EXPECT_GT(s["cold_starts"]["count"].get<int>(), 0);
  EXPECT_GT(s["gpu_utilisation"].get<double>(), 0.0);
  std::filesystem::remove_all(ro.out_dir);
}

TEST(ServerlessScenario, UnknownPolicyIsAValidationError) {
  Registry registry;
  register_builtin_components(registry);
  const nlohmann::json doc = {
      {"duration", "1s"},
      {"workload", {{{"type", "poisson"}, {"rate", "1/s"}, {"function", "f"}}}},
      {"platform",
       {{"type", "serverless"},
        {"functions", {{{"name", "f"}, {"model", "protean/resnet-50"}}}},
        {"policies", {{"autoscaler", {{"type", "reactive-rat"}}}}}}}};
  try {
    (void)resolve_document(doc, "inline.json", registry);
    FAIL() << "expected a validation error";
  } catch (const std::exception& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("/platform/policies/autoscaler"), std::string::npos) << m;
    EXPECT_NE(m.find("reactive-rate"), std::string::npos) << m;  // the suggestion
  }
}

// The schema allows 100,000 hosts per template and 64 GPUs per host; their product (6.4 million
// GPUs) took 42 s and 7.4 GB to validate. The cluster's total is checked before anything is
// built, and the error names the scenario, the JSON path and the limit.
TEST(ServerlessScenario, ClusterSizeIsBoundedBeforeAnythingIsBuilt) {
  Registry registry;
  register_builtin_components(registry);
  auto doc_with = [](int hosts, int gpus) {
    return nlohmann::json{
        {"duration", "1s"},
        {"workload", {{{"type", "poisson"}, {"rate", "1/s"}, {"function", "f"}}}},
        {"platform",
         {{"type", "serverless"},
          {"cluster",
           {{"hosts", {{{"count", hosts}, {"gpus", {{{"type", "A100-40GB"}, {"count", gpus}}}}}}}}},
          {"functions", {{{"name", "f"}, {"model", "protean/resnet-50"}}}}}}};
  };
  RunOptions ro;
  ro.data_dir = SIM_SOURCE_DIR "/data";
  const LoadedScenario huge{"huge.json",
                            resolve_document(doc_with(100000, 64), "huge.json", registry)};
  try {
    check_scenario(huge, registry, ro);
    FAIL() << "6.4 million GPUs were accepted";
  } catch (const std::exception& e) {
    EXPECT_EQ(std::string(e.what()),
              "huge.json: /platform: cluster.hosts: 6400000 GPUs in all, at most 1000000 are "
              "simulated (about 1.2 GB of state; kMaxClusterGpus in "
              "src/platform/serverless_kind.cpp)");
  }
  // 1,000 hosts of 8 GPUs are well inside.
  const LoadedScenario ok{"ok.json", resolve_document(doc_with(1000, 8), "ok.json", registry)};
  EXPECT_NO_THROW(check_scenario(ok, registry, ro));
}

// The cold start's runtime stage (platform.cluster.runtime_start) defaults to 0 s, so every
// scenario that does not set it keeps the cold starts it had; a value that is not a duration,
// or a negative one, is an error naming the JSON path.
TEST(ServerlessScenario, RuntimeStartDefaultsToZeroAndBadValuesNameThePath) {
  Registry registry;
  register_builtin_components(registry);
  auto doc_with = [](const nlohmann::json& cluster) {
    return nlohmann::json{{"duration", "1s"},
                          {"workload", {{{"type", "poisson"}, {"rate", "1/s"}, {"function", "f"}}}},
                          {"platform",
                           {{"type", "serverless"},
                            {"cluster", cluster},
                            {"functions", {{{"name", "f"}, {"model", "protean/resnet-50"}}}}}}};
  };
  const auto resolved = resolve_document(doc_with(nlohmann::json::object()), "ok.json", registry);
  EXPECT_EQ(resolved["platform"]["cluster"]["runtime_start"], "0s");
  const auto set = resolve_document(doc_with({{"runtime_start", "2.5s"}}), "ok.json", registry);
  EXPECT_EQ(set["platform"]["cluster"]["runtime_start"], "2.5s");
  for (const nlohmann::json& bad : {nlohmann::json("fast"), nlohmann::json("-1s")}) {
    try {
      (void)resolve_document(doc_with({{"runtime_start", bad}}), "bad.json", registry);
      ADD_FAILURE() << "runtime_start " << bad << " was accepted";
    } catch (const std::exception& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("/platform/cluster/runtime_start"), std::string::npos) << m;
      EXPECT_NE(m.find("bad.json"), std::string::npos) << m;
    }
  }
}

TEST(ServerlessScenario, PoliciesAreListedAsComponents) {
  Registry registry;
  register_builtin_components(registry);
  EXPECT_NE(registry.find("autoscaler", "reactive-rate"), nullptr);
  EXPECT_NE(registry.find("batcher", "fifo"), nullptr);
  EXPECT_NE(registry.find("platform", "serverless"), nullptr);
  EXPECT_NE(registry.policies().find("keep_alive", "fixed"), nullptr);
}

}  // namespace
}  // namespace sim::scenario
