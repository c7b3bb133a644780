// dcsim sweep: runs an experiment grid (docs/sweeps.md) on local threads, or over the ranks of
// an MPI job when started by mpirun.

#include <unistd.h>

#include <fmt/format.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <thread>

#include "commands.hpp"
#include "environment.hpp"
#include "options.hpp"
#include "sim/sweep/executor.hpp"
#include "sim/sweep/experiment.hpp"
#include "sim/sweep/plan.hpp"
#include "sim/sweep/progress.hpp"
#include "sim/sweep/results.hpp"

namespace sim::cli {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

std::string state_name(sweep::RunState s) {
  switch (s) {
    case sweep::RunState::kUpToDate:
      return "up to date";
    case sweep::RunState::kMissing:
      return "to run";
    case sweep::RunState::kPartial:
      return "to redo (partial)";
    case sweep::RunState::kStale:
      return "to redo (stale)";
  }
  return "";
}

/// Lists the runs, each with its state on disk and the overrides of its axes; returns how many
/// are invalid.
std::size_t print_dry_run(const sweep::Experiment& e, const sweep::Plan& plan,
                          const sweep::RunContext& context, std::ostream& out) {
  out << fmt::format("experiment {}: {} combinations x {} seeds = {} runs", e.name,
                     plan.combinations, e.seeds.size(), plan.runs.size());
  if (plan.excluded > 0) out << fmt::format(" ({} more filtered out)", plan.excluded);
  out << "\noutput: " << context.runs_dir.parent_path().string() << "/\n";
  std::size_t width = 0;
  for (const auto& r : plan.runs)
    width = std::max(width, r.name.size());
  std::size_t invalid = 0;
  for (const auto& r : plan.runs) {
    std::string state;
    try {
      const auto resolved = sweep::resolve_run(r, context);
      state =
          state_name(sweep::inspect_run(context.runs_dir / r.name, sweep::scenario_hash(resolved)));
    } catch (const std::exception& ex) {
      state = fmt::format("invalid: {}", ex.what());
      ++invalid;
    }
    std::string sets;
    // The axes' overrides: after the experiment's own, before seed and name.
    for (std::size_t i = e.overrides.size(); i + 2 + e.final_overrides.size() < r.overrides.size();
         ++i)
      sets += " --set " + r.overrides[i].text;
    out << fmt::format("  {:<{}}  {:<18}{}\n", r.name, width, state, sets);
  }
  return invalid;
}

}  // namespace

