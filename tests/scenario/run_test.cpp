#include "sim/scenario/run.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "sim/config/diagnostics.hpp"
#include "sim/metrics/hdf5_request_writer.hpp"
#include "support/test_files.hpp"

namespace sim::scenario {
namespace {

using nlohmann::json;
using test_support::read_file;
using test_support::TempDir;

// Two functions on two GPUs; 60 s at 400 requests/s is about 24,000 requests.
const char* kScenario = R"({
  "name": "small",
  "seed": 11,
  "duration": "60s",
  "warmup": "5s",
  "output": {"requests": "csv", "timeseries_period": "1s"},
  "workload": [
    {"type": "poisson", "rate": "300/s", "function": "a", "class": "strict", "slo": "100ms"},
    {"type": "poisson", "rate": "100/s", "function": "b", "class": "best-effort"}
  ],
  "platform": {"type": "fifo-gpu", "gpus": 2, "max_batch": 8}
})";

class Run : public ::testing::Test {
 protected:
  Run() { register_builtin_components(registry_); }

  RunResult run(const std::string& out_subdir, const std::vector<std::string>& sets = {},
                std::function<bool()> interrupted = {}) {
    const auto file = dir_.write("small.json", kScenario);
    LoadOptions lo;
    for (const auto& s : sets)
      lo.overrides.push_back(parse_override(s));
    const auto loaded = load_scenario(file, registry_, lo);
    RunOptions ro;
    ro.out_dir = dir_.path() / out_subdir;
    ro.interrupted = std::move(interrupted);
    return run_scenario(loaded, registry_, ro);
  }

  Registry registry_;
  TempDir dir_{"run"};
};

TEST_F(Run, WritesEveryOutput) {
  const auto r = run("out");
  for (const char* f : {"summary.json", "requests.csv", "timeseries.csv", "scenario.json"}) {
    EXPECT_TRUE(std::filesystem::is_regular_file(r.directory / f)) << f;
  }
  // No temporary file is left beside the results.
  for (const auto& e : std::filesystem::directory_iterator(r.directory)) {
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << e.path();
  }
  // The written scenario is the resolved one and loads again to the same document.
  const json written = json::parse(read_file(r.directory / "scenario.json"));
  EXPECT_EQ(written["platform"]["batch_base"], "10ms");
  EXPECT_EQ(resolve_document(written, "scenario.json", registry_), written);
}

TEST_F(Run, CountsAreConserved) {
  const auto r = run("out");
  const json& s = r.summary;
  const auto arrived = s["requests_arrived"].get<std::uint64_t>();
  const auto recorded = s["requests"]["recorded"].get<std::uint64_t>();
  const auto warmup = s["requests"]["warmup_excluded"].get<std::uint64_t>();
  const auto in_system = s["requests_in_system_at_end"].get<std::uint64_t>();
  // 400/s for 60 s: the count is Poisson(24000), within 5 sigma (775) of its mean.
  EXPECT_NEAR(static_cast<double>(arrived), 24000.0, 775.0);
  EXPECT_EQ(arrived, recorded + warmup + in_system);
  EXPECT_EQ(s["partial"], false);
  // Light load (65% of capacity): every strict request meets a 100 ms SLO it can reach.
  EXPECT_GT(s["slo"]["compliance"].get<double>(), 0.99);
}

TEST_F(Run, SameSeedGivesByteIdenticalOutputs) {
  const auto a = run("a");
  const auto b = run("b");
  for (const char* f : {"summary.json", "requests.csv", "timeseries.csv", "scenario.json"}) {
    EXPECT_EQ(read_file(a.directory / f), read_file(b.directory / f)) << f;
  }
  const auto c = run("c", {"seed=12"});
  EXPECT_NE(read_file(a.directory / "requests.csv"), read_file(c.directory / "requests.csv"));
}

TEST_F(Run, Hdf5OutputIsDeterministicAndReadsBack) {
  const auto a = run("a", {"output.requests=hdf5", "duration=10s", "warmup=0s"});
  const auto b = run("b", {"output.requests=hdf5", "duration=10s", "warmup=0s"});
  EXPECT_EQ(read_file(a.directory / "requests.h5"), read_file(b.directory / "requests.h5"));
  const auto file = metrics::read_requests_h5(a.directory / "requests.h5");
  EXPECT_EQ(file.records.size(), a.summary["requests"]["recorded"].get<std::uint64_t>());
  EXPECT_EQ(file.names.functions, (std::vector<std::string>{"a", "b"}));
}

