// Sweeps of real (short) runs: determinism across thread counts, resumption, staleness and
// failures. The quickstart scenario (serverless platform, HDF5 request output) cut to 6 s.

#include <gtest/gtest.h>

#include <atomic>

#include "sim/sweep/sweep_run.hpp"
#include "sweep_test_support.hpp"

namespace sim::sweep {
namespace {

using testing::read_file;
using testing::TempDir;
using testing::tree;

/// 2 loads x 2 keep-alives x 2 seeds = 8 runs of 6 simulated seconds, requests in HDF5.
std::string experiment(const std::string& extra = "") {
  return std::string(R"({
  "name": "tiny",
  "scenario": ")") +
         SIM_SOURCE_DIR + R"(/scenarios/quickstart.json",
  "set": ["duration=6s", "warmup=1s", "output.requests=hdf5"],
  "axes": [
    {"name": "load", "set": "workload.0.rate", "values": ["200/s", "400/s"]},
    {"name": "keepalive", "variants": [
      {"name": "short", "set": {"platform.policies.keep_alive.keep_alive": "1s"}},
      {"name": "long", "set": ["platform.policies.keep_alive.keep_alive=60s"]}]}
  ],
  "replications": 2, "seed": 5)" +
         extra + "\n}";
}

TEST(SweepRun, OneAndTwoThreadsGiveByteIdenticalRuns) {
  TempDir dir("determinism");
  const auto exp = dir.write("tiny.json", experiment());
  const auto one = testing::run_sweep(exp, dir.path() / "j1", 1);
  const auto two = testing::run_sweep(exp, dir.path() / "j2", 2);
  ASSERT_EQ(one.size(), 8U);
  for (const auto& r : two)
    ASSERT_EQ(r.status, RunStatus::kDone) << r.error;
  const auto a = tree(dir.path() / "j1");
  const auto b = tree(dir.path() / "j2");
  // 8 runs x (summary, requests.h5, timeseries, scenario, sweep-run) + results + aggregate.
  EXPECT_EQ(a.size(), 8U * 5U + 2U);
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, bytes] : a) {
    ASSERT_TRUE(b.count(name) == 1) << name;
    EXPECT_TRUE(bytes == b.at(name)) << name << " differs between -j 1 and -j 2";
  }
  EXPECT_TRUE(a.count("runs/load=400_s,keepalive=long,seed=6/requests.h5") == 1);
}

TEST(SweepRun, ResumesAnInterruptedSweepToTheSameOutputs) {
  TempDir dir("resume");
  const auto exp = dir.write("tiny.json", experiment());
  const auto reference = testing::run_sweep(exp, dir.path() / "full", 2);

  // Interrupt after three runs have finished: the ones in flight stop early, the rest never
  // start.
  std::atomic<int> finished{0};
  ExecutorHooks hooks;
  hooks.on_finished = [&](const PlannedRun&, const RunReport&) { ++finished; };
  hooks.interrupted = [&] { return finished.load() >= 3; };
  const auto first = testing::run_sweep(exp, dir.path() / "resumed", 2, hooks);
  std::size_t done = 0;
  for (const auto& r : first)
    done += r.status == RunStatus::kDone ? 1 : 0;
  EXPECT_GE(done, 3U);
  EXPECT_LT(done, 8U);

  const auto second = testing::run_sweep(exp, dir.path() / "resumed", 2);
  std::size_t skipped = 0;
  for (const auto& r : second) {
    ASSERT_TRUE(r.status == RunStatus::kDone || r.status == RunStatus::kUpToDate) << r.error;
    skipped += r.status == RunStatus::kUpToDate ? 1 : 0;
  }
  EXPECT_EQ(skipped, done);
  const auto a = tree(dir.path() / "full");
  const auto b = tree(dir.path() / "resumed");
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, bytes] : a)
    EXPECT_TRUE(bytes == b.at(name)) << name << " differs after resuming";
}

TEST(SweepRun, RedoesStaleAndPartialRunsOnly) {
  TempDir dir("stale");
  const auto exp = dir.write("tiny.json", experiment());
  testing::run_sweep(exp, dir.path() / "out", 2);
  const auto runs = dir.path() / "out" / "runs";
  // A partial run: its record is gone (killed before it was written).
  std::filesystem::remove(runs / "load=200_s,keepalive=short,seed=5" / kRunRecordFile);
  // A stale run: its record names another scenario.
  metrics::write_json_atomic(runs / "load=400_s,keepalive=long,seed=6" / kRunRecordFile,
                             {{"scenario_hash", "fnv1a64:0000000000000000"}});
  const auto again = testing::run_sweep(exp, dir.path() / "out", 2);
  EXPECT_EQ(again[0].status, RunStatus::kDone);
  EXPECT_EQ(again[7].status, RunStatus::kDone);
  for (std::size_t i = 1; i < 7; ++i)
    EXPECT_EQ(again[i].status, RunStatus::kUpToDate) << i;

  // Changing the experiment's base overrides makes every run stale.
  const auto changed = dir.write("tiny.json", experiment(R"(, "exclude": [{"load": "400/s"}])"));
  auto text = read_file(changed);
  text.replace(text.find("duration=6s"), 11, "duration=5s");
  dir.write("tiny.json", text);
  const auto after = testing::run_sweep(exp, dir.path() / "out", 2);
  ASSERT_EQ(after.size(), 4U);
  for (const auto& r : after)
    EXPECT_EQ(r.status, RunStatus::kDone);
}

TEST(SweepRun, AFailedRunIsReportedAndTheOthersFinish) {
  TempDir dir("failure");
  // keep_alive "-1s" is rejected by the schema for that variant only.
  auto text = experiment();
  text.replace(text.find("\"1s\""), 4, "\"-1s\"");
  const auto exp = dir.write("tiny.json", text);
  const auto reports = testing::run_sweep(exp, dir.path() / "out", 2);
  std::size_t failed = 0;
  for (const auto& r : reports) {
    if (r.status == RunStatus::kFailed) {
      ++failed;
      EXPECT_NE(r.error.find("keep_alive"), std::string::npos) << r.error;
    } else {
      EXPECT_EQ(r.status, RunStatus::kDone) << r.error;
    }
  }
  EXPECT_EQ(failed, 4U);  // 2 loads x 2 seeds with the short keep-alive
  const std::string results = read_file(dir.path() / "out" / "results.csv");
  EXPECT_NE(results.find(",failed,"), std::string::npos);
}

TEST(SweepRun, ScenarioHashFollowsTheResolvedDocument) {
  EXPECT_EQ(scenario_hash(nlohmann::json{{"a", 1}}), scenario_hash(nlohmann::json{{"a", 1}}));
  EXPECT_NE(scenario_hash(nlohmann::json{{"a", 1}}), scenario_hash(nlohmann::json{{"a", 2}}));
  // FNV-1a 64 of "null" (the empty document's dump).
  EXPECT_EQ(scenario_hash(nlohmann::json()), "fnv1a64:5b9bc4ba528108e4");
}

}  // namespace
}  // namespace sim::sweep
