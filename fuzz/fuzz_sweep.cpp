// `dcsim sweep EXPERIMENT.json`: an experiment file parsed and expanded into its run plan.
// Rejections are ConfigError naming the file and the JSON path. An accepted plan must be one
// the executors can run without losing results: every run has its own directory name, which
// is one path component (no '/', not "." or ".."), runs are numbered in order, and the counts
// add up (kept + excluded combinations = the product of the axes; runs = kept x seeds).

#include <cstddef>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sim/config/diagnostics.hpp"
#include "sim/config/json_text.hpp"
#include "sim/sweep/experiment.hpp"
#include "sim/sweep/plan.hpp"

namespace {

// The planner accepts up to kMaxPlannedRuns (1e5) runs; plans beyond this size are skipped so
// that one input stays within milliseconds (the limit itself has a unit test).
constexpr std::uint64_t kMaxFuzzRuns = 2'000;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto experiment = sim::sweep::parse_experiment(
        sim::config::parse_json_text(text, "experiment.json"), "/sweeps/experiment.json");
    std::uint64_t product = 1;
    for (const auto& axis : experiment.axes)
      product *= axis.variants.size();  // bounded by kMaxPlannedRuns once parsed
    if (product * experiment.seeds.size() > kMaxFuzzRuns) return 0;
    const auto plan = sim::sweep::expand(experiment);
    if (plan.combinations + plan.excluded != product) __builtin_trap();
    if (plan.runs.size() != plan.combinations * experiment.seeds.size()) __builtin_trap();
    std::set<std::string> names;
    for (std::size_t i = 0; i < plan.runs.size(); ++i) {
      const auto& run = plan.runs[i];
      if (run.index != i) __builtin_trap();
      if (run.name.empty() || run.name == "." || run.name == ".." ||
          run.name.find('/') != std::string::npos || run.name.find('\0') != std::string::npos) {
        __builtin_trap();
      }
      if (!names.insert(run.name).second) __builtin_trap();  // two runs, one directory
    }
  } catch (const sim::config::ConfigError&) {
  }
  return 0;
}
