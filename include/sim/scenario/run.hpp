#pragma once
/// Running a loaded scenario (DESIGN.md steps 2-5): build the world, replay the workload into the
/// platform, record, and write DIR/NAME/{summary.json, requests.h5|csv, timeseries.csv,
/// scenario.json}. Every file is written under a temporary name and renamed into place.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/metrics/request_record.hpp"
#include "sim/scenario/registry.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace sim::scenario {

struct RunOptions {
  std::filesystem::path out_dir = "out";
  std::vector<std::string> trace_search_path;
  /// The data directory (models in data_dir/"models"); empty: no model catalog is loaded, and
  /// platforms that need one (serverless) refuse to start.
  std::filesystem::path data_dir;
  /// Polled from inside the run loop; returning true ends the run early, marked partial.
  std::function<bool()> interrupted;
  /// Receives a one-line progress report about twice a second once a run has taken longer than
  /// a second of wall time; the caller decides whether to show it (only on a terminal).
  std::function<void(const std::string& line)> progress;

  /// False: a run in memory (the Python module): no folder and no file is made; each record
  /// goes to `on_record` and the time series (timeseries.csv's text) to `timeseries_text`.
  bool write_files = true;
  /// Receives every request record as the platform records it (in both modes).
  std::function<void(const metrics::RequestRecord&)> on_record;
  /// With write_files false: where the time-series rows go (none if null).
  std::ostream* timeseries_text = nullptr;
};

struct RunResult {
  std::filesystem::path directory;
  nlohmann::json summary;
  bool partial = false;
  std::uint64_t events = 0;
  double wall_seconds = 0.0;
  /// The names that the records' function and application ids index.
  metrics::NameTables names;
};

RunResult run_scenario(const LoadedScenario& scenario, const Registry& registry,
                       const RunOptions& options);

/// Builds everything `run_scenario` builds before time zero (workload sources, model catalog,
/// platform and policies) without running or writing anything, so that `dcsim validate`
/// rejects what `dcsim run` would. Throws with the scenario file and the JSON path.
void check_scenario(const LoadedScenario& scenario, const Registry& registry,
                    const RunOptions& options);

/// A short human-readable table of the headline figures of a summary.
void print_summary_table(const nlohmann::json& summary, std::ostream& out);

/// The dcsim version recorded in every summary.
std::string dcsim_version();

}  // namespace sim::scenario
