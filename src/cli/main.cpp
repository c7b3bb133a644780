// dcsim: command-line front end. The library throws; only this file turns exceptions into
// messages and exit codes (STYLE.md "Errors").

#include <exception>
#include <iostream>
#include <map>

#include "commands.hpp"
#include "sim/config/diagnostics.hpp"

namespace sim::cli {

namespace {
struct Command {
  int (*fn)(const Args&, std::ostream&, std::ostream&);
  const char* summary;
  /// The command checks interrupt_requested() and writes partial results when stopped; the
  /// others keep the default action of SIGINT and SIGTERM (they end at once).
  bool stops_on_signal = false;
};

const std::map<std::string, Command>& commands() {
  static const std::map<std::string, Command> table = {
      {"run", {run_command, "run a scenario and write its results", true}},
      {"validate", {validate_command, "check a scenario without running it"}},
      {"list", {list_command, "list registered components, presets and models"}},
      {"describe", {describe_command, "show the parameters of a component"}},
      {"docs", {docs_command, "generate the scenario reference (Markdown)"}},
      {"trace-info", {trace_info_command, "statistics of a trace file"}},
      {"model-info", {model_info_command, "a model's profile and latency table"}},
      {"fit", {fit_command, "fit profile coefficients from measurements"}},
      {"flows", {flows_command, "replay flows on a topology with the network model"}},
      {"plan", {plan_command, "offline plan of a planning policy (HarmonyBatch)"}},
      {"calibrate",
       {calibrate_command, "match an autoscaler threshold to a resource budget", true}},
      {"check", {check_command, "compare a run's summary with golden metrics", true}},
      {"sweep", {sweep_command, "run an experiment grid (local threads or MPI)", true}},
      {"reproduce", {reproduce_command, "check every paper claim (the reproduction scorecard)"}},
  };
  return table;
}

void print_help(std::ostream& out) {
  out << "dcsim: discrete-event simulator for serverless ML-inference datacenters\n\n"
         "usage: dcsim COMMAND [OPTIONS]\n       dcsim COMMAND --help\n\ncommands:\n";
  for (const auto& [name, c] : commands())
    out << "  " << name << std::string(12 - name.size(), ' ') << c.summary << '\n';
  out << "\noptions:\n  -h, --help   show this help\n  --version    print the version\n";
}
}  // namespace

}  // namespace sim::cli

int main(int argc, char** argv) {
  using namespace sim::cli;
  const Args all(argv + 1, argv + argc);
  if (all.empty() || all[0] == "-h" || all[0] == "--help" || all[0] == "help") {
    print_help(std::cout);
    return all.empty() ? kExitUsage : kExitOk;
  }
  if (all[0] == "--version") {
    std::cout << "dcsim " << SIM_VERSION << '\n';
    return kExitOk;
  }
  const auto it = commands().find(all[0]);
  if (it == commands().end()) {
    std::cerr << "dcsim: unknown command \"" << all[0] << "\"; see dcsim --help\n";
    return kExitUsage;
  }
  if (it->second.stops_on_signal) install_interrupt_handler();
  try {
    const int code = it->second.fn(Args(all.begin() + 1, all.end()), std::cout, std::cerr);
    // Output redirected to a full disk or a closed pipe must not end in success with a
    // truncated result.
    std::cout.flush();
    if (!std::cout) {
      std::cerr << "dcsim " << all[0] << ": error: writing to standard output failed\n";
      return kExitFailure;
    }
    return code;
  } catch (const UsageError& e) {
    std::cerr << "dcsim " << all[0] << ": " << e.what() << "\nsee: dcsim " << all[0] << " --help\n";
    return kExitUsage;
  } catch (const sim::config::ConfigError& e) {
    std::cerr << e.what() << '\n';
    return kExitFailure;
  } catch (const std::exception& e) {
    std::cerr << "dcsim " << all[0] << ": error: " << e.what() << '\n';
    return kExitFailure;
  }
}
