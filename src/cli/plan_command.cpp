// dcsim plan: offline planners. `dcsim plan harmonybatch APPS.json` prints HarmonyBatch's plan
// (or a baseline's) as a table or JSON and can write a scenario that runs it.

#include <fmt/format.h>

#include <boost/program_options.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "harmonybatch/baselines.hpp"
#include "harmonybatch/plan_io.hpp"
#include "options.hpp"
#include "sim/config/json_text.hpp"
#include "sim/metrics/atomic_file.hpp"

namespace sim::cli {

namespace po = boost::program_options;
namespace hb = sim::policy::harmonybatch;
using nlohmann::json;

namespace {

json read_json_file(const std::string& path) {
  return config::read_json_document(path);
}

void write_text(const std::string& path, const std::string& text, std::ostream& out) {
  if (path == "-") {
    out << text;
    return;
  }
  // Atomic: a failed write never leaves a partial or empty file under the final name.
  metrics::AtomicFile f(path);
  f.stream() << text;
  f.commit();
}

int harmonybatch(const Args& args, std::ostream& out) {
  po::options_description options(
      "usage: dcsim plan harmonybatch APPS.json [options]\n\n"
      "Plans applications that share one DNN model on CPU and cGPU functions (HarmonyBatch,\n"
      "Chen et al.; or the BATCH / MBS+ baselines) and prints the groups, function type,\n"
      "resources, batch size, per-application timeouts and predicted cost. APPS.json:\n"
      "  {\"model\": \"harmonybatch/vgg19\", \"applications\": [{\"name\": \"app1\", \"slo\": "
      "0.5,\n"
      "   \"rate\": 5}, ...]}   (slo in seconds, rate in requests/s; an application may add\n"
      "  \"workload\": {...}, a workload component that --scenario uses instead of Poisson\n"
      "  arrivals)\n\noptions");
  options.add_options()("help,h", "show this help")("apps", po::value<std::string>(),
                                                    "application set (JSON)")(
      "algorithm", po::value<std::string>()->default_value("harmonybatch"),
      "harmonybatch, batch, mbs+, or all (the three, with costs normalised to BATCH)")(
      "prices", po::value<std::string>()->default_value("paper"),
      "price table of eq. 6: paper (USD, Nov 2023) or code (the public code's)")(
      "no-fix-merge-ratio", "weigh merged groups by 1 + sum of shares, as the public code does")(
      "largest-slo-only", "check GPU functions against the group's largest SLO only (the code)")(
      "forced-stage1", "stage 1 merges without Merge's cost check (the code)")(
      "knee-class-stage", "the code's knee-class merge pass before stage 2 (not in the paper)")(
      "continuous-cores", "keep CPU cores from the SLO bound off the 0.05 grid (the code, Q4)")(
      "skip-loose-slo-batch", "skip CPU batches whose SLO bound gives c <= 0 (the code, Q3)")(
      "reference-code",
      "every switch as the public code runs it: --prices code --no-fix-merge-ratio\n"
      "--largest-slo-only --forced-stage1 --knee-class-stage --continuous-cores\n"
      "--skip-loose-slo-batch")(
      "mbs-search", po::value<std::string>()->default_value("bayesian"),
      "MBS+'s per-group search: bayesian (the original's 5 + 10 evaluations per\n"
      "function type) or exhaustive (every grid point)")(
      "mbs-seed", po::value<std::uint64_t>()->default_value(1),
      "seed of MBS+'s Bayesian search (the original: random_state 1)")(
      "mbs-max-applications", po::value<int>()->default_value(64),
      "largest application set MBS+ plans (its time grows with the square of the\n"
      "set: 64 take ~20 s)")("format", po::value<std::string>()->default_value("table"),
                             "table or json")("json", po::value<std::string>(),
                                              "also write the JSON to this file (- = stdout)")(
      "scenario", po::value<std::string>(),
      "write a scenario that runs the plan on the serverless platform (Poisson arrivals)")(
      "name", po::value<std::string>(), "scenario name (default: from --scenario's file name)")(
      "duration", po::value<double>()->default_value(600.0), "scenario duration, seconds")(
      "warmup", po::value<double>()->default_value(60.0), "scenario warm-up, seconds")(
      "seed", po::value<std::uint64_t>()->default_value(1), "scenario seed")(
      "cpu-latency", po::value<std::string>()->default_value("sampled"),
      "CPU batch latency in the scenario: sampled, average or maximum")(
      "requests", po::value<std::string>()->default_value("none"),
      "per-request output of the scenario: hdf5, csv or none");
  po::positional_options_description positional;
  positional.add("apps", 1);
  const auto vm = parse_command_line(args, options, positional);
  if (vm.count("help") != 0) {
    out << options << '\n';
    return kExitOk;
  }
  if (vm.count("apps") == 0) throw UsageError("missing APPS.json");
  const std::string path = vm["apps"].as<std::string>();
  const auto set = hb::parse_application_set(read_json_file(path), path);
  const bool code = vm.count("reference-code") != 0;
  hb::PlannerOptions o = code ? hb::PlannerOptions::reference_code() : hb::PlannerOptions{};
  if (!code || !vm["prices"].defaulted())
    o.prices = hb::PriceTable::named(vm["prices"].as<std::string>());
  if (vm.count("no-fix-merge-ratio") != 0) o.fix_merge_ratio = false;
  if (vm.count("largest-slo-only") != 0) o.check_all_slos_on_gpu = false;
  if (vm.count("forced-stage1") != 0) o.forced_stage1_merge = true;
  if (vm.count("knee-class-stage") != 0) o.knee_class_stage = true;
  if (vm.count("continuous-cores") != 0) o.cpu_cores_on_grid = false;
  if (vm.count("skip-loose-slo-batch") != 0) o.skip_loose_slo_batch = true;
  const std::string search = vm["mbs-search"].as<std::string>();
  if (search != "bayesian" && search != "exhaustive")
    throw UsageError("--mbs-search must be bayesian or exhaustive, found \"" + search + "\"");
  o.mbs_bayesian = search == "bayesian";
  o.mbs_seed = vm["mbs-seed"].as<std::uint64_t>();
  o.mbs_max_applications = vm["mbs-max-applications"].as<int>();
  const auto catalog = load_catalog();
  const auto model = hb::PlannerModel::from_profile(catalog.model(set.model));
  const std::string algorithm = vm["algorithm"].as<std::string>();
  const std::string format = vm["format"].as<std::string>();
  if (format != "table" && format != "json") throw UsageError("--format must be table or json");

  std::vector<hb::Plan> plans;
  if (algorithm == "all") {
    for (const char* a : {"batch", "mbs+", "harmonybatch"})
      plans.push_back(hb::plan_with(a, model, set.apps, o));
  } else {
    plans.push_back(hb::plan_with(algorithm, model, set.apps, o));
  }
  json result;
  if (plans.size() == 1) {
    result = hb::plan_to_json(plans.front(), o);
  } else {
    result = json{{"plans", json::array()}, {"normalised_cost", json::object()}};
    for (const auto& p : plans) {
      result["plans"].push_back(hb::plan_to_json(p, o));
      result["normalised_cost"][p.algorithm] = p.cost_per_request / plans.front().cost_per_request;
    }
  }
  if (format == "json") {
    out << result.dump(2) << '\n';
  } else {
    for (const auto& p : plans) {
      hb::print_plan_table(p, out);
      out << '\n';
    }
    if (plans.size() > 1) {
      out << "normalised cost (BATCH = 1.00):";
      for (const auto& p : plans)
        out << fmt::format(" {} {:.2f}", p.algorithm,
                           p.cost_per_request / plans.front().cost_per_request);
      out << '\n';
    }
  }
  if (vm.count("json") != 0) write_text(vm["json"].as<std::string>(), result.dump(2) + "\n", out);
  if (vm.count("scenario") != 0) {
    if (plans.size() != 1) throw UsageError("--scenario needs a single --algorithm");
    const std::string file = vm["scenario"].as<std::string>();
    hb::DeploymentOptions d;
    if (vm.count("name") != 0) {
      d.name = vm["name"].as<std::string>();
    } else {
      const auto slash = file.find_last_of('/');
      d.name = file.substr(slash == std::string::npos ? 0 : slash + 1);
      if (d.name.size() > 5 && d.name.ends_with(".json")) d.name.resize(d.name.size() - 5);
    }
    d.duration_s = vm["duration"].as<double>();
    d.warmup_s = vm["warmup"].as<double>();
    d.seed = vm["seed"].as<std::uint64_t>();
    d.cpu_latency = vm["cpu-latency"].as<std::string>();
    d.requests_output = vm["requests"].as<std::string>();
    d.description = fmt::format(
        "{} plan of {} ({} applications, {} prices), generated by dcsim plan harmonybatch; "
        "predicted cost {:.6e} $/request.",
        plans.front().algorithm, set.model, set.apps.size(), o.prices.name,
        plans.front().cost_per_request);
    write_text(
        file, hb::deployment_scenario(plans.front(), algorithm, o, d, set.workloads).dump(2) + "\n",
        out);
  }
  return kExitOk;
}

}  // namespace

int plan_command(const Args& args, std::ostream& out, std::ostream& /*err*/) {
  if (args.empty() || args.front() == "-h" || args.front() == "--help") {
    out << "usage: dcsim plan PLANNER ARGS...\n\nplanners:\n"
           "  harmonybatch   HarmonyBatch / BATCH / MBS+ plans of applications sharing a model\n"
           "                 (dcsim plan harmonybatch --help)\n";
    return args.empty() ? kExitUsage : kExitOk;
  }
  if (args.front() == "harmonybatch") return harmonybatch(Args(args.begin() + 1, args.end()), out);
  throw UsageError("unknown planner \"" + args.front() + "\" (available: harmonybatch)");
}

}  // namespace sim::cli
