// INFless end to end on the serverless platform: a small OSVT-like scenario (INFless §5.1) on
// one Table 2 server (2 RTX 2080Ti under MPS, 32 threads).

#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "sim/scenario/run.hpp"

namespace sim::scenario {
namespace {

using nlohmann::json;

json scenario(const json& policies) {
  json s = json::parse(R"({
    "name": "infless-small",
    "seed": 7,
    "duration": "60s",
    "warmup": "20s",
    "output": {"requests": "none"},
    "workload": [
      {"type": "poisson", "rate": "150/s", "function": "resnet", "class": "strict", "slo": "200ms"}
    ],
    "platform": {
      "type": "serverless",
      "control_interval": "1s",
      "rate_windows": ["1s"],
      "cluster": {"hosts": [{"count": 1, "cores": 32, "memory": "128GB",
                             "gpus": [{"type": "RTX-2080Ti", "count": 2, "sharing": "mps"}]}]},
      "functions": [{"name": "resnet", "model": "infless/resnet-50", "max_batch": 1,
                     "cpu_threads": 2, "gpu_share": 0.1, "device_memory": "1GB"}]
    }
  })");
  s["platform"]["policies"] = policies;
  return s;
}

RunResult run(const json& doc, const std::string& name) {
  Registry registry;
  register_builtin_components(registry);
  const auto dir = std::filesystem::temp_directory_path() /
                   ("infless-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "s.json";
  std::ofstream(file) << doc.dump();
  const auto loaded = load_scenario(file, registry, LoadOptions{});
  RunOptions ro;
  ro.out_dir = dir / "out";
  ro.data_dir = SIM_SOURCE_DIR "/data";
  auto r = run_scenario(loaded, registry, ro);
  std::filesystem::remove_all(dir);
  return r;
}

// 150 req/s of resnet-50 at a 200 ms SLO: Algorithm 1 covers it with batching instances (the
// largest feasible batch first), so after the cold starts (warm-up) nearly every request
// meets its SLO (Fig. 15: violations <= 3.1%), with fewer instances than one per 15 req/s.
TEST(InflessScenario, MeetsTheSloWithBatchingInstances) {
  const json p = json::parse(R"({
    "batcher": {"type": "infless-slo"}, "dispatcher": {"type": "infless-rate"},
    "autoscaler": {"type": "infless", "slo": "200ms", "max_batch": 32},
    "placement": {"type": "infless-efficiency"}, "keep_alive": {"type": "lsth"}})");
  const auto r = run(scenario(p), "infless");
  const json& s = r.summary;
  EXPECT_GT(s["slo"]["compliance"].get<double>(), 0.95) << s.dump(1);
  EXPECT_EQ(s["decisions"]["rejected"].value("start_invalid", 0), 0) << s.dump(1);
}

}  // namespace
}  // namespace sim::scenario
