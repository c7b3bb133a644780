// Planner time against the number of applications (HarmonyBatch Table IV: VGG-19 with 1 to
// 12 applications; the paper reports 2, 23 and 38 ms for 1, 6 and 12, "roughly linear").
// Applications i = 0..n-1 have SLOs 0.2 + 0.8 i / 11 s and rates 2 + 3 (i mod 5) req/s, so
// that the set mixes CPU and GPU groups as §V-C's does. BATCH and MBS+ are measured beside it.

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "harmonybatch/baselines.hpp"
#include "sim/gpu_models/model_catalog.hpp"

namespace {

namespace hb = sim::policy::harmonybatch;

const hb::PlannerModel& vgg19() {
  static const hb::PlannerModel m = hb::PlannerModel::from_profile(
      sim::gpu::ModelCatalog::load(std::string(SIM_SOURCE_DIR) + "/data/models")
          .model("harmonybatch/vgg19"));
  return m;
}

std::vector<hb::Application> applications(int n) {
  std::vector<hb::Application> apps;
  for (int i = 0; i < n; ++i) {
    apps.push_back({"app" + std::to_string(i), 0.2 + 0.8 * i / 11.0, 2.0 + 3.0 * (i % 5)});
  }
  return apps;
}

void run(benchmark::State& state, const char* algorithm) {
  const auto apps = applications(static_cast<int>(state.range(0)));
  const hb::PlannerOptions o;
  for (auto _ : state) {
    auto plan = hb::plan_with(algorithm, vgg19(), apps, o);
    benchmark::DoNotOptimize(plan);
  }
  state.SetComplexityN(state.range(0));
}

void BM_HarmonyBatch(benchmark::State& state) {
  run(state, "harmonybatch");
}
void BM_Batch(benchmark::State& state) {
  run(state, "batch");
}
void BM_MbsPlus(benchmark::State& state) {
  run(state, "mbs+");
}

BENCHMARK(BM_HarmonyBatch)->DenseRange(1, 12, 1)->Unit(benchmark::kMillisecond)->Complexity();
BENCHMARK(BM_Batch)->Arg(1)->Arg(6)->Arg(12)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MbsPlus)->Arg(1)->Arg(6)->Arg(12)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
