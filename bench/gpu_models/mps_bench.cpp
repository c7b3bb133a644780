// MPS re-evaluation cost (sharing_model.hpp): every arrival or departure that changes a
// co-runner's rate re-issues its completion event, so the cost per job grows with the
// number of co-runners. Each iteration keeps N jobs co-located on one A100 (a finished job is
// immediately replaced) and runs 10,000 job completions.

#include <benchmark/benchmark.h>

#include <cstdint>

#include "sim/gpu_models/shared_unit.hpp"

namespace {

sim::gpu::GpuType a100() {
  sim::gpu::GpuType g;
  g.name = "A100-40GB";
  g.memory_gb = 40;
  g.memory_slices = 8;
  return g;
}

sim::gpu::ModelProfile model(int i) {
  sim::gpu::ModelProfile m;
  m.name = "m" + std::to_string(i);
  sim::gpu::GpuProfile g;
  g.xi1_s.value = 0.0004;
  g.xi2_s.value = 0.050 + 0.010 * (i % 7);  // different solo times so departures interleave
  g.fbr = sim::gpu::Sourced<double>{0.15 + 0.05 * (i % 5), {}};
  g.rdf = {{"7g.40gb", 1.0}};
  m.gpu = g;
  return m;
}

void BM_MpsCoRunners(benchmark::State& state) {
  const auto n = static_cast<int>(state.range(0));
  const sim::gpu::GpuType gpu = a100();
  std::vector<sim::gpu::ModelProfile> models;
  for (int i = 0; i < n; ++i)
    models.push_back(model(i));
  constexpr std::uint64_t kJobs = 10000;
  std::uint64_t events = 0;
  for (auto _ : state) {
    sim::Simulation sim;
    sim::gpu::SharedUnit unit(sim, "gpu", gpu);
    std::uint64_t submitted = 0;
    std::function<void(int)> submit = [&](int slot) {
      if (submitted >= kJobs) return;
      ++submitted;
      unit.submit({submitted, &models[static_cast<std::size_t>(slot)], 1, 1.0,
                   [&submit, slot](const sim::gpu::JobResult&) { submit(slot); }});
    };
    for (int i = 0; i < n; ++i)
      submit(i);
    sim.run();
    events += unit.events_issued();
    benchmark::DoNotOptimize(sim.now());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kJobs));
  state.counters["events_per_job"] =
      static_cast<double>(events) / static_cast<double>(state.iterations() * kJobs);
}
BENCHMARK(BM_MpsCoRunners)->Arg(2)->Arg(4)->Arg(8)->Arg(12)->Arg(16)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
