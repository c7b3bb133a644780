// dcsim calibrate: the resource matching of the Flashpoint evaluation (thesis §8.4, §8.5).
// Runs a scenario repeatedly, changing one autoscaler threshold, until the average number of
// replicas per second (replica lifetimes summed, over the run's duration) is within a
// tolerance of a target: a number, or the value of another run's summary (the baseline).
// The inverse search of §8.5 matches the mean end-to-end latency instead (a number, or another
// run's, e.g. Flashpoint's) and reports the replicas per second that latency costs.

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "environment.hpp"
#include "flashpoint/autoscalers.hpp"
#include "options.hpp"
#include "sim/config/json_text.hpp"
#include "sim/scenario/run.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "threshold_search.hpp"

namespace sim::cli {

namespace po = boost::program_options;

namespace {

/// Thesis §8.5: the time each replica is reserved, summed, over the workload's duration.
double replicas_per_second(const nlohmann::json& summary) {
  const double d = summary.at("duration_s").get<double>() - summary.value("warmup_s", 0.0);
  return summary.at("instance_seconds").get<double>() / std::max(d, 1e-9);
}

/// Default search range of each threshold (every one of them: larger -> fewer replicas).
std::pair<double, double> default_range(const std::string& type, const std::string& key) {
  if (key == "target_queue_latency_s") return {0.05, 200.0};
  if (type == "atl" && key == "target_utilisation") return {0.05, 10.0};
  if (key == "target_invocations") return {10.0, 1e6};
  if (key == "target_utilisation") return {0.02, 1.0};
  return {1e-3, 1e3};
}

double mean_latency(const nlohmann::json& summary, const std::string& file) {
  const auto& m = summary.at("latency_s").at("mean");
  if (!m.is_number()) throw std::runtime_error(file + ": latency_s.mean: no completed request");
  return m.get<double>();
}

nlohmann::json read_summary(const std::string& path) {
  return config::read_json_document(path);
}

}  // namespace

int calibrate_command(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description options(
      "usage: dcsim calibrate SCENARIO.json (--replicas R | --match SUMMARY.json |\n"
      "                       --latency S | --match-latency SUMMARY.json) [options]\n\n"
      "Searches one autoscaler threshold (bisection on its logarithm; a larger threshold\n"
      "must give fewer replicas) until the run's average replicas per second, the thesis's\n"
      "resource measure (§8.5), is within --tolerance of the target. With --latency or\n"
      "--match-latency it matches the mean end-to-end latency instead (at most --tolerance\n"
      "above it, never below) and reports the replicas per second that latency needs (§8.5:\n"
      "the resources a baseline needs to reach Flashpoint's latency); as latency need not be\n"
      "monotone in the threshold, it runs a geometric grid of min(iterations/2, 6) thresholds\n"
      "over [low, high] first, then bisects where the latency crosses the target at the\n"
      "largest threshold; when every grid run is slower, it first narrows in on the fastest.\n"
      "Prints every run and the threshold found; exit code 1 when none is within\n"
      "tolerance.\n\noptions");
  options.add_options()("help,h", "show this help")("scenario", po::value<std::string>(),
                                                    "scenario file (JSON)")(
      "replicas", po::value<double>(), "target average replicas per second")(
      "match", po::value<std::string>(),
      "summary.json of the run to match (e.g. the baseline's); its replicas per second")(
      "latency", po::value<double>(), "target mean end-to-end latency (s)")(
      "match-latency", po::value<std::string>(),
      "summary.json whose mean end-to-end latency to reach (e.g. Flashpoint's); the result is "
      "also given relative to its replicas per second")(
      "param", po::value<std::string>(),
      "autoscaler key to change (default: the autoscaler's threshold: tsk "
      "target_queue_latency_s, atl/owk target_utilisation, sm target_invocations)")(
      "low", po::value<double>(), "lowest threshold tried")("high", po::value<double>(),
                                                            "highest threshold tried")(
      "tolerance", po::value<double>(),
      "relative tolerance (thesis: replicas within 5%; a latency at most 10% above the "
      "target, never below it, §8.5)")("iterations", po::value<int>()->default_value(10),
                                       "most runs")(
      "out,o", po::value<std::string>()->default_value("out/calibrate"), "run outputs")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "override a scenario value: KEY.PATH=VALUE (repeatable)");
  if (wants_help(args)) {
    out << options << '\n';
    return kExitOk;
  }
  po::positional_options_description positional;
  positional.add("scenario", 1);
  const auto vm = parse_command_line(args, options, positional);
  if (vm.count("scenario") == 0) throw UsageError("missing SCENARIO.json");
  if (vm.count("replicas") + vm.count("match") + vm.count("latency") + vm.count("match-latency") !=
      1) {
    throw UsageError("give exactly one of --replicas, --match, --latency and --match-latency");
  }
  const bool by_latency = vm.count("latency") != 0 || vm.count("match-latency") != 0;
  double target = 0.0;
  std::optional<double> reference_replicas;  // --match-latency: that run's resources
  if (vm.count("replicas") != 0) {
    target = vm["replicas"].as<double>();
  } else if (vm.count("match") != 0) {
    target = replicas_per_second(read_summary(vm["match"].as<std::string>()));
  } else if (vm.count("latency") != 0) {
    target = vm["latency"].as<double>();
  } else {
    const auto path = vm["match-latency"].as<std::string>();
    const auto summary = read_summary(path);
    target = mean_latency(summary, path);
    reference_replicas = replicas_per_second(summary);
  }
  if (!(target > 0)) {
    throw UsageError(by_latency ? "the target latency must be > 0"
                                : "the target replicas per second must be > 0");
  }
  const auto registry = builtin_registry();
  const std::string file = vm["scenario"].as<std::string>();
  scenario::LoadOptions base;
  base.preset_dirs = preset_dirs();
  if (vm.count("set") != 0) {
    for (const auto& s : vm["set"].as<std::vector<std::string>>())
      base.overrides.push_back(scenario::parse_override(s));
  }
  const auto probe = scenario::load_scenario(file, registry, base);
  const auto& scaler = probe.resolved.at("platform").at("policies").at("autoscaler");
  const std::string type = scaler.at("type").get<std::string>();
  std::string key = vm.count("param") != 0 ? vm["param"].as<std::string>()
                                           : policy::flashpoint::threshold_name(type);
  if (key.empty() || !scaler.contains(key)) {
    throw UsageError(fmt::format("{}: autoscaler \"{}\" has no threshold {}; name one with --param",
                                 file, type,
                                 key.empty() ? std::string("(none known)") : "\"" + key + "\""));
  }
  auto [lo, hi] = default_range(type, key);
  if (vm.count("low") != 0) lo = vm["low"].as<double>();
  if (vm.count("high") != 0) hi = vm["high"].as<double>();
  if (!(lo > 0 && hi > lo)) throw UsageError("need 0 < --low < --high");
  const double tol =
      vm.count("tolerance") != 0 ? vm["tolerance"].as<double>() : (by_latency ? 0.10 : 0.05);
  if (!(tol >= 0)) throw UsageError("--tolerance must be >= 0");
  const int iterations = vm["iterations"].as<int>();
  const std::string name = probe.resolved.at("name").get<std::string>();

