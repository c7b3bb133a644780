// The classical hold model for the pending-event set (Vaucher & Duval 1975; ns-3's
// bench-scheduler): N events pending; each step pops the earliest and schedules one new event
// at now + Exp(1). The rate reported is events executed per second.
//
// The callbacks capture one pointer, as model code does (`[this] { ... }`), so they fit in
// EventCallback's inline storage and scheduling does not allocate.
//
// Two ways to draw the Exp(1) holding time (issue 24, goal 3, compares this model with SimPy's):
//   - BM_HoldModel: RandomStream::exponential, -log1p(-U), the draw the platform's models use;
//     glibc's log1p alone is about a third of an event's time at N = 1e5 (perf, 2026-11-27);
//   - BM_HoldModelSimPyDraw: -log(1 - U), the formula of Python's random.expovariate, which the
//     SimPy hold program (bench/engine/simpy_hold.py) calls, so that the two programs differ in
//     their engines and not in the cost of their logarithm. Same U stream, same distribution.
#include <benchmark/benchmark.h>

#include <cmath>

#include "sim/engine/simulation.hpp"

namespace {

enum class Draw { kRandomStream, kSimPy };

template <Draw kDraw>
class HoldModel {
 public:
  HoldModel(std::size_t n, bool cancel_half) : sim_(1), rng_(sim_.rng("bench", "hold")) {
    cancel_half_ = cancel_half;
    sim_.queue().reserve(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
      sim_.schedule_at(sim::seconds(holding_time()), [this] { hold(); });
    }
  }

  // Each event schedules its successor; with cancel_half it also schedules a second event and
  // cancels it at once, so half of all scheduled events are cancelled before they fire.
  void hold() {
    sim_.schedule_in(sim::seconds(holding_time()), [this] { hold(); });
    if (cancel_half_) {
      auto h = sim_.schedule_in(sim::seconds(holding_time()), [this] { hold(); });
      h.cancel();
    }
  }

  sim::Simulation& sim() { return sim_; }

 private:
  double holding_time() {
    if constexpr (kDraw == Draw::kSimPy) return -std::log(1.0 - rng_.uniform01());
    return rng_.exponential(1.0);
  }

  sim::Simulation sim_;
  sim::RandomStream rng_;
  bool cancel_half_ = false;
};

// Through the public run loop (Simulation::run_until), as a simulation runs.
template <Draw kDraw>
void run_hold_model(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  HoldModel<kDraw> model(n, state.range(1) != 0);
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

void BM_HoldModel(benchmark::State& state) {
  run_hold_model<Draw::kRandomStream>(state);
}
void BM_HoldModelSimPyDraw(benchmark::State& state) {
  run_hold_model<Draw::kSimPy>(state);
}

}  // namespace

BENCHMARK(BM_HoldModel)
    ->ArgsProduct({{1000, 100000, 1000000}, {0, 1}})
    ->ArgNames({"N", "cancel_half"})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HoldModelSimPyDraw)
    ->ArgsProduct({{1000, 100000, 1000000}, {0, 1}})
    ->ArgNames({"N", "cancel_half"})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
