// dcsim run / dcsim validate.

#include <unistd.h>

#include <fmt/format.h>

#include <boost/program_options.hpp>
#include <iostream>
#include <optional>

#include "commands.hpp"
#include "environment.hpp"
#include "options.hpp"
#include "sim/config/units.hpp"
#include "sim/scenario/run.hpp"

namespace sim::cli {

namespace po = boost::program_options;

namespace {

/// Parses a scenario command (one positional SCENARIO); empty after printing --help.
std::optional<po::variables_map> parse_scenario_command(const Args& args,
                                                        const po::options_description& options,
                                                        std::ostream& out) {
  if (wants_help(args)) {
    out << options << '\n';
    return std::nullopt;
  }
  po::positional_options_description positional;
  positional.add("scenario", 1);
  auto vm = parse_command_line(args, options, positional);
  if (vm.count("scenario") == 0) throw UsageError("missing SCENARIO.json");
  return vm;
}

scenario::LoadOptions load_options(const po::variables_map& vm) {
  scenario::LoadOptions o;
  o.preset_dirs = preset_dirs();
  if (vm.count("set") != 0) {
    for (const auto& s : vm["set"].as<std::vector<std::string>>()) {
      o.overrides.push_back(scenario::parse_override(s));
    }
  }
  // Dedicated options are overrides of their keys, type-checked by the same schema.
  if (vm.count("seed") != 0) {
    // Checked by the schema like any other value: program_options would wrap "-1" to 2^64-1.
    o.overrides.push_back(scenario::parse_override("seed=" + vm["seed"].as<std::string>()));
  }
  if (vm.count("until") != 0) {
    o.overrides.push_back(scenario::parse_override("duration=" + vm["until"].as<std::string>()));
  }
  if (vm.count("name") != 0) {
    nlohmann::json name = vm["name"].as<std::string>();
    o.overrides.push_back(scenario::parse_override("name=" + name.dump()));
  }
  if (vm.count("requests") != 0) {
    o.overrides.push_back(
        scenario::parse_override("output.requests=" + vm["requests"].as<std::string>()));
  }
  if (vm.count("events") != 0) {
    o.overrides.push_back(
        scenario::parse_override("output.events=" + vm["events"].as<std::string>()));
  }
  return o;
}

po::options_description common_options(const char* title) {
  po::options_description d(title);
  d.add_options()("help,h", "show this help")("scenario", po::value<std::string>(),
                                              "scenario file (JSON)")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "override a scenario value: KEY.PATH=VALUE, e.g. --set workload.0.rate=80/s "
      "(repeatable; VALUE is JSON if it parses as JSON, else a string)")(
      "seed", po::value<std::string>(), "master seed (overrides the scenario's \"seed\")")(
      "until", po::value<std::string>(),
      "simulated time to run, with a unit, e.g. 3600s (overrides \"duration\")")(
      "name", po::value<std::string>(), "run name (overrides \"name\"; names the output folder)")(
      "requests", po::value<std::string>(),
      "per-request output: hdf5, csv or none (overrides \"output.requests\")")(
      "events", po::value<std::string>(),
      "lifecycle event log events.csv: none, lifecycle or all (overrides \"output.events\")");
  return d;
}

}  // namespace

int run_command(const Args& args, std::ostream& out, std::ostream& err) {
  auto options = common_options(
      "usage: dcsim run SCENARIO.json [options]\n\n"
      "Runs a scenario and writes OUT/NAME/summary.json, requests.h5 (or .csv), timeseries.csv\n"
      "(events.csv with --events) and the fully resolved scenario.json. Ctrl-C stops the run and "
      "writes what was recorded,\n"
      "marked \"partial\": true (exit code 130).\n\noptions");
  options.add_options()("out,o", po::value<std::string>()->default_value("out"),
                        "output directory; results go to OUT/NAME/")("quiet,q",
                                                                     "print no summary table");
  const auto vm = parse_scenario_command(args, options, out);
  if (!vm) return kExitOk;
  const auto registry = builtin_registry();
  const auto loaded =
      scenario::load_scenario((*vm)["scenario"].as<std::string>(), registry, load_options(*vm));
  scenario::RunOptions run;
  run.out_dir = (*vm)["out"].as<std::string>();
  run.trace_search_path = trace_search_path();
  run.data_dir = data_dir();
  run.interrupted = interrupt_requested;
  const bool terminal = isatty(STDERR_FILENO) != 0;
  if (terminal) {
    run.progress = [&err](const std::string& line) {
      err << '\r' << line << "\x1b[K" << std::flush;
    };
  }
  const auto result = scenario::run_scenario(loaded, registry, run);
  if (terminal) err << "\r\x1b[K" << std::flush;
  if (vm->count("quiet") == 0) {
    out << "dcsim run " << loaded.resolved.at("name").get<std::string>() << ": " << result.events
        << " events in " << fmt::format("{:.2f}", result.wall_seconds) << " s wall\n";
    scenario::print_summary_table(result.summary, out);
    out << "results: " << result.directory.string() << "/\n";
  }
  return result.partial ? kExitInterrupted : kExitOk;
}

int validate_command(const Args& args, std::ostream& out, std::ostream& /*err*/) {
  auto options = common_options(
      "usage: dcsim validate SCENARIO.json [options]\n\n"
      "Checks a scenario (with its presets, includes and overrides) without running it and\n"
      "reports every problem at once. With --print, writes the resolved scenario.\n\noptions");
  options.add_options()("print", "print the resolved scenario (all defaults filled in)");
  const auto vm = parse_scenario_command(args, options, out);
  if (!vm) return kExitOk;
  const auto registry = builtin_registry();
  const auto loaded =
      scenario::load_scenario((*vm)["scenario"].as<std::string>(), registry, load_options(*vm));
  scenario::RunOptions build;
  build.trace_search_path = trace_search_path();
  build.data_dir = data_dir();
  scenario::check_scenario(loaded, registry, build);
  if (vm->count("print") != 0) {
    out << loaded.resolved.dump(2) << '\n';
  } else {
    out << loaded.file.string() << ": valid\n";
  }
  return kExitOk;
}

}  // namespace sim::cli
