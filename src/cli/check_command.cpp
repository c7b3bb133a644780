// dcsim check: compares a run's summary metrics with a golden file (sim/scenario/golden.hpp),
// optionally running the golden's scenario first, or regenerating the golden file.

#include <stdlib.h>

#include <fmt/format.h>

#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "environment.hpp"
#include "options.hpp"
#include "sim/config/diagnostics.hpp"
#include "sim/metrics/atomic_file.hpp"
#include "sim/scenario/golden.hpp"
#include "sim/scenario/overrides.hpp"
#include "sim/scenario/run.hpp"

namespace sim::cli {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

/// A temporary directory removed when this goes out of scope (unless kept).
class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string pattern = (fs::temp_directory_path() / "dcsim-check-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("cannot create a temporary directory under " +
                               fs::temp_directory_path().string());
    }
    path_ = pattern;
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  ~ScratchDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

/// Runs the golden's scenario (with its overrides, no per-request output) into `out_dir` and
/// returns the summary.
nlohmann::json run_golden_scenario(const scenario::GoldenFile& golden, const fs::path& out_dir) {
  const auto registry = builtin_registry();
  scenario::LoadOptions load;
  load.preset_dirs = preset_dirs();
  for (const auto& s : golden.overrides)
    load.overrides.push_back(scenario::parse_override(s));
  load.overrides.push_back(scenario::parse_override("output.requests=none"));
  const auto loaded = scenario::load_scenario(golden.scenario, registry, load);
  scenario::RunOptions run;
  run.out_dir = out_dir;
  run.trace_search_path = trace_search_path();
  run.data_dir = data_dir();
  run.interrupted = interrupt_requested;
  const auto result = scenario::run_scenario(loaded, registry, run);
  if (result.partial) throw std::runtime_error("the run was interrupted");
  return result.summary;
}

nlohmann::json read_summary(const fs::path& run_dir) {
  const auto path = run_dir / "summary.json";
  auto summary = scenario::read_json_file(path);
  // An interrupted run's metrics cover only part of the run: passing them would hide the stop.
  if (summary.is_object() && summary.value("partial", false)) {
    throw config::ConfigError({config::Problem{
        path.string(), "/partial",
        "the run was interrupted (\"partial\": true); a golden check needs a complete run",
        {}}});
  }
  return summary;
}

}  // namespace

int check_command(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description options(
      "usage: dcsim check RUN_DIR GOLDEN.json\n"
      "       dcsim check --run GOLDEN.json [--out DIR]\n"
      "       dcsim check --update GOLDEN.json [GOLDEN.json ...]\n\n"
      "Compares the summary metrics of a run (RUN_DIR/summary.json) with a golden file that\n"
      "states, per metric, the expected value and a tolerance; prints a table (metric,\n"
      "expected, actual, tolerance, verdict) and exits 1 if any metric is outside its\n"
      "tolerance or missing. --run first runs the scenario the golden file names (with its\n"
      "\"set\" overrides) into a temporary directory (or --out). --update runs each golden\n"
      "file's scenario and rewrites its expected values, printing every metric that moved.\n"
      "The golden file format is described in docs/reproduction/README.md.\n\noptions");
  options.add_options()("help,h", "show this help")("run",
                                                    "run the golden file's scenario, then compare")(
      "update", "regenerate the expected values of the given golden files")(
      "out,o", po::value<std::string>(), "with --run: keep the run's outputs in DIR/NAME/")(
      "inputs", po::value<std::vector<std::string>>(), "RUN_DIR and/or GOLDEN.json files");
  if (wants_help(args)) {
    out << options << '\n';
    return kExitOk;
  }
  po::positional_options_description positional;
  positional.add("inputs", -1);
  const auto vm = parse_command_line(args, options, positional);
  const auto inputs = vm.count("inputs") != 0 ? vm["inputs"].as<std::vector<std::string>>()
                                              : std::vector<std::string>{};
  const bool run = vm.count("run") != 0;
  const bool update = vm.count("update") != 0;
  if (run && update) throw UsageError("--run and --update exclude each other");

  if (update) {
    if (inputs.empty()) throw UsageError("--update needs at least one GOLDEN.json");
    for (const auto& file : inputs) {
      const auto golden = scenario::load_golden(file);
      ScratchDirectory scratch;
      const auto summary = run_golden_scenario(golden, scratch.path());
      std::vector<scenario::MetricVerdict> moved;
      const auto doc = scenario::regenerate_golden(golden, summary, moved);
      metrics::AtomicFile golden_file(file);
      golden_file.stream() << scenario::format_golden(doc);
      golden_file.commit();
      out << file << ": " << (moved.empty() ? "unchanged" : fmt::format("{} moved", moved.size()))
          << '\n';
      for (const auto& m : moved) {
        out << fmt::format("  {}: {} -> {}\n", m.metric, m.expected.dump(),
                           m.actual ? m.actual->dump() : "(missing)");
      }
    }
    return kExitOk;
  }

  scenario::GoldenFile golden;
  nlohmann::json summary;
  if (run) {
    if (inputs.size() != 1) throw UsageError("--run takes exactly one GOLDEN.json");
    golden = scenario::load_golden(inputs[0]);
    if (vm.count("out") != 0) {
      summary = run_golden_scenario(golden, vm["out"].as<std::string>());
    } else {
      ScratchDirectory scratch;
      summary = run_golden_scenario(golden, scratch.path());
    }
  } else {
    if (inputs.size() != 2) throw UsageError("expected RUN_DIR GOLDEN.json");
    golden = scenario::load_golden(inputs[1]);
    summary = read_summary(inputs[0]);
  }
  const auto verdicts = scenario::compare_to_golden(golden, summary);
  out << golden.file.string() << (golden.description.empty() ? "" : ": " + golden.description)
      << '\n';
  scenario::print_verdicts(verdicts, out);
  const bool ok = std::all_of(verdicts.begin(), verdicts.end(),
                              [](const scenario::MetricVerdict& v) { return v.pass; });
  if (!ok) err << "dcsim check: " << golden.file.string() << ": metrics outside tolerance\n";
  return ok ? kExitOk : kExitFailure;
}

}  // namespace sim::cli
