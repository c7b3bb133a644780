// The classical hold model for the pending-event set (Vaucher & Duval 1975; ns-3's
// bench-scheduler): N events pending; each step pops the earliest and schedules one new event
// at now + Exp(1). The rate reported is events executed per second.
//
// The callbacks capture one pointer, as model code does (`[this] { ... }`), so they fit in
// EventCallback's inline storage and scheduling does not allocate.
#include <benchmark/benchmark.h>

#include "sim/engine/simulation.hpp"

namespace {

class HoldModel {
 public:
  HoldModel(std::size_t n, bool cancel_half) : sim_(1), rng_(sim_.rng("bench", "hold")) {
    cancel_half_ = cancel_half;
    sim_.queue().reserve(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
      sim_.schedule_at(sim::seconds(rng_.exponential(1.0)), [this] { hold(); });
    }
  }

  // Each event schedules its successor; with cancel_half it also schedules a second event and
  // cancels it at once, so half of all scheduled events are cancelled before they fire.
  void hold() {
    sim_.schedule_in(sim::seconds(rng_.exponential(1.0)), [this] { hold(); });
    if (cancel_half_) {
      auto h = sim_.schedule_in(sim::seconds(rng_.exponential(1.0)), [this] { hold(); });
      h.cancel();
    }
  }

  sim::Simulation& sim() { return sim_; }

 private:
  sim::Simulation sim_;
  sim::RandomStream rng_;
  bool cancel_half_ = false;
};

// Through the public run loop (Simulation::run_until), as a simulation runs.
void BM_HoldModel(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  HoldModel model(n, state.range(1) != 0);
  auto& sim = model.sim();
  // Warm up for one mean holding time so that the heap reaches its stationary shape.
  sim.run_until(sim::seconds(1.0));
  // Each simulated second executes about N events; steps of ~10,000 events.
  const sim::Time step = sim::seconds(10000.0 / static_cast<double>(n));
  const std::uint64_t before = sim.events_executed();
  for (auto _ : state)
    sim.run_until(sim.now() + step);
  state.SetItemsProcessed(static_cast<std::int64_t>(sim.events_executed() - before));
  state.counters["pending"] = static_cast<double>(sim.pending_events());
}

}  // namespace

BENCHMARK(BM_HoldModel)
    ->ArgsProduct({{1000, 100000, 1000000}, {0, 1}})
    ->ArgNames({"N", "cancel_half"})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
