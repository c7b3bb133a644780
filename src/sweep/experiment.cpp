#include "sim/sweep/experiment.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "sim/config/diagnostics.hpp"
#include "sim/config/json_text.hpp"

namespace sim::sweep {

using nlohmann::json;
namespace fs = std::filesystem;

std::string directory_safe(const std::string& label) {
  std::string out = label;
  for (char& c : out) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '-' || c == '_';
    if (!keep) c = '_';
  }
  return out;
}

namespace {

const std::vector<std::string> kTopLevelKeys = {"name",    "description",  "scenario", "set",
                                                "axes",    "replications", "seed",     "seeds",
                                                "exclude", "only"};

std::string kind_of(const json& v) {
  return v.type_name();
}

void check_keys(const json& object, const std::vector<std::string>& allowed,
                const std::string& where, config::Diagnostics& d) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      const std::string near = config::nearest(key, allowed);
      d.error(where + "/" + key, fmt::format("unknown key \"{}\"", key),
              near.empty() ? "" : fmt::format("did you mean \"{}\"?", near));
    }
  }
}

/// One override from its `--set` text, or a problem at `where`.
void add_override(const std::string& text, const std::string& where,
                  std::vector<scenario::Override>& out, config::Diagnostics& d) {
  try {
    out.push_back(scenario::parse_override(text));
  } catch (const config::ConfigError& e) {
    for (const auto& p : e.problems())
      d.error(where, p.message, p.suggestion);
  }
}

/// "set": a string "a.b=V", a list of such strings, or an object {"a.b": V, ...}.
std::vector<scenario::Override> parse_overrides(const json& v, const std::string& where,
                                                config::Diagnostics& d) {
  std::vector<scenario::Override> out;
  if (v.is_string()) {
    add_override(v.get<std::string>(), where, out, d);
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string at = fmt::format("{}/{}", where, i);
      if (!v[i].is_string()) {
        d.error(at,
                fmt::format("expected an override \"KEY.PATH=VALUE\", found {}", kind_of(v[i])));
        continue;
      }
      add_override(v[i].get<std::string>(), at, out, d);
    }
  } else if (v.is_object()) {
    for (const auto& [key, value] : v.items()) {
      add_override(key + "=" + value.dump(), where + "/" + key, out, d);
    }
  } else {
    d.error(where,
            fmt::format("expected overrides (a \"KEY.PATH=VALUE\" string, a list of them, or an "
                        "object of KEY.PATH: VALUE), found {}",
                        kind_of(v)));
  }
  return out;
}

bool is_identifier(const std::string& s) {
  return !s.empty() && directory_safe(s) == s;
}

std::string value_label(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

/// An axis of values: every key path in "set" takes each value in turn.
void parse_value_axis(const json& a, const std::string& where, Axis& axis, config::Diagnostics& d) {
  std::vector<std::string> paths;
  const json& set = a.at("set");
  if (set.is_string()) {
    paths.push_back(set.get<std::string>());
  } else if (set.is_array() && !set.empty() &&
             std::all_of(set.begin(), set.end(), [](const json& p) { return p.is_string(); })) {
    for (const auto& p : set)
      paths.push_back(p.get<std::string>());
  } else {
    d.error(where + "/set",
            fmt::format("expected a key path such as \"workload.0.rate\" or a list of them, "
                        "found {}",
                        kind_of(set)));
    return;
  }
  if (!a.contains("values") || !a.at("values").is_array() || a.at("values").empty()) {
    d.error(where + "/values",
            "expected a non-empty list of values for the key path(s) in \"set\"");
    return;
  }
  const json& values = a.at("values");
  const json* labels = a.contains("labels") ? &a.at("labels") : nullptr;
  if (labels != nullptr &&
      (!labels->is_array() || labels->size() != values.size() ||
       !std::all_of(labels->begin(), labels->end(), [](const json& l) { return l.is_string(); }))) {
    d.error(where + "/labels",
            fmt::format("expected a list of {} strings (one per value)", values.size()));
    labels = nullptr;
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    Variant v;
    v.label = labels != nullptr ? (*labels)[i].get<std::string>() : value_label(values[i]);
    for (const auto& p : paths) {
      add_override(p + "=" + values[i].dump(), fmt::format("{}/values/{}", where, i), v.overrides,
                   d);
    }
    axis.variants.push_back(std::move(v));
  }
}

void parse_variant_axis(const json& a, const std::string& where, const fs::path& base_dir,
                        Axis& axis, config::Diagnostics& d) {
  const json& variants = a.at("variants");
  if (!variants.is_array() || variants.empty()) {
    d.error(where + "/variants", "expected a non-empty list of {\"name\": ..., \"set\": ...}");
    return;
  }
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const std::string at = fmt::format("{}/variants/{}", where, i);
    const json& v = variants[i];
    if (!v.is_object()) {
      d.error(at, fmt::format("expected an object {{\"name\": ..., \"set\": ...}}, found {}",
                              kind_of(v)));
      continue;
    }
    check_keys(v, {"name", "set", "scenario"}, at, d);
    Variant variant;
    if (!v.contains("name") || !v.at("name").is_string() ||
        v.at("name").get<std::string>().empty()) {
      d.error(at + "/name", "expected the variant's name (a non-empty string)");
    } else {
      variant.label = v.at("name").get<std::string>();
    }
    if (v.contains("set")) variant.overrides = parse_overrides(v.at("set"), at + "/set", d);
    if (v.contains("scenario")) {
      if (!v.at("scenario").is_string()) {
        d.error(at + "/scenario", "expected a scenario file path (string)");
      } else {
        variant.scenario = base_dir / v.at("scenario").get<std::string>();
      }
    }
    axis.variants.push_back(std::move(variant));
  }
}

