// Golden metric files: reading, comparing a summary against them, regenerating them.

#include "sim/scenario/golden.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "sim/config/diagnostics.hpp"
#include "sim/config/json_text.hpp"

namespace sim::scenario {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string pointer_escape(const std::string& key) {
  std::string out;
  for (const char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string kind_of(const json& v) {
  return v.type_name();
}

/// A short rendering of a value for the verdict table.
std::string show(const json& v) {
  if (v.is_number_float()) return fmt::format("{:.10g}", v.get<double>());
  return v.dump();
}

bool within(const json& expected, const json& actual, double abs_tol, double rel_tol) {
  if (expected.is_number() && actual.is_number()) {
    const double e = expected.get<double>();
    const double a = actual.get<double>();
    if (std::isnan(e) || std::isnan(a)) return std::isnan(e) && std::isnan(a);
    return std::fabs(a - e) <= abs_tol + rel_tol * std::fabs(e);
  }
  return expected == actual;
}

}  // namespace

GoldenFile load_golden(const fs::path& file) {
  config::Diagnostics diag(file.string());
  const json doc = config::read_json_document(file.string());
  GoldenFile g;
  g.file = file;
  if (!doc.is_object()) {
    diag.error("", "expected an object, found " + kind_of(doc));
    diag.throw_if_errors();
  }
  static const std::vector<std::string> known = {"description", "scenario", "set", "tolerance",
                                                 "metrics"};
  for (const auto& [key, value] : doc.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      // Init-capture: clang before 16 cannot capture a structured binding.
      diag.error("/" + pointer_escape(key), "unknown key", [&, &name = key] {
        const auto near = config::nearest(name, known);
        return near.empty() ? std::string{} : "did you mean \"" + near + "\"?";
      }());
    }
  }
  auto string_at = [&](const char* key, bool required) -> std::string {
    if (!doc.contains(key)) {
      if (required) diag.error(std::string("/") + key, "missing; expected a string");
      return {};
    }
    if (!doc[key].is_string()) {
      diag.error(std::string("/") + key, "expected a string, found " + kind_of(doc[key]));
      return {};
    }
    return doc[key].get<std::string>();
  };
  g.description = string_at("description", false);
  g.tolerance_note = string_at("tolerance", true);
  const auto scenario = string_at("scenario", true);
  if (!scenario.empty()) g.scenario = (file.parent_path() / scenario).lexically_normal();
  if (doc.contains("set")) {
    if (!doc["set"].is_array()) {
      diag.error("/set", "expected an array of KEY=VALUE strings, found " + kind_of(doc["set"]));
    } else {
      for (std::size_t i = 0; i < doc["set"].size(); ++i) {
        const auto& s = doc["set"][i];
        if (!s.is_string() || s.get<std::string>().find('=') == std::string::npos) {
          diag.error(fmt::format("/set/{}", i), "expected a KEY=VALUE string, found " + s.dump());
        } else {
          g.overrides.push_back(s.get<std::string>());
        }
      }
    }
  }
  if (!doc.contains("metrics") || !doc["metrics"].is_object() || doc["metrics"].empty()) {
    diag.error("/metrics", "expected a non-empty object of metric expectations");
  } else {
    for (const auto& [name, spec] : doc["metrics"].items()) {
      const auto where = "/metrics/" + pointer_escape(name);
      if (!spec.is_object()) {
        diag.error(where, "expected {\"expected\": VALUE, \"abs\"|\"rel\": NUMBER}, found " +
                              kind_of(spec));
        continue;
      }
      MetricExpectation m;
      m.metric = name;
      for (const auto& [key, value] : spec.items()) {
        if (key == "expected") {
          m.expected = value;
        } else if (key == "abs" || key == "rel") {
          if (!value.is_number() || value.get<double>() < 0.0) {
            diag.error(where + "/" + key, "expected a non-negative number, found " + value.dump());
            continue;
          }
          (key == "abs" ? m.abs_tolerance : m.rel_tolerance) = value.get<double>();
        } else {
          diag.error(where + "/" + pointer_escape(key), "unknown key", [&, &name = key] {
            const auto near = config::nearest(name, {"expected", "abs", "rel"});
            return near.empty() ? std::string{} : "did you mean \"" + near + "\"?";
          }());
        }
      }
      if (!spec.contains("expected")) diag.error(where + "/expected", "missing");
      g.metrics.push_back(std::move(m));
    }
  }
  diag.throw_if_errors();
  g.document = std::move(doc);
  return g;
}

std::optional<json> find_metric(const json& summary, std::string_view metric) {
  if (!metric.empty() && metric.front() == '/') {
    try {
      const json::json_pointer pointer{std::string(metric)};
      if (!summary.contains(pointer)) return std::nullopt;
      return summary.at(pointer);
    } catch (const json::exception&) {
      return std::nullopt;
    }
  }
  const json* node = &summary;
  std::size_t begin = 0;
  while (begin <= metric.size()) {
    const auto end = std::min(metric.find('.', begin), metric.size());
    const std::string key(metric.substr(begin, end - begin));
    if (!node->is_object()) return std::nullopt;
    const auto it = node->find(key);
    if (it == node->end()) return std::nullopt;
    node = &*it;
    begin = end + 1;
  }
  return *node;
}

std::vector<MetricVerdict> compare_to_golden(const GoldenFile& golden, const json& summary) {
  std::vector<MetricVerdict> verdicts;
  verdicts.reserve(golden.metrics.size());
  for (const auto& m : golden.metrics) {
    MetricVerdict v;
    v.metric = m.metric;
    v.expected = m.expected;
    v.abs_tolerance = m.abs_tolerance;
    v.rel_tolerance = m.rel_tolerance;
    v.actual = find_metric(summary, m.metric);
    v.pass =
        v.actual.has_value() && within(m.expected, *v.actual, m.abs_tolerance, m.rel_tolerance);
    verdicts.push_back(std::move(v));
  }
  return verdicts;
}

void print_verdicts(const std::vector<MetricVerdict>& verdicts, std::ostream& out) {
  std::size_t width = 6;
  for (const auto& v : verdicts)
    width = std::max(width, v.metric.size());
  out << fmt::format("{:<{}}  {:>16}  {:>16}  {:>18}  {}\n", "metric", width, "expected", "actual",
                     "tolerance", "verdict");
  std::size_t failed = 0;
  for (const auto& v : verdicts) {
    std::string tolerance;
    if (v.abs_tolerance > 0.0) tolerance = fmt::format("abs {:g}", v.abs_tolerance);
    if (v.rel_tolerance > 0.0) {
      tolerance += (tolerance.empty() ? "" : " + ") + fmt::format("rel {:g}", v.rel_tolerance);
    }
    if (tolerance.empty()) tolerance = "exact";
    out << fmt::format("{:<{}}  {:>16}  {:>16}  {:>18}  {}\n", v.metric, width, show(v.expected),
                       v.actual ? show(*v.actual) : "(missing)", tolerance, v.pass ? "ok" : "FAIL");
    if (!v.pass) ++failed;
  }
  out << fmt::format("{} of {} metrics within tolerance{}\n", verdicts.size() - failed,
                     verdicts.size(), failed == 0 ? "" : fmt::format("; {} FAILED", failed));
}

json regenerate_golden(const GoldenFile& golden, const json& summary,
                       std::vector<MetricVerdict>& moved) {
  json doc = golden.document;
  for (const auto& v : compare_to_golden(golden, summary)) {
    if (!v.actual) {
      throw std::runtime_error(golden.file.string() + ": metric \"" + v.metric +
                               "\" is not in the run's summary");
    }
    if (*v.actual != v.expected) moved.push_back(v);
    doc["metrics"][v.metric]["expected"] = *v.actual;
  }
  return doc;
}

std::string format_golden(const json& document) {
  std::string text = "{\n";
  bool first = true;
  auto key_line = [&](const std::string& key, const std::string& value) {
    text += (first ? "" : ",\n") + fmt::format("  {}: {}", json(key).dump(), value);
    first = false;
  };
  for (const char* key : {"description", "scenario", "set", "tolerance"}) {
    if (document.contains(key)) key_line(key, document.at(key).dump());
  }
  if (document.contains("metrics")) {
    std::string metrics = "{\n";
    bool first_metric = true;
    for (const auto& [name, spec] : document.at("metrics").items()) {
      std::string line;
      for (const char* key : {"expected", "abs", "rel"}) {
        if (!spec.contains(key)) continue;
        line += (line.empty() ? "" : ", ") + fmt::format("\"{}\": {}", key, spec.at(key).dump());
      }
      metrics +=
          (first_metric ? "" : ",\n") + fmt::format("    {}: {{{}}}", json(name).dump(), line);
      first_metric = false;
    }
    key_line("metrics", metrics + "\n  }");
  }
  return text + "\n}\n";
}

}  // namespace sim::scenario
