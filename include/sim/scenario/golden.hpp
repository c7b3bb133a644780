#pragma once
/// Golden metrics: the expected summary figures of a reference scenario, with a tolerance per
/// metric, so that any change that moves a reproduction is seen (`dcsim check`, `ctest -L
/// golden`, `make golden`).
///
/// A golden file is JSON:
///
///     {
///       "description": "what the scenario reproduces",
///       "scenario": "../../scenarios/protean/ci/fig2.json",   // relative to this file
///       "set": ["duration=30s"],                               // optional --set overrides
///       "tolerance": "why the tolerances are what they are",
///       "metrics": {
///         "per_class.strict.slo.compliance": {"expected": 0.9531, "rel": 1e-9},
///         "requests.completed": {"expected": 14210, "abs": 0}
///       }
///     }
///
/// A metric is a dotted path into summary.json (or an RFC 6901 pointer starting with "/").
/// A number passes when |actual - expected| <= abs + rel * |expected|; anything else (null,
/// booleans, strings) must be equal.

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace sim::scenario {

struct MetricExpectation {
  std::string metric;  ///< dotted path or JSON pointer into summary.json
  nlohmann::json expected;
  double abs_tolerance = 0.0;
  double rel_tolerance = 0.0;
};

struct GoldenFile {
  std::filesystem::path file;
  std::string description;
  std::filesystem::path scenario;  ///< resolved against the golden file's directory
  std::vector<std::string> overrides;
  std::string tolerance_note;
  std::vector<MetricExpectation> metrics;  ///< in file order (sorted by name)
  nlohmann::json document;                 ///< the file as read, for rewriting
};

/// Reads and checks a golden file; throws config::ConfigError naming the file and JSON path of
/// every problem.
GoldenFile load_golden(const std::filesystem::path& file);

/// The value at `metric` in a summary, or nullopt when the path does not exist.
std::optional<nlohmann::json> find_metric(const nlohmann::json& summary, std::string_view metric);

struct MetricVerdict {
  std::string metric;
  nlohmann::json expected;
  std::optional<nlohmann::json> actual;  ///< nullopt: missing from the summary
  double abs_tolerance = 0.0;
  double rel_tolerance = 0.0;
  bool pass = false;
};

std::vector<MetricVerdict> compare_to_golden(const GoldenFile& golden,
                                             const nlohmann::json& summary);

/// Prints the verdict table (metric, expected, actual, tolerance, verdict).
void print_verdicts(const std::vector<MetricVerdict>& verdicts, std::ostream& out);

/// The golden document with every expected value replaced by the summary's; `moved` receives
/// the verdicts of the metrics whose value changed (missing metrics throw std::runtime_error).
nlohmann::json regenerate_golden(const GoldenFile& golden, const nlohmann::json& summary,
                                 std::vector<MetricVerdict>& moved);

/// A golden document as text: its keys in the order description, scenario, set, tolerance,
/// metrics, and one line per metric ({"expected": ..., "abs": ..., "rel": ...}), so that a
/// regenerated file diffs line by line.
std::string format_golden(const nlohmann::json& document);

}  // namespace sim::scenario
