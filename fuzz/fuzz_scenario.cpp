// Loading a scenario as `dcsim run`/`validate` do: the scenario file, a preset it may name, a
// file it may include, and `--set` overrides, merged and validated against the scenario schema.
// The input is up to four parts separated by NUL bytes:
//   scenario.json \0 presets/p.json \0 inc.json \0 --set lines (one KEY=VALUE per line)
// written as files of one scratch scenario directory, so `"preset": "p"` and
// `"include": "inc.json"` resolve. The components are small stand-ins registered here (a
// workload, a platform with a nested autoscaler): the loader, the registry and the schema
// engine are the code under test, not the simulator's own components, which keeps this
// target free of simulator code.
//
// Rejections are ConfigError (they name the file or the --set and the JSON path). An accepted
// scenario must: have a name that is one folder name, and resolve again to itself (resolving is
// idempotent, which `dcsim validate` of a written scenario.json relies on).
// DCSIM_FUZZ_VERBOSE=1 prints each input's outcome (to check that seeds reach what they should).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "scratch_file.hpp"
#include "sim/config/diagnostics.hpp"
#include "sim/scenario/overrides.hpp"
#include "sim/scenario/registry.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace {

using sim::config::ParamType;
using sim::config::Schema;

std::shared_ptr<const Schema> workload_schema() {
  auto s = std::make_shared<Schema>("workload/stub", "a stand-in request source");
  s->add("rate", ParamType::kRate).def("10/s").at_least(0).doc("arrivals");
  s->add("start", ParamType::kDuration).def("0s").at_least(0).doc("first arrival");
  s->add("function", ParamType::kString).def("f").doc("target");
  s->add("size", ParamType::kBytes).optional().doc("payload");
  return s;
}

std::shared_ptr<const Schema> autoscaler_schema() {
  auto s = std::make_shared<Schema>("autoscaler/stub", "a stand-in policy");
  s->add("replicas", ParamType::kInteger).def(1).at_least(0).at_most(1000).doc("count");
  s->add("mode", ParamType::kChoice).def("a").one_of({"a", "b"}).doc("mode");
  return s;
}

std::shared_ptr<const Schema> platform_schema() {
  auto host = std::make_shared<Schema>("platform/stub/host", "a host");
  host->add("gpus", ParamType::kInteger).def(1).at_least(0).at_most(64).doc("GPUs");
  host->add("link", ParamType::kBitrate).def("10Gbps").doc("NIC");
  auto s = std::make_shared<Schema>("platform/stub", "a stand-in platform");
  s->list_of("hosts", host).def(nlohmann::json::array({nlohmann::json::object()})).doc("hosts");
  s->add("slo", ParamType::kDuration).def("100ms").at_least(1e-6).doc("SLO");
  s->add("share", ParamType::kNumber).def(0.5).at_least(0).at_most(1).doc("share");
  s->add("exclusive", ParamType::kBool).def(false).doc("flag");
  s->add("attributes", ParamType::kAny).optional().doc("free-form");
  s->component("autoscaler", "autoscaler").def({{"type", "stub"}}).doc("scaling policy");
  return s;
}

sim::scenario::Registry make_registry() {
  sim::scenario::Registry r;
  r.add_workload({"stub", "stand-in", workload_schema(),
                  [](const nlohmann::json&, const sim::traces::WorkloadContext&) {
                    return std::unique_ptr<sim::traces::ArrivalSource>();
                  }});
  r.add_platform({"stub", "stand-in", platform_schema(),
                  [](const nlohmann::json&, sim::platform::PlatformContext) {
                    return std::unique_ptr<sim::platform::Platform>();
                  }});
  r.add_policy({"autoscaler", "stub", "stand-in", autoscaler_schema(),
                [](const nlohmann::json&, sim::policy::PolicyContext) {
                  return std::unique_ptr<sim::policy::Policy>();
                }});
  return r;
}

void write(const std::filesystem::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const sim::scenario::Registry registry = make_registry();
  static const bool verbose = std::getenv("DCSIM_FUZZ_VERBOSE") != nullptr;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> parts;
  std::size_t from = 0;
  while (parts.size() < 3) {
    const auto nul = input.find('\0', from);
    if (nul == std::string_view::npos) break;
    parts.push_back(input.substr(from, nul - from));
    from = nul + 1;
  }
  parts.push_back(input.substr(from));

  const auto dir = sim::fuzz::scratch_dir() / "scenario";
  std::filesystem::create_directories(dir / "presets");
  std::error_code ignored;
  std::filesystem::remove(dir / "presets" / "p.json", ignored);
  std::filesystem::remove(dir / "inc.json", ignored);
  write(dir / "scenario.json", parts[0]);
  if (parts.size() > 1) write(dir / "presets" / "p.json", parts[1]);
  if (parts.size() > 2) write(dir / "inc.json", parts[2]);

  try {
    sim::scenario::LoadOptions options;
    if (parts.size() > 3) {
      std::size_t line_start = 0;
      const auto sets = parts[3];
      while (line_start <= sets.size() && options.overrides.size() < 16) {
        auto end = sets.find('\n', line_start);
        if (end == std::string_view::npos) end = sets.size();
        const auto line = sets.substr(line_start, end - line_start);
        if (!line.empty()) {
          options.overrides.push_back(sim::scenario::parse_override(std::string(line)));
        }
        line_start = end + 1;
      }
    }
    const auto loaded = sim::scenario::load_scenario(dir / "scenario.json", registry, options);
    const auto& name = loaded.resolved.at("name").get_ref<const std::string&>();
    if (name.empty() || name == "." || name == ".." ||
        name.find_first_of("/\\") != std::string::npos) {
      __builtin_trap();  // a run name that leaves the output directory
    }
    const auto again = sim::scenario::resolve_document(loaded.resolved, "again", registry);
    if (again != loaded.resolved) __builtin_trap();  // resolving is not idempotent
    if (verbose) std::cerr << "accepted: " << loaded.resolved.dump() << "\n";
  } catch (const sim::config::ConfigError& e) {
    // A located rejection: the expected outcome for bad input.
    if (verbose) std::cerr << "rejected: " << e.what() << "\n";
  }
  return 0;
}