int sweep_command(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description options(
      "usage: dcsim sweep EXPERIMENT.json [options]\n"
      "       mpirun -n K dcsim sweep EXPERIMENT.json [options]\n\n"
      "Runs every combination of an experiment's axes for each of its seeds, writing\n"
      "OUT/NAME/runs/<run>/ (one dcsim run each), OUT/NAME/results.csv (one row per run) and\n"
      "OUT/NAME/aggregate.csv (mean, sd and 95% confidence interval per combination).\n"
      "Finished runs whose resolved scenario is unchanged are skipped, so an interrupted sweep\n"
      "resumes where it stopped. Under mpirun, rank 0 hands out runs to the other ranks.\n"
      "See docs/sweeps.md.\n\noptions");
  options.add_options()("help,h", "show this help")("experiment", po::value<std::string>(),
                                                    "experiment file (JSON)")(
      "dry-run,n", "list the runs and their state without running anything")(
      "jobs,j", po::value<unsigned>(), "worker threads (default: the machine's cores)")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "override a scenario value in every run, after the axes: KEY.PATH=VALUE, e.g. --set "
      "duration=60s (repeatable)")("out,o", po::value<std::string>()->default_value("out"),
                                   "output directory; results go to OUT/NAME/")(
      "quiet,q", "print no final summary");
  if (wants_help(args)) {
    out << options << '\n';
    return kExitOk;
  }
  po::positional_options_description positional;
  positional.add("experiment", 1);
  const auto vm = parse_command_line(args, options, positional);
  if (vm.count("experiment") == 0) throw UsageError("missing EXPERIMENT.json");
  std::size_t jobs = std::max(1U, std::thread::hardware_concurrency());
  if (vm.count("jobs") != 0) {
    if (vm["jobs"].as<unsigned>() == 0) throw UsageError("--jobs must be at least 1");
    jobs = vm["jobs"].as<unsigned>();
  }

  auto experiment = sweep::load_experiment(vm["experiment"].as<std::string>());
  if (vm.count("set") != 0) {
    for (const auto& s : vm["set"].as<std::vector<std::string>>())
      experiment.final_overrides.push_back(scenario::parse_override(s));
  }
  const auto plan = sweep::expand(experiment);
  const fs::path sweep_dir = fs::path(vm["out"].as<std::string>()) / experiment.name;

  sweep::RunContext context;
  context.preset_dirs = preset_dirs();
  context.runs_dir = sweep_dir / "runs";
  context.trace_search_path = trace_search_path();
  context.data_dir = data_dir();
  context.interrupted = interrupt_requested;

  if (vm.count("dry-run") != 0) {
    const auto registry = builtin_registry();
    context.registry = &registry;
    // A dry run is a check: invalid runs make it fail, as they would fail the sweep.
    const std::size_t invalid = print_dry_run(experiment, plan, context, out);
    if (invalid > 0) {
      err << fmt::format("dcsim sweep: {} of {} runs are invalid\n", invalid, plan.runs.size());
      return kExitFailure;
    }
    return kExitOk;
  }

  const bool under_mpi = sweep::launched_by_mpi();
  if (under_mpi && !sweep::mpi_built()) {
    throw std::runtime_error(
        "started by an MPI launcher, but this dcsim was built without MPI: every rank would run "
        "the whole sweep. Reconfigure with -DSIM_WITH_MPI=ON (needs libopenmpi-dev).");
  }
  fs::create_directories(context.runs_dir);

  const bool terminal = isatty(STDERR_FILENO) != 0;
  const auto started = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  sweep::SweepProgress progress(plan.runs.size());
  sweep::ExecutorHooks hooks;
  hooks.make_registry = builtin_registry;
  hooks.interrupted = interrupt_requested;
  hooks.on_finished = [&](const sweep::PlannedRun& run, const sweep::RunReport& report) {
    progress.record(report);
    if (terminal) err << "\r\x1b[K";
    if (report.status == sweep::RunStatus::kFailed) {
      err << "run " << run.name << " failed: " << report.error << '\n';
    }
    if (terminal) err << progress.line(elapsed()) << std::flush;
  };

  std::vector<sweep::RunReport> reports;
  if (under_mpi) {
    auto outcome = sweep::run_with_mpi(plan, context, hooks);
    if (!outcome.coordinator) return kExitOk;  // the coordinator reports for everyone
    reports = std::move(outcome.reports);
  } else {
    reports = sweep::run_on_threads(plan, context, jobs, hooks);
  }
  if (terminal) err << "\r\x1b[K" << std::flush;

  sweep::write_results_csv(sweep_dir / "results.csv", plan, reports);
  sweep::write_aggregate_csv(sweep_dir / "aggregate.csv", plan, reports);
  const bool interrupted = interrupt_requested() || progress.stopped() > 0;
  if (vm.count("quiet") == 0) {
    out << fmt::format("dcsim sweep {}: {} runs: {} ran, {} up to date, {} failed", experiment.name,
                       plan.runs.size(), progress.ran(), progress.up_to_date(), progress.failed());
    if (interrupted) {
      out << fmt::format(
          ", {} not finished (interrupted; run again to resume)",
          plan.runs.size() - progress.ran() - progress.up_to_date() - progress.failed());
    }
    out << fmt::format(" in {}\nresults: {}, {}\n", sweep::format_duration(elapsed()),
                       (sweep_dir / "results.csv").string(),
                       (sweep_dir / "aggregate.csv").string());
  }
  if (interrupted) return kExitInterrupted;
  return progress.failed() > 0 ? kExitFailure : kExitOk;
}

}  // namespace sim::cli
