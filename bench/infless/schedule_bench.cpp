// INFless Algorithm 1 (Schedule) on the large-scale cluster of §5.3: 2,000 servers of the
// Table 2 kind (32 threads, 2 RTX 2080Ti). One call covers a residual rate that needs many
// instances; the reported time per instance is comparable with Fig. 17a's 0.5 ms.

#include <benchmark/benchmark.h>

#include "infless/resource_efficiency.hpp"
#include "infless/schedule.hpp"
#include "sim/gpu_models/model_catalog.hpp"

namespace {

using namespace sim::policy::infless;

const sim::gpu::ModelCatalog& catalog() {
  static const auto c = sim::gpu::ModelCatalog::load(SIM_SOURCE_DIR "/data/models");
  return c;
}

std::vector<ServerState> cluster(int servers) {
  std::vector<ServerState> out;
  for (int h = 0; h < servers; ++h) {
    ServerState s;
    s.host = h;
    s.cores_free = 32;
    s.memory_free_bytes = 128e9;
    s.gpus = {{0, true, 1.0, 11.0}, {1, true, 1.0, 11.0}};
    out.push_back(s);
  }
  return out;
}

/// Args: servers, residual rate (req/s) of one resnet-50 function at a 200 ms SLO.
void BM_Schedule(benchmark::State& state) {
  const auto& model = *catalog().model("infless/resnet-50").operators;
  const LatencyPredictor predictor(model, std::nullopt);
  ScheduleOptions o;
  o.batches = batch_set(32);
  o.t_slo_s = 0.2;
  o.beta = conversion_factor(64, 14200);
  o.model_bytes = 98e6;
  o.device_memory_gb = 1.0;
  const auto base = cluster(static_cast<int>(state.range(0)));
  std::size_t instances = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto servers = base;
    state.ResumeTiming();
    const auto placed = schedule(static_cast<double>(state.range(1)), o, predictor, servers);
    instances += placed.size();
    benchmark::DoNotOptimize(placed.data());
  }
  state.counters["instances_per_call"] =
      static_cast<double>(instances) / static_cast<double>(state.iterations());
  state.counters["time_per_instance"] = benchmark::Counter(
      static_cast<double>(instances), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

BENCHMARK(BM_Schedule)
    ->Args({8, 1000})
    ->Args({2000, 1000})
    ->Args({2000, 10000})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
