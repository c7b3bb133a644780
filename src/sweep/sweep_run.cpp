#include "sim/sweep/sweep_run.hpp"

#include <fmt/format.h>

#include <fstream>

#include "sim/config/json_text.hpp"
#include "sim/metrics/atomic_file.hpp"
#include "sim/scenario/run.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace sim::sweep {

using nlohmann::json;
namespace fs = std::filesystem;

std::string status_name(RunStatus s) {
  switch (s) {
    case RunStatus::kDone:
    case RunStatus::kUpToDate:
      return "ok";
    case RunStatus::kFailed:
      return "failed";
    case RunStatus::kInterrupted:
      return "interrupted";
    case RunStatus::kNotRun:
      return "not_run";
  }
  return "not_run";
}

json to_json(const RunReport& r) {
  return json{{"index", r.index},
              {"status", static_cast<int>(r.status)},
              {"error", r.error},
              {"summary", r.summary},
              {"wall_seconds", r.wall_seconds}};
}

RunReport report_from_json(const json& j) {
  RunReport r;
  r.index = j.at("index").get<std::size_t>();
  const int status = j.at("status").get<int>();
  if (status < 0 || status > static_cast<int>(RunStatus::kNotRun)) {
    throw std::runtime_error(fmt::format("run report: unknown status {}", status));
  }
  r.status = static_cast<RunStatus>(status);
  r.error = j.at("error").get<std::string>();
  r.summary = j.at("summary");
  r.wall_seconds = j.at("wall_seconds").get<double>();
  return r;
}

std::string scenario_hash(const json& resolved) {
  // FNV-1a, 64-bit (Fowler, Noll & Vo): enough to tell a changed scenario from an unchanged
  // one; nothing here needs resistance to deliberate collisions.
  std::uint64_t h = 14695981039346656037ULL;
  for (const char c : resolved.dump()) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return fmt::format("fnv1a64:{:016x}", h);
}

namespace {
bool read_json(const fs::path& p, json& out) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return false;
  try {
    out = config::read_json_document(p.string());
  } catch (const config::ConfigError&) {
    return false;  // unreadable or corrupt: the run is redone
  }
  return true;
}
}  // namespace

RunState inspect_run(const fs::path& dir, const std::string& hash, json* summary) {
  json record;
  if (!read_json(dir / kRunRecordFile, record)) {
    std::error_code ec;
    return fs::exists(dir, ec) ? RunState::kPartial : RunState::kMissing;
  }
  if (!record.is_object() || record.value("scenario_hash", "") != hash) return RunState::kStale;
  json s;
  if (!read_json(dir / "summary.json", s) || !s.is_object() || s.value("partial", true)) {
    return RunState::kPartial;
  }
  if (summary != nullptr) *summary = std::move(s);
  return RunState::kUpToDate;
}

json resolve_run(const PlannedRun& run, const RunContext& context) {
  scenario::LoadOptions lo;
  lo.preset_dirs = context.preset_dirs;
  lo.overrides = run.overrides;
  return scenario::load_scenario(run.scenario, *context.registry, lo).resolved;
}

RunReport execute_run(const PlannedRun& run, const RunContext& context) {
  RunReport report;
  report.index = run.index;
  try {
    scenario::LoadOptions lo;
    lo.preset_dirs = context.preset_dirs;
    lo.overrides = run.overrides;
    const auto loaded = scenario::load_scenario(run.scenario, *context.registry, lo);
    const std::string hash = scenario_hash(loaded.resolved);
    const fs::path dir = context.runs_dir / run.name;
    if (inspect_run(dir, hash, &report.summary) == RunState::kUpToDate) {
      report.status = RunStatus::kUpToDate;
      return report;
    }
    if (context.interrupted && context.interrupted()) return report;  // kNotRun
    // A clean directory: a stale run may have written files this one will not (requests.csv
    // after a switch to HDF5).
    fs::remove_all(dir);
    scenario::RunOptions options;
    options.out_dir = context.runs_dir;
    options.trace_search_path = context.trace_search_path;
    options.data_dir = context.data_dir;
    options.interrupted = context.interrupted;
    auto result = scenario::run_scenario(loaded, *context.registry, options);
    report.wall_seconds = result.wall_seconds;
    if (result.partial) {
      report.status = RunStatus::kInterrupted;
      return report;
    }
    // Written last: its presence says every other file of the run is complete. No wall time
    // in it, so that every file of a sweep is byte-identical from one execution to the next.
    metrics::write_json_atomic(dir / kRunRecordFile, json{{"scenario_hash", hash}});
    report.summary = std::move(result.summary);
    report.status = RunStatus::kDone;
  } catch (const std::exception& e) {
    report.status = RunStatus::kFailed;
    report.error = e.what();
    report.summary = json();
  }
  return report;
}

}  // namespace sim::sweep