  out << fmt::format("dcsim calibrate {}: {} {} for {:.3f} {} ({} {:.1f}%)\n", name, type, key,
                     target, by_latency ? "s mean latency" : "replicas/s",
                     by_latency ? "at most" : "within", 100.0 * tol);
  const auto run_at = [&](double threshold, int k) {
    scenario::LoadOptions o = base;
    o.overrides.push_back(scenario::parse_override(
        fmt::format("platform.policies.autoscaler.{}={}", key, threshold)));
    o.overrides.push_back(scenario::parse_override("output.requests=none"));
    o.overrides.push_back(scenario::parse_override(
        "name=" + nlohmann::json(fmt::format("{}-calibrate-{}", name, k)).dump()));
    const auto loaded = scenario::load_scenario(file, registry, o);
    scenario::RunOptions run;
    run.out_dir = vm["out"].as<std::string>();
    run.trace_search_path = trace_search_path();
    run.data_dir = data_dir();
    run.interrupted = interrupt_requested;
    const auto result = scenario::run_scenario(loaded, registry, run);
    const double r = replicas_per_second(result.summary);
    const auto& lat = result.summary.at("latency_s").at("mean");
    // A run that completed nothing has no latency: treat it as infinitely slow.
    const double l = lat.is_number() ? lat.get<double>() : std::numeric_limits<double>::infinity();
    const double measured = by_latency ? l : r;
    out << fmt::format(
        "  run {:2d}: {} = {:<12.6g} replicas/s {:9.3f}  mean latency {} s  ({:+.1f}% from the "
        "target)\n",
        k, key, threshold, r, lat.is_number() ? fmt::format("{:.3f}", l) : std::string("-"),
        100.0 * (measured / target - 1.0));
    return std::pair{measured, r};
  };
  const ThresholdSearch search{.low = lo,
                               .high = hi,
                               .target = target,
                               .tolerance = tol,
                               .iterations = iterations,
                               .by_latency = by_latency};
  int k = 0;
  const auto found =
      search_threshold(search, [&](double t) -> std::optional<std::pair<double, double>> {
        if (interrupt_requested()) return std::nullopt;
        return run_at(t, ++k);
      });
  if (found.interrupted) return kExitInterrupted;
  const bool matched = found.matched;
  const auto& faster = found.faster;
  const auto& slower = found.slower;
  if (by_latency && !matched && faster && slower) {
    out << fmt::format(
        "bracketed: {:.3f} replicas/s give {:.3f} s, {:.3f} replicas/s give {:.3f} s\n",
        faster->second, faster->first, slower->second, slower->first);
  }
  out << fmt::format("{} {}={:.6g}: {:.2f}% from the target, {:.3f} replicas/s",
                     matched ? "matched" : "closest", key, found.threshold, 100.0 * found.error,
                     found.replicas);
  if (reference_replicas && *reference_replicas > 0) {
    out << fmt::format(" ({:+.1f}% of the matched run's {:.3f})",
                       100.0 * (found.replicas / *reference_replicas - 1.0), *reference_replicas);
  }
  out << '\n';
  if (!matched) err << "dcsim calibrate: no threshold within tolerance\n";
  return matched ? kExitOk : kExitFailure;
}

}  // namespace sim::cli
