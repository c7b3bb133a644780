// Protean and a baseline through the scenario layer (CI-sized §5 setup: 8 A100s, Wikipedia at
// 5000 rps, 50/50 strict ResNet 50 / best-effort LI models changing every 20 s).

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "sim/scenario/registry.hpp"
#include "sim/scenario/run.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/traces/trace_path.hpp"

namespace sim::scenario {
namespace {

nlohmann::json run_ci(const std::string& name) {
  Registry registry;
  register_builtin_components(registry);
  LoadOptions lo;
  lo.preset_dirs.emplace_back(SIM_SOURCE_DIR "/scenarios/presets");
  const auto loaded =
      load_scenario(SIM_SOURCE_DIR "/scenarios/protean/ci/" + name + ".json", registry, lo);
  RunOptions ro;
  ro.out_dir = std::filesystem::temp_directory_path() / ("dcsim_protean_" + name);
  ro.data_dir = SIM_SOURCE_DIR "/data";
  ro.trace_search_path = traces::default_trace_search_path(SIM_SOURCE_DIR);
  auto result = run_scenario(loaded, registry, ro);
  std::filesystem::remove_all(ro.out_dir);
  return result.summary;
}

double strict_p99(const nlohmann::json& s) {
  return s["per_class"]["strict"]["latency_s"]["p99"].get<double>();
}

bool have_wikipedia_trace() {
  for (const auto& dir : traces::default_trace_search_path(SIM_SOURCE_DIR)) {
    if (std::filesystem::exists(std::filesystem::path(dir) / "wikipedia")) return true;
  }
  return false;
}

TEST(ProteanScenario, StrictBatchesAvoidTheSlicesBestEffortUses) {
  if (!have_wikipedia_trace()) GTEST_SKIP() << "Wikipedia trace not downloaded";
  const auto protean = run_ci("wiki-resnet-50-protean");
  const auto naive = run_ci("wiki-resnet-50-naive-slicing");
  // §6.1.1: Protean's strict requests meet the SLO (3 x 110 ms); Algorithm 1 keeps them on the
  // 4g slices (RDF 1.41) away from best-effort batches, while Naive Slicing spreads them over
  // the 4g and the 3g (RDF 1.73) with BE co-runners: a lower strict tail for Protean.
  EXPECT_GE(protean["per_class"]["strict"]["slo"]["compliance"].get<double>(), 0.99);
  EXPECT_LT(strict_p99(protean), strict_p99(naive));
  // The tail stays inside the SLO: the 4g holds at most three 6.5 GB containers, so a strict
  // batch runs at worst 110 ms x 1.4125 x max{3 x 0.48, 1} = 224 ms (eq. 2) < 330 ms.
  EXPECT_LT(strict_p99(protean), 0.330);
  EXPECT_EQ(protean["requests"]["dropped"].get<std::uint64_t>(), 0u);
}

}  // namespace
}  // namespace sim::scenario
