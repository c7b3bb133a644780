// The strict JSON reader behind every JSON input (scenarios, presets, --set values, the model
// catalog, topologies, sweeps, golden files, summaries, planner inputs). Accepted documents
// must survive a dump and re-parse unchanged; rejections are ConfigError with a location.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sim/config/diagnostics.hpp"
#include "sim/config/json_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto doc = sim::config::parse_json_text(text, "fuzz.json");
    // Round trip: what dcsim writes back (resolved scenarios, summaries) reads back the same.
    if (sim::config::parse_json_text(doc.dump(), "dump.json") != doc) __builtin_trap();
    (void)sim::config::parse_ordered_json_text(text, "fuzz.json");
  } catch (const sim::config::ConfigError&) {
    // A located rejection: the expected outcome for bad input.
  }
  return 0;
}
