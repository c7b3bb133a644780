// Cold-start figures of whole runs (Flashpoint thesis Fig. 8.5, Fig. 6.2 / 8.10), through the
// scenario layer: cold starts from each hierarchical source with hand-computed durations and
// multiples of the warm start, and scale-ups the platform could not place counted apart.

#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include "sim/policy/autoscaler.hpp"
#include "sim/scenario/registry.hpp"
#include "sim/scenario/run.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace sim::scenario {
namespace {

using nlohmann::json;

/// Starts one instance at each given (time, host, GPU), never stops any.
class ScriptedAutoscaler final : public policy::Autoscaler {
 public:
  explicit ScriptedAutoscaler(std::vector<std::pair<Time, policy::Location>> script)
      : script_(std::move(script)) {}
  policy::Decisions decide(const policy::PlatformView& view) override {
    policy::Decisions d;
    while (next_ < script_.size() && script_[next_].first <= view.now) {
      policy::StartInstance s;
      s.function = view.functions.at(0).id;
      s.location = script_[next_++].second;
      d.start.push_back(s);
    }
    return d;
  }

 private:
  std::vector<std::pair<Time, policy::Location>> script_;
  std::size_t next_ = 0;
};

json run(const json& platform_policies, int hosts, int gpus, const char* rate,
         const std::string& tag) {
  Registry registry;
  register_builtin_components(registry);
  auto schema = std::make_shared<config::Schema>("autoscaler/scripted-test", "test");
  registry.add_policy(
      {policy::kAutoscaler, "scripted-test", "test", schema,
       [](const json&, policy::PolicyContext) {
         // Store (host 0 empty), then host 0's own copy, then host 1 from host 0.
         return std::unique_ptr<policy::Policy>(new ScriptedAutoscaler(
             {{seconds(0), {0, 0, -1}}, {seconds(100), {0, 1, -1}}, {seconds(200), {1, 0, -1}}}));
       }});
  const auto dir = std::filesystem::temp_directory_path() /
                   ("dcsim_fp_outcomes_" + tag + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  json policies = platform_policies;
  policies["keep_alive"] = {{"type", "forever"}};
  const json doc = {
      {"name", "outcomes"},
      {"duration", "300s"},
      {"output", {{"requests", "csv"}}},
      {"workload", {{{"type", "constant"}, {"rate", rate}, {"function", "t5"}}}},
      {"platform",
       {{"type", "serverless"},
        {"cluster",
         {{"hosts", {{{"count", hosts}, {"gpus", {{{"type", "A10"}, {"count", gpus}}}}}}},
          {"store_bandwidth", "2203Mbps"},
          {"host_bandwidth", "8Gbps"},
          {"pcie_bandwidth", "75.67Gbps"}}},
        {"functions", {{{"name", "t5"}, {"model", "flashpoint/t5-3b"}, {"max_batch", 1}}}},
        {"policies", policies}}}};
  const auto file = dir / "scenario.json";
  std::ofstream(file) << doc.dump();
  const auto loaded = load_scenario(file, registry);
  RunOptions ro;
  ro.out_dir = dir / "out";
  ro.data_dir = SIM_SOURCE_DIR "/data";
  const auto result = run_scenario(loaded, registry, ro);
  std::filesystem::remove_all(dir);
  return result.summary;
}

json sourcing(bool remote_loaded) {
  return {{"autoscaler", {{"type", "scripted-test"}}},
          {"cold_start_sourcing", {{"type", "hierarchical"}, {"remote_loaded", remote_loaded}}}};
}

// T5-3B (11,408 MB, load 14.138 s, warm execution 66.065 ms on an A10; no network, so no
// contention): from the store 11408e6 * 8 / 2203e6 = 41.42714 s download + 14.138 s load +
// 11408e6 * 8 / 75.67e9 = 1.20608 s copy = 56.77122 s; from the host's own loaded copy the copy
// only, 1.20608 s; from host 0's memory to host 1 11408e6 * 8 / 8e9 = 11.408 s + load + copy
// = 26.75208 s (Fig. 5.3b: the receiver loads). In multiples of 66.065 ms: 859.32, 18.256,
// 404.94.
TEST(ColdStartsBySource, HandComputedDurationsAndWarmMultiples) {
  const json s = run(sourcing(false), 2, 2, "5/s", "sources");
  const double warm = 0.066065;
  const double copy = 11408e6 * 8 / 75.67e9;
  const double store = 11408e6 * 8 / 2203e6 + 14.138 + copy;
  const double remote = 11408e6 * 8 / 8e9 + 14.138 + copy;
  const json& cs = s["cold_starts"];
  EXPECT_NEAR(cs["warm_execution_s"].get<double>(), warm, 1e-9);
  const json& by = cs["by_source"];
  ASSERT_EQ(by.size(), 3u) << by.dump();
  for (const char* k : {"store", "local_memory", "remote_host"}) {
    EXPECT_EQ(by[k]["count"], 1) << k;
    EXPECT_EQ(by[k]["completed"], 1) << k;
  }
  EXPECT_NEAR(by["store"]["mean_s"].get<double>(), store, 1e-6);
  EXPECT_NEAR(by["local_memory"]["mean_s"].get<double>(), copy, 1e-6);
  EXPECT_NEAR(by["remote_host"]["mean_s"].get<double>(), remote, 1e-6);
  EXPECT_EQ(by["local_memory"]["by_stage"]["load_s"], 0.0);
  EXPECT_NEAR(by["remote_host"]["by_stage"]["load_s"].get<double>(), 14.138, 1e-6);
  EXPECT_NEAR(by["store"]["warm_multiple"].get<double>(), store / warm, 1e-4);
  EXPECT_NEAR(by["local_memory"]["warm_multiple"].get<double>(), copy / warm, 1e-4);
  EXPECT_NEAR(by["remote_host"]["warm_multiple"].get<double>(), remote / warm, 1e-4);
  EXPECT_NEAR(by["store"]["warm_multiple"].get<double>(), 859.32, 0.01);
  EXPECT_NEAR(by["remote_host"]["warm_multiple"].get<double>(), 404.94, 0.01);
  // Per replica (none partitioned): the mean of the three.
  EXPECT_EQ(cs["per_replica"]["count"], 3);
  EXPECT_EQ(cs["per_replica"]["partitioned"], 0);
  EXPECT_NEAR(cs["per_replica"]["mean_s"].get<double>(), (store + copy + remote) / 3, 1e-6);
  EXPECT_NEAR(cs["total_s"].get<double>(), (store + copy + remote) / 3, 1e-6);
  // Per request: only the requests that arrived before the first replica was ready waited
  // (the later replicas start beside a warm one). Their mean wait is about half of its cold
  // start; over all completed requests, the same sum with the zeros.
  const json& w = s["waits_s"];
  const double affected = w["cold_start_affected"].get<double>();
  EXPECT_NEAR(affected, 5 * store, 2.0);
  EXPECT_NEAR(w["cold_start_mean_waiting"].get<double>(), store / 2, 0.5);
  EXPECT_NEAR(w["cold_start_mean"].get<double>() * s["requests"]["completed"].get<double>(),
              w["cold_start_mean_waiting"].get<double>() * affected, 1e-6);
}

// With remote_loaded the receiver skips its load: 11.408 + 1.20608 = 12.61408 s, 190.93x.
TEST(ColdStartsBySource, RemoteLoadedSkipsTheLoad) {
  const json s = run(sourcing(true), 2, 2, "5/s", "remote_loaded");
  const json& remote = s["cold_starts"]["by_source"]["remote_host"];
  EXPECT_NEAR(remote["mean_s"].get<double>(), 11.408 + 11408e6 * 8 / 75.67e9, 1e-6);
  EXPECT_EQ(remote["by_stage"]["load_s"], 0.0);
  EXPECT_NEAR(remote["warm_multiple"].get<double>(), 190.93, 0.01);
}

// One GPU in the cluster, 50 req/s: ATL wants ceil(50 * 0.066065) = 4 replicas once it has
// measured a rate, but only one fits. Scale-ups after the GPU is taken find no room: they are
// rejected by the platform (decisions.rejected.start_unplaced, one per command) and must not
// count as scale-ups that added replicas.
TEST(RejectedScaleUps, CountedApartFromScaleUps) {
  const json s = run({{"autoscaler", {{"type", "atl"}}}}, 1, 1, "50/s", "rejected");
  const json& a = s["autoscaler"];
  EXPECT_EQ(s["cold_starts"]["count"], 1);
  EXPECT_EQ(a["scale_ups"], 1);
  EXPECT_EQ(a["instances_started"], 1);
  const int rejected = a["rejected"]["scale_ups"].get<int>();
  const int partial = a["partially_placed"]["scale_ups"].get<int>();
  EXPECT_GT(rejected, 200);  // about one per 1 s evaluation over 300 s
  EXPECT_EQ(s["decisions"]["rejected"]["start_unplaced"].get<int>(), rejected + partial);
  // Every rejected one asked for the 3 missing replicas (4 desired, 1 live).
  EXPECT_EQ(a["rejected"]["replicas_asked"].get<int>(), 3 * rejected);
  EXPECT_EQ(a["rejected"]["instances_asked"].get<int>(), 3 * rejected);
}

}  // namespace
}  // namespace sim::scenario
