#pragma once
/// Loading a scenario (DESIGN.md, run step 1): read the JSON file, merge its includes and
/// presets, apply `--set` overrides, then validate the whole document against the schema before
/// anything runs. All problems are reported at once (config::ConfigError), each with the file
/// and JSON pointer.
///
/// Merge order, later wins: presets (in the order listed) < includes (in order) < the file
/// itself < `--set` overrides. Objects merge key by key, except that an object naming another
/// component "type" than the one beneath it replaces it whole; any other value (lists
/// included) replaces the earlier one.

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario/overrides.hpp"
#include "sim/scenario/registry.hpp"

namespace sim::scenario {

struct LoadOptions {
  std::vector<Override> overrides;
  /// Directories searched for `"preset": "NAME"` as NAME.json, after the scenario's own
  /// directory's `presets/` subfolder.
  std::vector<std::filesystem::path> preset_dirs;
};

struct LoadedScenario {
  std::filesystem::path file;
  nlohmann::json resolved;  ///< validated, every default filled in, presets and includes merged
};

/// Reads a JSON file; a syntax error names the file, line and column.
nlohmann::json read_json_file(const std::filesystem::path& path);

/// The top-level scenario schema; components are looked up in `registry`.
std::shared_ptr<const config::Schema> scenario_schema();

/// Merges `overlay` into `base` (objects key by key unless their "type" differs; everything
/// else replaced).
void merge_into(nlohmann::json& base, const nlohmann::json& overlay);

LoadedScenario load_scenario(const std::filesystem::path& file, const Registry& registry,
                             const LoadOptions& options = {});

/// As load_scenario, for a document that is not read from a file (the Python module's
/// `dcsim.run(dict)`): `file` only labels errors, names the run when the document does not, and
/// anchors relative includes and the scenario's own presets/ folder.
LoadedScenario load_scenario_document(const nlohmann::json& document,
                                      const std::filesystem::path& file, const Registry& registry,
                                      const LoadOptions& options = {});

/// Validates an already resolved document again (for `dcsim validate` of a resolved
/// scenario.json, and for tests).
nlohmann::json resolve_document(const nlohmann::json& document, const std::string& file_label,
                                const Registry& registry);

}  // namespace sim::scenario
