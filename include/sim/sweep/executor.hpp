#pragma once
/// Executors hand the runs of a plan to workers: threads of this process (run_on_threads) or
/// the ranks of an MPI job (run_with_mpi, where rank 0 coordinates). Both give out runs one at
/// a time in plan order to whichever worker is free, so long and short runs mix well, and both
/// return the reports indexed like the plan: the results do not depend on the executor.

#include <cstddef>
#include <functional>
#include <vector>

#include "sim/scenario/registry.hpp"
#include "sim/sweep/plan.hpp"
#include "sim/sweep/sweep_run.hpp"

namespace sim::sweep {

struct ExecutorHooks {
  /// Builds a worker's own registry (nothing is shared between concurrent runs).
  std::function<scenario::Registry()> make_registry;
  /// Called once per run as it ends, one call at a time, on the coordinating side.
  std::function<void(const PlannedRun&, const RunReport&)> on_finished;
  /// True once the sweep should stop handing out runs (Ctrl-C); runs in flight see it through
  /// RunContext::interrupted and stop early.
  std::function<bool()> interrupted;
};

/// Runs the plan on `jobs` >= 1 threads. `context.registry` is ignored (see make_registry).
std::vector<RunReport> run_on_threads(const Plan& plan, const RunContext& context, std::size_t jobs,
                                      const ExecutorHooks& hooks);

/// True when this binary was built with MPI (CMake option SIM_WITH_MPI).
bool mpi_built();
/// True when the process was started by an MPI launcher (mpirun sets OMPI_COMM_WORLD_SIZE,
/// PMI and PMIx launchers PMI_SIZE / PMIX_RANK).
bool launched_by_mpi();

struct MpiOutcome {
  bool coordinator = false;  ///< rank 0: `reports` holds every run's report
  int world_size = 1;
  std::vector<RunReport> reports;
};

/// Initialises MPI, runs the plan with rank 0 handing out runs to ranks 1..K-1 (rank 0 runs
/// them itself when alone), finalises MPI. Throws std::runtime_error if built without MPI.
MpiOutcome run_with_mpi(const Plan& plan, const RunContext& context, const ExecutorHooks& hooks);

}  // namespace sim::sweep
