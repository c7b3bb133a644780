// Partitioned replicas on the serverless platform (Flashpoint thesis §4.2), end to end through
// the scenario layer: a test planner starts one replica of T5-3B split in two; the records
// must show the parallel cold start, the pipeline (a new request every max(E, N), each taking
// I = execution + transfer) and model completion (then full-model execution).

#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/policy/planner.hpp"
#include "sim/scenario/registry.hpp"
#include "sim/scenario/run.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace sim::scenario {
namespace {

class SplitPlanner final : public policy::Planner {
 public:
  explicit SplitPlanner(bool complete) : complete_(complete) {}
  policy::Decisions plan(const policy::PlatformView& view) override {
    policy::Decisions d;
    policy::StartInstance s;
    s.function = view.functions.at(0).id;
    s.partition = policy::PartitionSpec{{26}, complete_};  // layers 0..26 | 27..54
    d.start.push_back(s);
    return d;
  }

 private:
  bool complete_;
};

struct Row {
  double arrival = 0, start = 0, finish = 0, cold = 0, exec = 0;
};

std::vector<Row> run(bool complete, const std::string& tag, nlohmann::json* summary = nullptr) {
  Registry registry;
  register_builtin_components(registry);
  auto schema = std::make_shared<config::Schema>("planner/split-test", "test");
  registry.add_policy({policy::kPlanner, "split-test", "test", schema,
                       [complete](const nlohmann::json&, policy::PolicyContext) {
                         return std::unique_ptr<policy::Policy>(new SplitPlanner(complete));
                       }});
  const auto dir = std::filesystem::temp_directory_path() /
                   ("dcsim_fp_partitioned_" + tag + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const nlohmann::json doc = {
      {"name", "partitioned"},
      {"duration", "200s"},
      {"output", {{"requests", "csv"}}},
      {"workload", {{{"type", "constant"}, {"rate", "5/s"}, {"function", "t5"}}}},
      {"platform",
       {{"type", "serverless"},
        {"cluster",
         {{"hosts", {{{"count", 2}, {"gpus", {{{"type", "A10"}, {"count", 1}}}}}}},
          {"store_bandwidth", "2203Mbps"},
          {"host_bandwidth", "8Gbps"},
          {"pcie_bandwidth", "75.67Gbps"}}},
        {"functions", {{{"name", "t5"}, {"model", "flashpoint/t5-3b"}, {"max_batch", 1}}}},
        {"policies",
         {{"planner", {{"type", "split-test"}}},
          {"autoscaler", {{"type", "fixed-pool"}, {"instances", 0}}},
          {"keep_alive", {{"type", "forever"}}}}}}}};
  const auto file = dir / "scenario.json";
  std::ofstream(file) << doc.dump();
  const auto loaded = load_scenario(file, registry);
  RunOptions ro;
  ro.out_dir = dir / "out";
  ro.data_dir = SIM_SOURCE_DIR "/data";
  const auto result = run_scenario(loaded, registry, ro);
  if (summary != nullptr) *summary = result.summary;
  std::ifstream in(result.directory / "requests.csv");
  std::string line;
  std::getline(in, line);
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::vector<std::string> f;
    std::string cell;
    while (std::getline(ss, cell, ','))
      f.push_back(cell);
    Row r;
    r.arrival = std::stod(f[4]) * 1e-9;
    r.start = std::stod(f[6]) * 1e-9;
    r.finish = std::stod(f[7]) * 1e-9;
    r.cold = std::stod(f[10]) * 1e-9;
    r.exec = std::stod(f[11]) * 1e-9;
    rows.push_back(r);
  }
  std::filesystem::remove_all(dir);
  return rows;
}

TEST(PartitionedReplica, ColdStartsInParallelAndPipelines) {
  nlohmann::json summary;
  const auto rows = run(false, "pipe", &summary);
  ASSERT_GT(rows.size(), 500u);
  // One replica, cut once: two parts (the summary's Fig. 8.10 histogram).
  EXPECT_EQ(summary["partitioned_replicas"]["started"], 1);
  EXPECT_EQ(summary["partitioned_replicas"]["by_parts"], nlohmann::json({{"2", 1}}));
  // Each part carries its layers' share of the cold start (shares of the layer cold starts in
  // data/models/flashpoint.json): layers 27..54 have 0.50015 of T5-3B, i.e. 5.7057 GB:
  // 5.7057e9 * 8 / 2.203e9 (20.720 s download, no contention without a network) + 0.50015 *
  // 14.138 (7.071 s load) + 5.7057e9 * 8 / 75.67e9 (0.603 s copy) = 28.394 s, half the full
  // model's 56.77 s. The replica serves its first request then.
  double ready = rows.front().start;
  for (const auto& r : rows)
    ready = std::min(ready, r.start);
  EXPECT_NEAR(ready, 28.394, 2e-3);
  // Per replica the cold start is the slower part's (§4.1.2), counted once; per instance the
  // two parts are averaged: layers 0..26 carry the other 0.49985 (5.7023 GB: 20.707 s download,
  // 7.067 s load, 0.603 s copy = 28.377 s), so (28.377 + 28.394) / 2 = 28.386 s.
  const auto& cs = summary["cold_starts"];
  EXPECT_EQ(cs["per_replica"]["count"], 1);
  EXPECT_EQ(cs["per_replica"]["partitioned"], 1);
  EXPECT_NEAR(cs["per_replica"]["mean_s"].get<double>(), 28.394, 2e-3);
  EXPECT_EQ(cs["completed"], 2);
  EXPECT_NEAR(cs["total_s"].get<double>(), (28.377 + 28.394) / 2, 2e-3);
  // Without model completion every batch runs through the pipeline: no warm batch on a whole
  // instance, so no unit for Fig. 8.5's multiples.
  EXPECT_TRUE(cs["warm_execution_s"].is_null());
  EXPECT_TRUE(cs["by_source"]["store"]["warm_multiple"].is_null());
  // I = 66.065 ms of layers + the cut's 671.967 kB at 8 Gbit/s (0.672 ms) = 66.737 ms.
  for (const auto& r : rows)
    EXPECT_NEAR(r.exec, 0.066065 + 671.967e3 * 8 / 8e9, 2e-9);
  // The backlog of ready * 5/s requests drains through the pipeline: consecutive starts are
  // max(E, N) apart (about half of 66 ms), less than one inference time.
  int overlapping = 0;
  for (std::size_t k = 1; k < rows.size(); ++k)
    if (rows[k].start < rows[k - 1].finish) ++overlapping;
  EXPECT_GT(overlapping, 50);
}

TEST(PartitionedReplica, ModelCompletionTurnsItIntoFullReplicas) {
  const auto rows = run(true, "complete");
  ASSERT_GT(rows.size(), 500u);
  // Before completion requests take the pipeline's I; afterwards the two parts are full
  // replicas that execute the whole model in 66.065 ms.
  EXPECT_NEAR(rows.front().exec, 0.066065 + 671.967e3 * 8 / 8e9, 2e-9);
  EXPECT_NEAR(rows.back().exec, 0.066065, 2e-9);
}

}  // namespace
}  // namespace sim::scenario
