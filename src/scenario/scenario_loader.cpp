#include "sim/scenario/scenario_loader.hpp"

#include <fmt/format.h>

#include <fstream>
#include <set>
#include <sstream>

#include "sim/config/diagnostics.hpp"
#include "sim/config/json_text.hpp"

namespace sim::scenario {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t kMaxScenarioBytes = 64ULL << 20;  // a scenario is text, not data
constexpr int kMaxIncludeDepth = 16;

config::ConfigError file_error(const fs::path& file, const std::string& location,
                               const std::string& message, const std::string& suggestion = {}) {
  return config::ConfigError({config::Problem{file.string(), location, message, suggestion}});
}

std::vector<std::string> string_or_list(const json& doc, const char* key, const fs::path& file) {
  std::vector<std::string> out;
  const auto it = doc.find(key);
  if (it == doc.end()) return out;
  if (it->is_string()) {
    out.push_back(it->get<std::string>());
  } else if (it->is_array()) {
    for (std::size_t i = 0; i < it->size(); ++i) {
      if (!(*it)[i].is_string()) {
        throw file_error(file, fmt::format("/{}/{}", key, i),
                         "expected a string, found " + config::describe_value((*it)[i]));
      }
      out.push_back((*it)[i].get<std::string>());
    }
  } else {
    throw file_error(file, std::string("/") + key,
                     "expected a name or a list of names, found " + config::describe_value(*it));
  }
  return out;
}

fs::path find_preset(const std::string& name, const fs::path& file,
                     const std::vector<fs::path>& dirs) {
  if (name.find('/') != std::string::npos || name.find("..") != std::string::npos) {
    throw file_error(file, "/preset", "a preset is named without a path, found \"" + name + "\"");
  }
  std::vector<fs::path> candidates{file.parent_path() / "presets"};
  candidates.insert(candidates.end(), dirs.begin(), dirs.end());
  std::vector<std::string> known;
  for (const auto& dir : candidates) {
    const fs::path p = dir / (name + ".json");
    if (fs::is_regular_file(p)) return p;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".json") known.push_back(entry.path().stem().string());
    }
  }
  std::sort(known.begin(), known.end());
  known.erase(std::unique(known.begin(), known.end()), known.end());
  std::string list;
  for (const auto& k : known)
    list += (list.empty() ? "" : ", ") + k;
  const std::string near = config::nearest(name, known);
  throw file_error(
      file, "/preset",
      fmt::format("no preset \"{}\" (known presets: {})", name, list.empty() ? "none" : list),
      near.empty() ? "" : "did you mean \"" + near + "\"?");
}

/// Reads `file` (or takes `given`, the document of a scenario that has no file) and everything
/// it pulls in, merged in the documented order.
json load_merged(const fs::path& file, const LoadOptions& options, int depth,
                 std::set<fs::path>& stack, const json* given = nullptr) {
  if (depth > kMaxIncludeDepth) {
    throw file_error(file, "", "includes and presets nest deeper than 16 levels");
  }
  const fs::path canonical = fs::weakly_canonical(file);
  if (stack.count(canonical) != 0) {
    throw file_error(file, "", "includes or presets form a cycle through this file");
  }
  stack.insert(canonical);
  json doc = given != nullptr ? *given : read_json_file(file);
  if (!doc.is_object()) {
    throw file_error(file, "/", "expected a JSON object, found " + config::describe_value(doc));
  }
  json merged = json::object();
  for (const auto& name : string_or_list(doc, "preset", file)) {
    merge_into(merged, load_merged(find_preset(name, file, options.preset_dirs), options, depth + 1,
                                   stack));
  }
  for (const auto& inc : string_or_list(doc, "include", file)) {
    const fs::path p = fs::path(inc).is_absolute() ? fs::path(inc) : file.parent_path() / inc;
    if (!fs::is_regular_file(p)) {
      throw file_error(file, "/include", "included file \"" + inc + "\" does not exist");
    }
    merge_into(merged, load_merged(p, options, depth + 1, stack));
  }
  doc.erase("preset");
  doc.erase("include");
  merge_into(merged, doc);
  stack.erase(canonical);
  return merged;
}

}  // namespace

json read_json_file(const fs::path& path) {
  return config::read_json_document(path.string(), kMaxScenarioBytes);
}

void merge_into(json& base, const json& overlay) {
  // A component that changes its "type" is a different component: its parameters replace the
  // old ones instead of being merged into parameters the new type does not have.
  const bool type_changes = base.is_object() && overlay.is_object() && base.contains("type") &&
                            overlay.contains("type") && base["type"] != overlay["type"];
  if (!base.is_object() || !overlay.is_object() || type_changes) {
    base = overlay;
    return;
  }
  for (const auto& [key, value] : overlay.items()) {
    if (base.contains(key) && base[key].is_object() && value.is_object()) {
      merge_into(base[key], value);
    } else {
      base[key] = value;
    }
  }
}

