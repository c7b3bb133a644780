#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "sim/sweep/executor.hpp"

namespace sim::sweep {

std::vector<RunReport> run_on_threads(const Plan& plan, const RunContext& context, std::size_t jobs,
                                      const ExecutorHooks& hooks) {
  std::vector<RunReport> reports(plan.runs.size());
  for (std::size_t i = 0; i < reports.size(); ++i)
    reports[i].index = i;
  std::atomic<std::size_t> next{0};
  std::mutex finished;
  auto worker = [&] {
    const scenario::Registry registry = hooks.make_registry();
    RunContext own = context;
    own.registry = &registry;
    while (!(hooks.interrupted && hooks.interrupted())) {
      const std::size_t i = next.fetch_add(1);
      if (i >= plan.runs.size()) break;
      RunReport report = execute_run(plan.runs[i], own);
      const std::lock_guard lock(finished);
      reports[i] = std::move(report);
      if (hooks.on_finished) hooks.on_finished(plan.runs[i], reports[i]);
    }
  };
  const std::size_t threads = std::max<std::size_t>(1, std::min(jobs, plan.runs.size()));
  if (threads == 1) {
    worker();
    return reports;
  }
  std::vector<std::jthread> pool;
  pool.reserve(threads);
  for (std::size_t t = 0; t < threads; ++t)
    pool.emplace_back(worker);
  pool.clear();  // joins
  return reports;
}

}  // namespace sim::sweep