TEST_F(Run, InterruptedRunWritesPartialResults) {
  int polls = 0;
  const auto r = run("out", {}, [&polls] { return ++polls >= 2; });
  EXPECT_TRUE(r.partial);
  const json s = json::parse(read_file(r.directory / "summary.json"));
  EXPECT_EQ(s["partial"], true);
  EXPECT_LT(s["run"]["simulated_until_s"].get<double>(), 60.0);
  // Conservation holds for a partial run too.
  EXPECT_EQ(s["requests_arrived"].get<std::uint64_t>(),
            s["requests"]["recorded"].get<std::uint64_t>() +
                s["requests"]["warmup_excluded"].get<std::uint64_t>() +
                s["requests_in_system_at_end"].get<std::uint64_t>());
}

// A trace that names functions row by row (here the third function first appears at 2 s, after
// the writers were created) is written and summarised under every name; it once failed with
// "function id 2 has no name" in the writers and the summary.
TEST(RunNames, FunctionsFirstSeenLateInTheTraceAreNamed) {
  TempDir dir{"run-late-names"};
  const auto trace =
      dir.write("t.csv", "time,fn\n0.1,f0\n0.5,f1\n1.0,f0\n2.0,f2\n2.5,f2\n3.0,f1\n");
  for (const char* requests : {"csv", "hdf5", "none"}) {
    const json doc = {{"name", std::string("late-") + requests},
                      {"duration", "5s"},
                      {"output", {{"requests", requests}}},
                      {"workload", json::array({{{"type", "csv_timestamps"},
                                                 {"file", trace.string()},
                                                 {"header", "yes"},
                                                 {"time_column", "time"},
                                                 {"function_column", "fn"}}})},
                      {"platform", {{"type", "fifo-gpu"}, {"gpus", 1}}}};
    const auto file = dir.write(std::string("late-") + requests + ".json", doc.dump());
    Registry registry;
    register_builtin_components(registry);
    RunOptions ro;
    ro.out_dir = dir.path() / "out";
    const auto r = run_scenario(load_scenario(file, registry, {}), registry, ro);
    EXPECT_EQ(r.summary.at("per_function").size(), 3u) << requests;
    EXPECT_TRUE(r.summary.at("per_function").contains("f2")) << requests;
    if (std::string(requests) == "hdf5") {
      const auto h5 = metrics::read_requests_h5(r.directory / "requests.h5");
      EXPECT_EQ(h5.records.size(), 6u);
      EXPECT_EQ(h5.names.functions.size(), 3u);
    }
    if (std::string(requests) == "csv") {
      EXPECT_NE(read_file(r.directory / "requests.csv").find(",f2,"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace sim::scenario

namespace sim::scenario {
namespace {

// A run in memory (the Python module's mode) gives the summary and time series that the run
// into files writes, hands over every record, and leaves no folder behind.
TEST(RunInMemory, EqualsTheRunIntoFiles) {
  Registry registry;
  register_builtin_components(registry);
  test_support::TempDir dir{"run-memory"};
  const auto file = dir.write("small.json", kScenario);
  const auto loaded = load_scenario(file, registry, {});

  RunOptions to_files;
  to_files.out_dir = dir.path() / "files";
  const auto written = run_scenario(loaded, registry, to_files);

  RunOptions in_memory;
  in_memory.out_dir = dir.path() / "memory";
  in_memory.write_files = false;
  std::uint64_t records = 0;
  in_memory.on_record = [&records](const metrics::RequestRecord&) { ++records; };
  std::ostringstream timeseries;
  in_memory.timeseries_text = &timeseries;
  const auto r = run_scenario(loaded, registry, in_memory);

  EXPECT_EQ(r.summary, written.summary);
  EXPECT_EQ(timeseries.str(), test_support::read_file(written.directory / "timeseries.csv"));
  EXPECT_EQ(records, r.summary["requests"]["recorded"].get<std::uint64_t>() +
                         r.summary["requests"]["warmup_excluded"].get<std::uint64_t>());
  EXPECT_EQ(r.names.functions, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "memory"));
}

// A document loads as its file does; its label names it in messages.
TEST(LoadScenarioDocument, EqualsLoadingTheFile) {
  Registry registry;
  register_builtin_components(registry);
  test_support::TempDir dir{"load-document"};
  const auto file = dir.write("small.json", kScenario);
  const auto from_file = load_scenario(file, registry, {});
  const auto from_document = load_scenario_document(json::parse(kScenario), "<dict>", registry, {});
  EXPECT_EQ(from_document.resolved, from_file.resolved);
  EXPECT_EQ(from_document.file, "<dict>");

  json bad = json::parse(kScenario);
  bad["workload"][0]["rate"] = "fast";
  try {
    (void)load_scenario_document(bad, "<dict>", registry, {});
    FAIL() << "expected a ConfigError";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("<dict>: /workload/0/rate"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace sim::scenario