namespace {

/// The run name becomes OUT/NAME: it must be one ordinary folder name, so that a scenario
/// received from someone else can never make a run write outside the output directory.
std::string check_run_name(const json& value) {
  const auto& name = value.get_ref<const std::string&>();
  constexpr std::size_t kMaxNameBytes = 200;
  if (name.empty()) return "expected a folder name, found an empty string";
  if (name == "." || name == "..") return "expected a folder name, found \"" + name + "\"";
  if (name.size() > kMaxNameBytes) {
    return fmt::format("expected a folder name of at most {} bytes, found {} bytes", kMaxNameBytes,
                       name.size());
  }
  for (const char c : name) {
    if (c == '/' || c == '\\') {
      return "expected one folder name without / or \\, found \"" + name + "\"";
    }
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return "expected a folder name without control characters";
    }
  }
  return {};
}

}  // namespace

std::shared_ptr<const config::Schema> scenario_schema() {
  using config::ParamType;
  auto output = std::make_shared<config::Schema>("output", "What a run writes.");
  output->add("requests", ParamType::kChoice)
      .def("hdf5")
      .one_of({"hdf5", "csv", "none"})
      .doc("per-request records: requests.h5 (chunked, compressed), requests.csv, or none");
  output->add("events", ParamType::kChoice)
      .def("none")
      .one_of({"none", "lifecycle", "all"})
      .doc(
          "lifecycle event log events.csv: none; lifecycle (instances placed, ready, idle, "
          "stopped, ended; MIG reconfigurations; VMs); or all (also every batch's start and "
          "end, one row each); columns and event kinds: docs/events.md");
  output->add("timeseries_period", ParamType::kDuration)
      .def("1s")
      .at_least(1e-6)
      .doc("sampling period of timeseries.csv");

  auto s = std::make_shared<config::Schema>(
      "scenario", "A dcsim scenario: workload, platform and run settings.");
  s->add("name", ParamType::kString)
      .optional()
      .validate(check_run_name)
      .doc(
          "run name, one folder name inside the output directory (no / or \\, not . or ..); "
          "default: the scenario file's name without .json");
  s->add("description", ParamType::kString).def("").doc("free text");
  s->add("seed", ParamType::kInteger)
      .def(1)
      .at_least(0)
      .doc("master seed; every component draws from a stream derived from it and its name");
  s->add("duration", ParamType::kDuration)
      .at_least(1e-9)
      .doc("simulated time to run; arrivals stop there and the run ends there");
  s->add("warmup", ParamType::kDuration)
      .def("0s")
      .at_least(0)
      .doc("requests arriving before this time are left out of latency statistics");
  s->object("output", output).doc("outputs");
  s->list_of_components("workload", kWorkloadCategory)
      .at_least(1)
      .doc("request sources, merged by time");
  s->component("platform", kPlatformCategory)
      .def(json{{"type", "fifo-gpu"}})
      .doc("the serving platform");
  return s;
}

json resolve_document(const json& document, const std::string& file_label,
                      const Registry& registry) {
  config::Diagnostics diag(file_label);
  json resolved = scenario_schema()->resolve(document, "", diag, &registry);
  diag.throw_if_errors();
  return resolved;
}

namespace {

/// Overrides, the default name and validation of a merged document (shared by both loaders).
LoadedScenario finish_loading(json doc, const fs::path& file, const Registry& registry,
                              const LoadOptions& options) {
  for (const auto& o : options.overrides)
    apply_override(doc, o);
  if (!doc.contains("name")) doc["name"] = file.stem().string();

  // Problems inside an overridden value are attributed to the --set that put it there.
  config::Diagnostics diag(file.string());
  const auto schema = scenario_schema();
  json resolved = schema->resolve(doc, "", diag, &registry);
  if (diag.ok() &&
      config::get_duration(resolved, "warmup") >= config::get_duration(resolved, "duration")) {
    diag.error("/warmup", fmt::format("the warm-up ({}) must end before the run does ({})",
                                      resolved["warmup"].get<std::string>(),
                                      resolved["duration"].get<std::string>()));
  }
  if (!diag.ok()) {
    std::vector<config::Problem> problems = diag.problems();
    for (auto& p : problems) {
      for (const auto& o : options.overrides) {
        const std::string pointer = to_pointer(o.path);
        if (p.location == pointer || p.location.rfind(pointer + "/", 0) == 0) {
          p.file = "--set " + o.text;
        }
      }
    }
    throw config::ConfigError(std::move(problems));
  }
  return {file, std::move(resolved)};
}

}  // namespace

LoadedScenario load_scenario(const fs::path& file, const Registry& registry,
                             const LoadOptions& options) {
  std::set<fs::path> stack;
  return finish_loading(load_merged(file, options, 0, stack), file, registry, options);
}

LoadedScenario load_scenario_document(const json& document, const fs::path& file,
                                      const Registry& registry, const LoadOptions& options) {
  std::set<fs::path> stack;
  return finish_loading(load_merged(file, options, 0, stack, &document), file, registry, options);
}

}  // namespace sim::scenario
