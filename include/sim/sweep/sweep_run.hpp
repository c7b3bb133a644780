#pragma once
/// One run of a sweep, made safe to resume: a finished run records the hash of its resolved
/// scenario in DIR/sweep-run.json (written last, atomically). A later sweep skips the run when
/// that record matches and summary.json is complete, and redoes it when the record is missing
/// (never finished, interrupted, killed) or stale (the scenario, an override or a default
/// changed).

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario/registry.hpp"
#include "sim/sweep/plan.hpp"

namespace sim::sweep {

/// What every run needs from its surroundings; each worker has its own registry.
struct RunContext {
  const scenario::Registry* registry = nullptr;
  std::vector<std::filesystem::path> preset_dirs;
  std::filesystem::path runs_dir;  ///< a run writes runs_dir/<run name>/
  std::vector<std::string> trace_search_path;
  std::filesystem::path data_dir;
  /// Polled by a running simulation; true ends it early (the run is then redone next time).
  std::function<bool()> interrupted;
};

enum class RunStatus {
  kDone,         ///< ran to the end now
  kUpToDate,     ///< a matching finished run was already on disk
  kFailed,       ///< invalid scenario or an error while running
  kInterrupted,  ///< stopped early; its outputs are marked partial
  kNotRun,       ///< never started (the sweep was interrupted first)
};

/// "ok" for done and up to date (the results are the same), else "failed", "interrupted",
/// "not_run".
std::string status_name(RunStatus s);

struct RunReport {
  std::size_t index = 0;
  RunStatus status = RunStatus::kNotRun;
  std::string error;       ///< for kFailed
  nlohmann::json summary;  ///< summary.json, for kDone and kUpToDate
  double wall_seconds = 0.0;
};

/// For sending a report between MPI ranks.
nlohmann::json to_json(const RunReport& r);
RunReport report_from_json(const nlohmann::json& j);

/// The recorded identity of a run: FNV-1a 64 of the resolved scenario's compact JSON, as
/// "fnv1a64:<16 hex digits>".
std::string scenario_hash(const nlohmann::json& resolved);

inline constexpr const char* kRunRecordFile = "sweep-run.json";

enum class RunState { kUpToDate, kMissing, kPartial, kStale };

/// Compares a run directory with the expected hash; on kUpToDate, fills `summary`.
RunState inspect_run(const std::filesystem::path& dir, const std::string& hash,
                     nlohmann::json* summary = nullptr);

/// Loads the run's scenario, skips it if up to date, else runs it from a clean directory and
/// records it. Never throws: errors become kFailed reports.
RunReport execute_run(const PlannedRun& run, const RunContext& context);

/// The resolved scenario of a run (validating it); throws config::ConfigError.
nlohmann::json resolve_run(const PlannedRun& run, const RunContext& context);

}  // namespace sim::sweep
