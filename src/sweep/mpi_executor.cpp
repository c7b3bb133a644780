// MPI scale-out: rank 0 coordinates (hands out the next run to whichever rank asks), ranks
// 1..K-1 run. Messages are JSON text: a worker's request carries the report of its previous
// run (empty on the first request), the coordinator answers with a run index or "stop".
// MPI itself is reached through dcsim's MPI module (mpi_transport.hpp), loaded only here.

#include <cstdlib>
#include <stdexcept>

#include "sim/sweep/executor.hpp"

namespace sim::sweep {

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    if (const char* s = std::getenv(v); s != nullptr && *s != '\0') return true;
  }
  return false;
}

}  // namespace sim::sweep

#if SIM_HAVE_MPI

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "mpi_transport.hpp"
#include "sim/config/module.hpp"

namespace sim::sweep {

namespace {

constexpr int kTagRequest = 1;  // worker -> coordinator: previous report or ""
constexpr int kTagAssign = 2;   // coordinator -> worker: run index
constexpr int kTagStop = 3;     // coordinator -> worker: no more runs
constexpr int kAny = -1;        // any source, any tag

const DcsimMpiApi& load_mpi() {
  // Global: Open MPI's components, which it loads in turn, bind to its libraries' symbols.
  static const DcsimMpiApi& api = config::load_module_api<DcsimMpiApi>(
      mpi::kModuleFile, mpi::kModuleSymbol, mpi::kAbi, "dcsim sweep under an MPI launcher", true);
  return api;
}

void check(int rc, const char* what) {
  if (rc != 0) throw std::runtime_error(fmt::format("MPI: {} failed ({})", what, rc));
}

struct Probed {
  int source = 0;
  int tag = 0;
  int count = 0;  // chars
};

/// Waits for a message without spinning: Open MPI's blocking calls poll at full speed, which
/// would take a core from the runs when ranks outnumber cores.
Probed wait_for(const DcsimMpiApi& mpi, int source, int tag) {
  Probed probed;
  auto pause = std::chrono::microseconds(50);
  for (;;) {
    int flag = 0;
    check(mpi.iprobe(source, tag, &flag, &probed.source, &probed.tag, &probed.count), "MPI_Iprobe");
    if (flag != 0) return probed;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(20000));
  }
}

std::string receive_text(const DcsimMpiApi& mpi, const Probed& probed) {
  std::string text(static_cast<std::size_t>(probed.count), '\0');
  check(mpi.recv(text.data(), probed.count, probed.source, probed.tag), "MPI_Recv");
  return text;
}

void send_text(const DcsimMpiApi& mpi, const std::string& text, int dest, int tag) {
  check(mpi.send(text.data(), static_cast<int>(text.size()), dest, tag), "MPI_Send");
}

std::vector<RunReport> coordinate(const DcsimMpiApi& mpi, const Plan& plan, int world_size,
                                  const ExecutorHooks& hooks) {
  std::vector<RunReport> reports(plan.runs.size());
  for (std::size_t i = 0; i < reports.size(); ++i)
    reports[i].index = i;
  std::size_t next = 0;
  int active = world_size - 1;
  while (active > 0) {
    const Probed status = wait_for(mpi, kAny, kTagRequest);
    const std::string text = receive_text(mpi, status);
    if (!text.empty()) {
      RunReport report = report_from_json(nlohmann::json::parse(text));
      const std::size_t i = report.index;
      reports.at(i) = std::move(report);
      if (hooks.on_finished) hooks.on_finished(plan.runs[i], reports[i]);
    }
    if (next < plan.runs.size() && !(hooks.interrupted && hooks.interrupted())) {
      send_text(mpi, std::to_string(next++), status.source, kTagAssign);
    } else {
      send_text(mpi, "", status.source, kTagStop);
      --active;
    }
  }
  return reports;
}

void work(const DcsimMpiApi& mpi, const Plan& plan, const RunContext& context,
          const ExecutorHooks& hooks) {
  const scenario::Registry registry = hooks.make_registry();
  RunContext own = context;
  own.registry = &registry;
  std::string previous;
  for (;;) {
    send_text(mpi, previous, 0, kTagRequest);
    const Probed status = wait_for(mpi, 0, kAny);
    const std::string text = receive_text(mpi, status);
    if (status.tag == kTagStop) return;
    const std::size_t i = std::stoul(text);
    previous = to_json(execute_run(plan.runs.at(i), own)).dump();
  }
}

}  // namespace

bool mpi_built() {
  return true;
}

MpiOutcome run_with_mpi(const Plan& plan, const RunContext& context, const ExecutorHooks& hooks) {
  const DcsimMpiApi& mpi = load_mpi();
  check(mpi.init(), "MPI_Init");
  MpiOutcome outcome;
  int rank = 0;
  try {
    check(mpi.rank(&rank), "MPI_Comm_rank");
    check(mpi.size(&outcome.world_size), "MPI_Comm_size");
    outcome.coordinator = rank == 0;
    if (outcome.world_size == 1) {
      outcome.reports = run_on_threads(plan, context, 1, hooks);
    } else if (rank == 0) {
      outcome.reports = coordinate(mpi, plan, outcome.world_size, hooks);
    } else {
      work(mpi, plan, context, hooks);
    }
  } catch (...) {
    mpi.abort(1);
    throw;
  }
  check(mpi.finalize(), "MPI_Finalize");
  return outcome;
}

}  // namespace sim::sweep

#else  // built without MPI

namespace sim::sweep {

bool mpi_built() {
  return false;
}

MpiOutcome run_with_mpi(const Plan& /*plan*/, const RunContext& /*context*/,
                        const ExecutorHooks& /*hooks*/) {
  throw std::runtime_error(
      "this dcsim was built without MPI: install an MPI (scripts/install-deps installs Open MPI) "
      "and reconfigure with -DSIM_WITH_MPI=ON or AUTO");
}

}  // namespace sim::sweep

#endif
