// `dcsim check`: a golden file and a run's summary. The input is a golden file, optionally
// followed by a NUL byte and a summary (without one, the golden document itself stands for the
// summary, so that most metrics are missing). Rejections are ConfigError (the JSON reader and
// load_golden, with file and JSON path) and std::runtime_error from regenerate_golden (a metric
// missing from the summary). What is accepted must hold together: one verdict per metric, and
// a regenerated golden file that format_golden prints and the reader reads back unchanged.

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "scratch_file.hpp"
#include "sim/config/diagnostics.hpp"
#include "sim/config/json_text.hpp"
#include "sim/scenario/golden.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string_view golden_text = input.substr(0, nul);
  try {
    const std::string path = sim::fuzz::write_scratch(
        "golden.json", reinterpret_cast<const std::uint8_t*>(golden_text.data()),
        golden_text.size());
    const auto golden = sim::scenario::load_golden(path);
    const nlohmann::json summary =
        nul == std::string_view::npos
            ? golden.document
            : sim::config::parse_json_text(input.substr(nul + 1), "summary.json");
    const auto verdicts = sim::scenario::compare_to_golden(golden, summary);
    if (verdicts.size() != golden.metrics.size()) __builtin_trap();
    std::ostringstream table;
    sim::scenario::print_verdicts(verdicts, table);
    std::vector<sim::scenario::MetricVerdict> moved;
    const auto regenerated = sim::scenario::regenerate_golden(golden, summary, moved);
    const std::string text = sim::scenario::format_golden(regenerated);
    if (sim::config::parse_json_text(text, "regenerated.json") != regenerated) __builtin_trap();
  } catch (const sim::config::ConfigError&) {
  } catch (const std::runtime_error&) {
  }
  return 0;
}
