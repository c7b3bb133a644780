#pragma once
// Shared by the sweep tests: a fresh temporary directory, small experiment files, and a
// library-level sweep runner that behaves like `dcsim sweep` without the command line.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "sim/scenario/registry.hpp"
#include "sim/sweep/executor.hpp"
#include "sim/sweep/experiment.hpp"
#include "sim/sweep/plan.hpp"
#include "sim/sweep/results.hpp"
#include "support/test_files.hpp"

namespace sim::sweep::testing {

using test_support::read_file;
using test_support::TempDir;

/// Every regular file under `dir` (relative path -> bytes), the runs' sweep-run.json records
/// included: they hold no wall time, so they too are byte-identical between executions.
inline std::map<std::string, std::string> tree(const std::filesystem::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    files[std::filesystem::relative(e.path(), dir).string()] = read_file(e.path());
  }
  return files;
}

inline scenario::Registry make_registry() {
  scenario::Registry r;
  scenario::register_builtin_components(r);
  return r;
}

/// Runs an experiment into out/ like `dcsim sweep -j jobs` and returns the reports.
inline std::vector<RunReport> run_sweep(const std::filesystem::path& experiment_file,
                                        const std::filesystem::path& out, std::size_t jobs,
                                        ExecutorHooks hooks = {}) {
  const auto experiment = load_experiment(experiment_file);
  const auto plan = expand(experiment);
  RunContext context;
  context.preset_dirs = {std::filesystem::path(SIM_SOURCE_DIR) / "scenarios" / "presets"};
  context.runs_dir = out / "runs";
  context.data_dir = std::filesystem::path(SIM_SOURCE_DIR) / "data";
  context.interrupted = hooks.interrupted;
  std::filesystem::create_directories(context.runs_dir);
  hooks.make_registry = make_registry;
  auto reports = run_on_threads(plan, context, jobs, hooks);
  write_results_csv(out / "results.csv", plan, reports);
  write_aggregate_csv(out / "aggregate.csv", plan, reports);
  return reports;
}

}  // namespace sim::sweep::testing