std::vector<Filter> parse_filters(const json& v, const std::string& where,
                                  const std::vector<Axis>& axes, config::Diagnostics& d) {
  std::vector<Filter> out;
  if (!v.is_array()) {
    d.error(where, fmt::format("expected a list of {{\"AXIS\": LABEL or [LABELS]}}, found {}",
                               kind_of(v)));
    return out;
  }
  std::vector<std::string> axis_names;
  for (const auto& a : axes)
    axis_names.push_back(a.name);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string at = fmt::format("{}/{}", where, i);
    if (!v[i].is_object() || v[i].empty()) {
      d.error(at, "expected a non-empty object {\"AXIS\": LABEL or [LABELS], ...}");
      continue;
    }
    Filter f;
    for (const auto& [name, labels] : v[i].items()) {
      const auto axis = std::find_if(axes.begin(), axes.end(),
                                     [&n = name](const Axis& a) { return a.name == n; });
      if (axis == axes.end()) {
        const std::string near = config::nearest(name, axis_names);
        d.error(at + "/" + name, fmt::format("no axis is named \"{}\"", name),
                near.empty() ? "" : fmt::format("did you mean \"{}\"?", near));
        continue;
      }
      std::vector<std::string> wanted;
      if (labels.is_array()) {
        for (const auto& l : labels)
          wanted.push_back(value_label(l));
      } else {
        wanted.push_back(value_label(labels));
      }
      std::vector<std::string> known;
      for (const auto& var : axis->variants)
        known.push_back(var.label);
      for (const auto& w : wanted) {
        if (std::find(known.begin(), known.end(), w) == known.end()) {
          const std::string near = config::nearest(w, known);
          d.error(at + "/" + name, fmt::format("axis \"{}\" has no value \"{}\"", name, w),
                  near.empty() ? "" : fmt::format("did you mean \"{}\"?", near));
        }
      }
      f.labels.emplace_back(name, std::move(wanted));
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::optional<std::uint64_t> non_negative_integer(const json& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0)
    return static_cast<std::uint64_t>(v.get<std::int64_t>());
  return std::nullopt;
}

}  // namespace

