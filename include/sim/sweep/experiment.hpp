#pragma once
/// Experiment files for `dcsim sweep` (docs/sweeps.md): a base scenario plus axes, each a list
/// of values for one or more scenario keys or a list of named variants (each a set of `--set`
/// style overrides, optionally another base scenario file), times replications with distinct
/// seeds, minus the combinations the filters drop. The same shape as OpenDC's experiment files.
///
///   {
///     "name": "load-vs-keepalive",
///     "scenario": "../quickstart.json",          // relative to the experiment file
///     "set": ["duration=30s"],                     // overrides applied to every run
///     "axes": [
///       {"name": "load", "set": "workload.0.rate", "values": ["100/s", "200/s"]},
///       {"name": "keepalive", "variants": [
///         {"name": "short", "set": {"platform.policies.keep_alive.keep_alive": "5s"}},
///         {"name": "long", "set": ["platform.policies.keep_alive.keep_alive=600s"]}]}
///     ],
///     "replications": 3, "seed": 1,                // seeds 1, 2, 3 (or "seeds": [..])
///     "exclude": [{"load": "200/s", "keepalive": "short"}],
///     "only": [...]                                // keep only combinations matching one entry
///   }

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario/overrides.hpp"

namespace sim::sweep {

/// One point of an axis: its label (names the run directory) and what it changes.
struct Variant {
  std::string label;
  /// Replaces the experiment's base scenario file for runs with this variant.
  std::optional<std::filesystem::path> scenario;
  std::vector<scenario::Override> overrides;
};

struct Axis {
  std::string name;
  std::vector<Variant> variants;
};

/// A combination matches when, for every axis named, its label is one of the listed labels.
struct Filter {
  std::vector<std::pair<std::string, std::vector<std::string>>> labels;  // axis -> labels
};

/// Most runs one sweep may plan (combinations x seeds, before filters). The plan is held in
/// memory (~3 KB a run), and a sweep beyond this is better split; 1e30 combinations once ended
/// in a bare std::bad_alloc.
inline constexpr std::uint64_t kMaxPlannedRuns = 100'000;

struct Experiment {
  std::filesystem::path file;
  std::string name;
  std::string description;
  std::filesystem::path scenario;  ///< the base scenario, resolved against the file's directory
  std::vector<scenario::Override> overrides;
  std::vector<Axis> axes;
  /// Applied after the axes' overrides (`dcsim sweep --set`), so they win over the file.
  std::vector<scenario::Override> final_overrides;
  std::vector<std::uint64_t> seeds;  ///< one replication per seed
  std::vector<Filter> exclude;
  std::vector<Filter> only;
};

/// Parses an experiment document; `file` names it in messages and anchors relative paths.
/// Throws config::ConfigError listing every problem with its JSON pointer.
Experiment parse_experiment(const nlohmann::json& doc, const std::filesystem::path& file);

/// Reads and parses an experiment file.
Experiment load_experiment(const std::filesystem::path& file);

/// The label as it appears in a directory name: characters other than letters, digits, '.',
/// '-' and '_' become '_' ("100/s" -> "100_s").
std::string directory_safe(const std::string& label);

}  // namespace sim::sweep
