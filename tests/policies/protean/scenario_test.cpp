// Protean and a baseline through the scenario layer (CI-sized §5 setup: 8 A100s, Wikipedia at
// 5000 rps, 50/50 strict ResNet 50 / best-effort LI models changing every 20 s).

#include <gtest/gtest.h>

#include <unistd.h>
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
  ro.out_dir = std::filesystem::temp_directory_path() /
               ("dcsim_protean_" + name + "-" + std::to_string(::getpid()));
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

TEST(ProteanScenario, ProteanAndNaiveSlicingServeTheWikipediaMix) {
  if (!have_wikipedia_trace()) GTEST_SKIP() << "Wikipedia trace not downloaded";
  const auto protean = run_ci("wiki-resnet-50-protean");
  const auto naive = run_ci("wiki-resnet-50-naive-slicing");
  // Both schemes admit every request of the 60 s mix and serve both classes. Whether Protean's
  // strict tail is below Naive Slicing's (Fig. 6, "up to 36% less") is a paper claim, tracked in
  // the scorecard (protean.fig6.resnet-50.protean-tail-below-naive), not asserted here: on the
  // work-conserving GPU model it does not hold yet (docs/reproduction/protean.md).
  for (const auto* s : {&protean, &naive}) {
    EXPECT_EQ((*s)["requests"]["dropped"].get<std::uint64_t>(), 0u);
    // ~150,000 requests arrive after the 10 s warm-up (5,000 rps x 30 s); the run ends without
    // draining, so up to a few seconds of load may still be queued (Protean's strict P50 is
    // 1.6 s here), not more: 130,000 = 150,000 - 4 s x 5,000 rps.
    EXPECT_GT((*s)["requests"]["completed"].get<std::uint64_t>(), 130000u);
    EXPECT_GT((*s)["per_class"]["strict"]["slo"]["compliance"].get<double>(), 0.0);
    // Each node receives about 5,000 / 2 / 8 = 312 strict rps, so a strict batch closes on the
    // 50 ms batching timeout (128 requests would take 410 ms to arrive) with ~16 requests, and
    // its first request (1 in ~16, more than 1%) waits the whole 50 ms before running. Its
    // batch then takes at least the fixed 5% of a 110 ms ResNet 50 batch, on a 4g (RDF
    // 1.4125) at best: 110 x 0.05 x 1.4125 = 7.8 ms. So the strict P99 >= 57.8 ms. (Not 110
    // ms: node batches are partial, so a batch can be shorter than a full one on 7g.)
    EXPECT_GE(strict_p99((*s)), 0.0577);
  }
}

}  // namespace
}  // namespace sim::scenario
