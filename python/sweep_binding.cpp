#include "sweep_binding.hpp"

#include <atomic>
#include <filesystem>

#include "environment.hpp"
#include "options.hpp"
#include "sim/scenario/overrides.hpp"
#include "sim/sweep/executor.hpp"
#include "sim/sweep/experiment.hpp"
#include "sim/sweep/results.hpp"

namespace sim::python {

namespace py = pybind11;
namespace fs = std::filesystem;

py::dict sweep(const std::string& experiment_file, const std::vector<std::string>& overrides,
               std::size_t jobs, const std::string& out_dir) {
  if (jobs == 0) throw std::invalid_argument("dcsim.sweep: jobs must be at least 1");
  auto experiment = sweep::load_experiment(experiment_file);
  for (const auto& s : overrides)
    experiment.final_overrides.push_back(scenario::parse_override(s));
  const auto plan = sweep::expand(experiment);
  const fs::path sweep_dir = fs::path(out_dir) / experiment.name;

  sweep::RunContext context;
  context.preset_dirs = cli::preset_dirs();
  context.runs_dir = sweep_dir / "runs";
  context.trace_search_path = cli::trace_search_path();
  context.data_dir = cli::data_dir();
  fs::create_directories(context.runs_dir);

  // The workers run without the interpreter; only this thread, between runs, looks for Ctrl-C
  // (which needs the GIL), and the workers read the flag it sets.
  std::atomic<bool> stop{false};
  context.interrupted = [&stop] { return stop.load(); };
  std::size_t failed = 0;
  sweep::ExecutorHooks hooks;
  hooks.make_registry = cli::builtin_registry;
  hooks.interrupted = [&stop] { return stop.load(); };
  hooks.on_finished = [&](const sweep::PlannedRun&, const sweep::RunReport& report) {
    if (report.status == sweep::RunStatus::kFailed) ++failed;
    const py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {
      PyErr_Clear();  // raised again once the sweep has written its tables
      stop = true;
    }
  };
  std::vector<sweep::RunReport> reports;
  {
    const py::gil_scoped_release release;
    reports = sweep::run_on_threads(plan, context, jobs, hooks);
  }
  sweep::write_results_csv(sweep_dir / "results.csv", plan, reports);
  sweep::write_aggregate_csv(sweep_dir / "aggregate.csv", plan, reports);

  if (stop.load()) {  // the finished runs are on disk; a later sweep resumes from them
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  py::dict out;
  out["directory"] = sweep_dir.string();
  out["runs"] = plan.runs.size();
  out["failed"] = failed;
  return out;
}

}  // namespace sim::python
