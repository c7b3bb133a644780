// MPI scale-out: rank 0 coordinates (hands out the next run to whichever rank asks), ranks
// 1..K-1 run. Messages are JSON text: a worker's request carries the report of its previous
// run (empty on the first request), the coordinator answers with a run index or "stop".

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

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include <fmt/format.h>

namespace sim::sweep {

namespace {

constexpr int kTagRequest = 1;  // worker -> coordinator: previous report or ""
constexpr int kTagAssign = 2;   // coordinator -> worker: run index
constexpr int kTagStop = 3;     // coordinator -> worker: no more runs

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(fmt::format("MPI: {} failed ({})", what, rc));
}

/// Waits for a message without spinning: Open MPI's blocking calls poll at full speed, which
/// would take a core from the runs when ranks outnumber cores.
MPI_Status wait_for(int source, int tag) {
  MPI_Status status;
  auto pause = std::chrono::microseconds(50);
  for (;;) {
    int flag = 0;
    check(MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &status), "MPI_Iprobe");
    if (flag != 0) return status;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(20000));
  }
}

std::string receive_text(const MPI_Status& probed) {
  int count = 0;
  check(MPI_Get_count(&probed, MPI_CHAR, &count), "MPI_Get_count");
  std::string text(static_cast<std::size_t>(count), '\0');
  check(MPI_Recv(text.data(), count, MPI_CHAR, probed.MPI_SOURCE, probed.MPI_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE),
        "MPI_Recv");
  return text;
}

void send_text(const std::string& text, int dest, int tag) {
  check(MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, dest, tag, MPI_COMM_WORLD),
        "MPI_Send");
}

std::vector<RunReport> coordinate(const Plan& plan, int world_size, const ExecutorHooks& hooks) {
  std::vector<RunReport> reports(plan.runs.size());
  for (std::size_t i = 0; i < reports.size(); ++i)
    reports[i].index = i;
  std::size_t next = 0;
  int active = world_size - 1;
  while (active > 0) {
    const MPI_Status status = wait_for(MPI_ANY_SOURCE, kTagRequest);
    const std::string text = receive_text(status);
    if (!text.empty()) {
      RunReport report = report_from_json(nlohmann::json::parse(text));
      const std::size_t i = report.index;
      reports.at(i) = std::move(report);
      if (hooks.on_finished) hooks.on_finished(plan.runs[i], reports[i]);
    }
    if (next < plan.runs.size() && !(hooks.interrupted && hooks.interrupted())) {
      send_text(std::to_string(next++), status.MPI_SOURCE, kTagAssign);
    } else {
      send_text("", status.MPI_SOURCE, kTagStop);
      --active;
    }
  }
  return reports;
}

void work(const Plan& plan, const RunContext& context, const ExecutorHooks& hooks) {
  const scenario::Registry registry = hooks.make_registry();
  RunContext own = context;
  own.registry = &registry;
  std::string previous;
  for (;;) {
    send_text(previous, 0, kTagRequest);
    const MPI_Status status = wait_for(0, MPI_ANY_TAG);
    const std::string text = receive_text(status);
    if (status.MPI_TAG == kTagStop) return;
    const std::size_t i = std::stoul(text);
    previous = to_json(execute_run(plan.runs.at(i), own)).dump();
  }
}

}  // namespace

bool mpi_built() {
  return true;
}

MpiOutcome run_with_mpi(const Plan& plan, const RunContext& context, const ExecutorHooks& hooks) {
  check(MPI_Init(nullptr, nullptr), "MPI_Init");
  MpiOutcome outcome;
  int rank = 0;
  try {
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &outcome.world_size), "MPI_Comm_size");
    outcome.coordinator = rank == 0;
    if (outcome.world_size == 1) {
      outcome.reports = run_on_threads(plan, context, 1, hooks);
    } else if (rank == 0) {
      outcome.reports = coordinate(plan, outcome.world_size, hooks);
    } else {
      work(plan, context, hooks);
    }
  } catch (...) {
    MPI_Abort(MPI_COMM_WORLD, 1);
    throw;
  }
  check(MPI_Finalize(), "MPI_Finalize");
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
