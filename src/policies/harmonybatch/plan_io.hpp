#pragma once
/// Reading application sets, printing plans (table and JSON), and turning a plan into a
/// runnable scenario on the `serverless` platform (one function per application and group,
/// per-group queues, per-application timeouts, the planner policy that starts the instances,
/// and per-batch billing with the plan's price table).

#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "plan_types.hpp"

namespace sim::policy::harmonybatch {

/// An APPS.json file: {"model": "harmonybatch/vgg19", "applications": [{"name": "app1",
/// "slo": 0.5, "rate": 5}, ...]} (SLO in seconds, rate in requests/s).
struct ApplicationSet {
  std::string model;
  std::vector<Application> apps;
  /// Optional per-application "workload": a workload component (e.g. an azure2019 trace)
  /// the scenario uses instead of Poisson arrivals at `rate`; application, function, class
  /// and slo are filled in.
  std::map<std::string, nlohmann::json> workloads;
};

/// Largest application set a plan may have: HarmonyBatch plans 1,000 applications in about
/// a second; its time grows faster than linearly with the set.
inline constexpr std::size_t kMaxApplications = 1000;

/// Throws std::invalid_argument naming `where` and the JSON path of the problem.
ApplicationSet parse_application_set(const nlohmann::json& j, const std::string& where);
/// The "applications" array of the planner policy (slo and rate may carry units).
/// `allow_workload`: entries may carry a "workload" object (APPS.json), returned in
/// `workloads` when given.
std::vector<Application> parse_applications(
    const nlohmann::json& list, const std::string& where, bool allow_workload = false,
    std::map<std::string, nlohmann::json>* workloads = nullptr);

/// Function name of application `app` in group `group` (0-based): "g<group>.<app>".
std::string function_name(std::size_t group, const std::string& app);
/// Queue group name of group `group`: "g<group>".
std::string queue_group_name(std::size_t group);

/// Instances a group's function starts with: enough that concurrent batches (M/G/inf with
/// load rho = r/b * L_max) rarely wait, rho + 4 sqrt(rho) + 1, rounded up.
int instances_for(const Group& g);

/// The planner switches as the planner policy's parameters (prices, fix_merge_ratio, ...).
nlohmann::json planner_options_to_json(const PlannerOptions& o);
nlohmann::json plan_to_json(const Plan& plan, const PlannerOptions& o);
void print_plan_table(const Plan& plan, std::ostream& out);

struct DeploymentOptions {
  std::string name = "harmonybatch";
  std::string description;
  std::uint64_t seed = 1;
  double duration_s = 600.0;
  double warmup_s = 60.0;
  std::string cpu_latency = "sampled";
  std::string time_slice_mode = "slot-schedule";
  std::string requests_output = "none";
  std::string gpu_type = "A10";
};

/// A scenario that runs `plan` with Poisson arrivals at each application's rate, or with the
/// application's own workload component from `workloads`.
nlohmann::json deployment_scenario(const Plan& plan, const std::string& algorithm,
                                   const PlannerOptions& o, const DeploymentOptions& d,
                                   const std::map<std::string, nlohmann::json>& workloads = {});

}  // namespace sim::policy::harmonybatch