Experiment parse_experiment(const json& doc, const fs::path& file) {
  config::Diagnostics d(file.string());
  Experiment e;
  e.file = file;
  if (!doc.is_object()) {
    d.error("", fmt::format("expected an experiment object, found {}", kind_of(doc)));
    d.throw_if_errors();
  }
  const fs::path base_dir = file.parent_path();
  check_keys(doc, kTopLevelKeys, "", d);

  e.name = file.stem().string();
  if (doc.contains("name")) {
    if (!doc.at("name").is_string() || !is_identifier(doc.at("name").get<std::string>())) {
      d.error("/name",
              "expected a name of letters, digits, '.', '-' and '_' (it names the "
              "output directory)");
    } else {
      e.name = doc.at("name").get<std::string>();
    }
  }
  if (doc.contains("description") && doc.at("description").is_string())
    e.description = doc.at("description").get<std::string>();

  if (!doc.contains("scenario") || !doc.at("scenario").is_string()) {
    d.error("/scenario",
            "expected the base scenario file (a path relative to the experiment file)");
  } else {
    e.scenario = base_dir / doc.at("scenario").get<std::string>();
  }
  if (doc.contains("set")) e.overrides = parse_overrides(doc.at("set"), "/set", d);

  if (doc.contains("axes")) {
    const json& axes = doc.at("axes");
    if (!axes.is_array()) {
      d.error("/axes", fmt::format("expected a list of axes, found {}", kind_of(axes)));
    } else {
      std::set<std::string> names;
      for (std::size_t i = 0; i < axes.size(); ++i) {
        const std::string at = fmt::format("/axes/{}", i);
        const json& a = axes[i];
        if (!a.is_object()) {
          d.error(at, fmt::format("expected an axis object, found {}", kind_of(a)));
          continue;
        }
        check_keys(a, {"name", "set", "values", "labels", "variants"}, at, d);
        Axis axis;
        if (!a.contains("name") || !a.at("name").is_string() ||
            !is_identifier(a.at("name").get<std::string>())) {
          d.error(at + "/name", "expected the axis name: letters, digits, '.', '-' and '_'");
        } else {
          axis.name = a.at("name").get<std::string>();
          if (axis.name == "seed" || !names.insert(axis.name).second) {
            d.error(at + "/name", fmt::format("axis name \"{}\" is used twice or reserved "
                                              "(\"seed\")",
                                              axis.name));
          }
        }
        const bool has_set = a.contains("set");
        const bool has_variants = a.contains("variants");
        if (has_set == has_variants) {
          d.error(at, "expected either \"set\" with \"values\" or \"variants\" (exactly one)");
          continue;
        }
        if (has_set) {
          parse_value_axis(a, at, axis, d);
        } else {
          parse_variant_axis(a, at, base_dir, axis, d);
        }
        // Labels name directories: they must stay distinct once made file-name safe.
        std::set<std::string> seen;
        for (const auto& v : axis.variants) {
          if (!v.label.empty() && !seen.insert(directory_safe(v.label)).second) {
            d.error(at, fmt::format("two values of axis \"{}\" share the directory name \"{}\"; "
                                    "give distinct \"labels\"/names",
                                    axis.name, directory_safe(v.label)));
          }
        }
        e.axes.push_back(std::move(axis));
      }
    }
  }

  // Seeds: an explicit list, or `replications` consecutive seeds from `seed` (default 1).
  if (doc.contains("seeds")) {
    const json& seeds = doc.at("seeds");
    std::set<std::uint64_t> seen;
    if (!seeds.is_array() || seeds.empty()) {
      d.error("/seeds", "expected a non-empty list of seeds (non-negative integers)");
    } else {
      for (std::size_t i = 0; i < seeds.size(); ++i) {
        const auto s = non_negative_integer(seeds[i]);
        if (!s || !seen.insert(*s).second) {
          d.error(
              fmt::format("/seeds/{}", i),
              fmt::format("expected a distinct non-negative integer, found {}", seeds[i].dump()));
        } else {
          e.seeds.push_back(*s);
        }
      }
    }
    if (doc.contains("replications") && doc.at("replications") != json(seeds.size())) {
      d.error("/replications", "with \"seeds\", leave \"replications\" out (one per seed)");
    }
    if (doc.contains("seed")) d.error("/seed", "give either \"seed\" or \"seeds\", not both");
  } else {
    std::uint64_t replications = 1;
    std::uint64_t first = 1;
    if (doc.contains("replications")) {
      const auto r = non_negative_integer(doc.at("replications"));
      if (!r || *r == 0) {
        d.error("/replications",
                fmt::format("expected an integer >= 1, found {}", doc.at("replications").dump()));
      } else if (*r > kMaxPlannedRuns) {
        d.error("/replications", fmt::format("{} replications, more than the {} runs a sweep may "
                                             "plan",
                                             *r, kMaxPlannedRuns));
      } else {
        replications = *r;
      }
    }
    if (doc.contains("seed")) {
      const auto s = non_negative_integer(doc.at("seed"));
      if (!s) {
        d.error("/seed",
                fmt::format("expected a non-negative integer, found {}", doc.at("seed").dump()));
      } else {
        first = *s;
      }
    }
    for (std::uint64_t r = 0; r < replications; ++r)
      e.seeds.push_back(first + r);
  }

  // "{AXIS}" placeholders in scenario paths must name an axis (see substitute_labels).
  std::vector<std::pair<std::string, std::string>> paths;  // (pointer, path)
  if (doc.contains("scenario") && doc.at("scenario").is_string())
    paths.emplace_back("/scenario", doc.at("scenario").get<std::string>());
  for (std::size_t i = 0; i < e.axes.size(); ++i) {
    for (std::size_t j = 0; j < e.axes[i].variants.size(); ++j) {
      if (e.axes[i].variants[j].scenario) {
        paths.emplace_back(fmt::format("/axes/{}/variants/{}/scenario", i, j),
                           e.axes[i].variants[j].scenario->string());
      }
    }
  }
  std::vector<std::string> axis_names;
  for (const auto& a : e.axes)
    axis_names.push_back(a.name);
  for (const auto& [where, path] : paths) {
    for (auto open = path.find('{'); open != std::string::npos; open = path.find('{', open + 1)) {
      const auto close = path.find('}', open);
      if (close == std::string::npos) break;
      const std::string name = path.substr(open + 1, close - open - 1);
      if (std::find(axis_names.begin(), axis_names.end(), name) == axis_names.end()) {
        const std::string near = config::nearest(name, axis_names);
        d.error(where, fmt::format("placeholder {{{}}} names no axis", name),
                near.empty() ? "" : fmt::format("did you mean \"{{{}}}\"?", near));
      }
    }
  }

  if (doc.contains("exclude")) e.exclude = parse_filters(doc.at("exclude"), "/exclude", e.axes, d);
  if (doc.contains("only")) e.only = parse_filters(doc.at("only"), "/only", e.axes, d);
  d.throw_if_errors();
  return e;
}

Experiment load_experiment(const fs::path& file) {
  return parse_experiment(config::read_json_document(file.string()), file);  // 64 MiB at most
}

}  // namespace sim::sweep
