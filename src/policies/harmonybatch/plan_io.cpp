// Application sets in, plans out (table, JSON, runnable scenario).

#include "plan_io.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "sim/config/units.hpp"
#include "sim/traces/workload_limits.hpp"

namespace sim::policy::harmonybatch {

using nlohmann::json;

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& path, const std::string& what) {
  throw std::invalid_argument(fmt::format("{}: {}: {}", where, path, what));
}

double seconds_of(const json& v, const std::string& where, const std::string& path) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    try {
      return config::parse_duration(v.get<std::string>()).to_seconds();
    } catch (const std::exception& e) {
      fail(where, path, e.what());
    }
  }
  fail(where, path,
       "expected seconds (a number or a duration such as \"500ms\"), found " +
           std::string(v.type_name()));
}

double rate_of(const json& v, const std::string& where, const std::string& path) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    try {
      return config::parse_rate(v.get<std::string>());
    } catch (const std::exception& e) {
      fail(where, path, e.what());
    }
  }
  fail(where, path,
       "expected requests/s (a number or a rate such as \"5/s\"), found " +
           std::string(v.type_name()));
}

std::string fmt_duration(double s) {
  return fmt::format("{:.6f}s", std::max(s, 0.0));
}
std::string fmt_gb(double gb) {
  return fmt::format("{:.6f}GB", gb);
}

}  // namespace

std::vector<Application> parse_applications(const json& list, const std::string& where,
                                            bool allow_workload,
                                            std::map<std::string, json>* workloads) {
  if (!list.is_array() || list.empty()) {
    fail(where, "/applications", "expected a non-empty array of applications");
  }
  if (list.size() > kMaxApplications) {
    fail(where, "/applications",
         fmt::format("{} applications, more than the {} a plan may have", list.size(),
                     kMaxApplications));
  }
  std::vector<Application> apps;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string path = "/applications/" + std::to_string(i);
    const json& a = list[i];
    if (!a.is_object()) fail(where, path, "expected an object {name, slo, rate}");
    for (const auto& [k, v] : a.items()) {
      if (k != "name" && k != "slo" && k != "rate" && !(allow_workload && k == "workload")) {
        fail(where, path + "/" + k,
             allow_workload ? "unknown key (expected name, slo, rate, workload)"
                            : "unknown key (expected name, slo, rate)");
      }
    }
    if (!a.contains("name") || !a.at("name").is_string() ||
        a.at("name").get<std::string>().empty()) {
      fail(where, path + "/name", "expected a non-empty string");
    }
    if (!a.contains("slo")) fail(where, path + "/slo", "missing");
    if (!a.contains("rate")) fail(where, path + "/rate", "missing");
    Application app{a.at("name").get<std::string>(), seconds_of(a.at("slo"), where, path + "/slo"),
                    rate_of(a.at("rate"), where, path + "/rate")};
    if (!(app.slo_s > 0)) fail(where, path + "/slo", "must be > 0");
    if (!(app.rate >= traces::kMinGeneratedRate) || app.rate > traces::kMaxGeneratedRate) {
      // --scenario turns every rate into a Poisson workload: a plan must not be able to write
      // a scenario that `dcsim validate` rejects.
      fail(where, path + "/rate",
           fmt::format("expected a rate in [{:g}, {:g}] req/s (the range a workload accepts), "
                       "found {:g}",
                       traces::kMinGeneratedRate, traces::kMaxGeneratedRate, app.rate));
    }
    for (const auto& other : apps) {
      if (other.name == app.name)
        fail(where, path + "/name", "duplicate name \"" + app.name + "\"");
    }
    if (a.contains("workload")) {
      if (!a.at("workload").is_object() || !a.at("workload").contains("type")) {
        fail(where, path + "/workload", "expected a workload component object with a type");
      }
      if (workloads != nullptr) (*workloads)[app.name] = a.at("workload");
    }
    apps.push_back(app);
  }
  return apps;
}

ApplicationSet parse_application_set(const json& j, const std::string& where) {
  if (!j.is_object()) fail(where, "/", "expected an object {model, applications}");
  for (const auto& [k, v] : j.items()) {
    if (k != "model" && k != "applications" && k != "description") {
      fail(where, "/" + k, "unknown key (expected model, applications, description)");
    }
  }
  ApplicationSet s;
  if (!j.contains("model") || !j.at("model").is_string()) {
    fail(where, "/model", "expected a catalog model name such as \"harmonybatch/vgg19\"");
  }
  s.model = j.at("model").get<std::string>();
  if (!j.contains("applications")) fail(where, "/applications", "missing");
  s.apps = parse_applications(j.at("applications"), where, true, &s.workloads);
  return s;
}

std::string function_name(std::size_t group, const std::string& app) {
  return fmt::format("g{}.{}", group, app);
}

std::string queue_group_name(std::size_t group) {
  return fmt::format("g{}", group);
}

int instances_for(const Group& g) {
  const double rho = g.rate() / g.function.batch * g.function.max_latency_s;
  return static_cast<int>(std::ceil(rho + 4.0 * std::sqrt(rho) + 1.0));
}

json planner_options_to_json(const PlannerOptions& o) {
  return json{{"prices", o.prices.name},
              {"fix_merge_ratio", o.fix_merge_ratio},
              {"check_all_slos_on_gpu", o.check_all_slos_on_gpu},
              {"forced_stage1_merge", o.forced_stage1_merge},
              {"knee_class_stage", o.knee_class_stage},
              {"cpu_cores_on_grid", o.cpu_cores_on_grid},
              {"skip_loose_slo_batch", o.skip_loose_slo_batch},
              {"mbs_search", o.mbs_bayesian ? "bayesian" : "exhaustive"},
              {"mbs_seed", o.mbs_seed}};
}

json plan_to_json(const Plan& plan, const PlannerOptions& o) {
  json groups = json::array();
  for (std::size_t k = 0; k < plan.groups.size(); ++k) {
    const Group& g = plan.groups[k];
    const FunctionConfig& f = g.function;
    json apps = json::array();
    for (std::size_t i = 0; i < g.apps.size(); ++i) {
      apps.push_back({{"name", g.apps[i].name},
                      {"slo_s", g.apps[i].slo_s},
                      {"rate", g.apps[i].rate * g.shares[i]},
                      {"share", g.shares[i]},
                      {"timeout_s", f.timeouts_s[i]},
                      {"predicted_max_latency_s", f.timeouts_s[i] + f.max_latency_s}});
    }
    json fn{{"type", to_string(f.type)},        {"vcpu", f.cores},
            {"memory_gb", f.memory_gb},         {"batch", f.batch},
            {"avg_latency_s", f.avg_latency_s}, {"max_latency_s", f.max_latency_s}};
    if (f.type == FunctionType::kGpu) fn["gpu_memory_gb"] = f.gpu_gb;
    groups.push_back({{"group", k},
                      {"applications", apps},
                      {"rate", g.rate()},
                      {"function", fn},
                      {"cost_per_request", f.cost_per_request}});
  }
  json out{{"algorithm", plan.algorithm}, {"model", plan.model}};
  out.update(planner_options_to_json(o));
  out.update(json{{"total_rate", plan.total_rate},
                  {"cost_per_request", plan.cost_per_request},
                  {"cost_per_second", plan.cost_per_second()},
                  {"groups", groups}});
  return out;
}

void print_plan_table(const Plan& plan, std::ostream& out) {
  out << fmt::format("{} plan for {} ({} groups, {:.3f} req/s)\n", plan.algorithm, plan.model,
                     plan.groups.size(), plan.total_rate);
  out << fmt::format("{:<5} {:<4} {:>10} {:>6} {:>9} {:>9} {:>13}  {}\n", "group", "type",
                     "resources", "batch", "L_avg s", "L_max s", "cost/request",
                     "applications (SLO s, rate req/s, timeout s)");
  for (std::size_t k = 0; k < plan.groups.size(); ++k) {
    const Group& g = plan.groups[k];
    const FunctionConfig& f = g.function;
    const std::string res = f.type == FunctionType::kCpu ? fmt::format("{:.4g} vCPU", f.cores)
                                                         : fmt::format("{} GB", f.gpu_gb);
    std::string apps;
    for (std::size_t i = 0; i < g.apps.size(); ++i) {
      if (i > 0) apps += ", ";
      apps += fmt::format("{} ({:g}, {:.4g}, {:.4f})", g.apps[i].name, g.apps[i].slo_s,
                          g.apps[i].rate * g.shares[i], f.timeouts_s[i]);
    }
    out << fmt::format("{:<5} {:<4} {:>10} {:>6} {:>9.4f} {:>9.4f} {:>13.4e}  {}\n", k,
                       to_string(f.type), res, f.batch, f.avg_latency_s, f.max_latency_s,
                       f.cost_per_request, apps);
  }
  out << fmt::format("predicted cost: {:.6e} $/request, {:.6e} $/s\n", plan.cost_per_request,
                     plan.cost_per_second());
}

json deployment_scenario(const Plan& plan, const std::string& algorithm, const PlannerOptions& o,
                         const DeploymentOptions& d, const std::map<std::string, json>& workloads) {
  json functions = json::array();
  double cpu_cores = 0.0;
  double gpu_gb = 0.0;
  // Applications -> (function, share) to route their arrivals.
  std::map<std::string, std::vector<std::pair<std::string, double>>> routes;
  std::map<std::string, Application> apps;
  for (std::size_t k = 0; k < plan.groups.size(); ++k) {
    const Group& g = plan.groups[k];
    const FunctionConfig& f = g.function;
    const int n = instances_for(g);
    if (f.type == FunctionType::kCpu) {
      cpu_cores += n * f.cores;
    } else {
      gpu_gb += n * f.gpu_gb;
    }
    for (std::size_t i = 0; i < g.apps.size(); ++i) {
      const std::string name = function_name(k, g.apps[i].name);
      json fn{{"name", name},
              {"model", plan.model},
              {"resource", to_string(f.type)},
              {"max_batch", f.batch},
              {"batch_timeout", fmt_duration(f.timeouts_s[i])},
              {"application_timeouts", json::array({{{"application", g.apps[i].name},
                                                     {"timeout", fmt_duration(f.timeouts_s[i])}}})},
              {"queue_group", queue_group_name(k)}};
      if (f.type == FunctionType::kCpu) {
        fn["cores"] = f.cores;
        if (o.prices.memory_gb_s > 0) fn["billing_memory"] = fmt_gb(f.memory_gb);
      } else {
        fn["time_slice_memory"] = fmt_gb(f.gpu_gb);
        fn["billing_cores"] = o.prices.gpu_function_bills_cpu_and_memory ? f.cores : 0.0;
        if (o.prices.gpu_function_bills_cpu_and_memory && o.prices.memory_gb_s > 0)
          fn["billing_memory"] = fmt_gb(f.memory_gb);
      }
      functions.push_back(fn);
      routes[g.apps[i].name].emplace_back(name, g.shares[i]);
      apps[g.apps[i].name] = g.apps[i];
    }
  }
  json workload = json::array();
  for (const auto& [name, route] : routes) {
    const Application& a = apps.at(name);
    json w;
    if (const auto it = workloads.find(name); it != workloads.end()) {
      w = it->second;
    } else {
      w = json{{"type", "poisson"}, {"rate", fmt::format("{}/s", a.rate)}};
    }
    w["application"] = name;
    w["class"] = "strict";
    w["slo"] = fmt_duration(a.slo_s);
    w["function"] = route.front().first;
    if (route.size() > 1) {
      json shares = json::array();
      for (const auto& [fn, share] : route)
        shares.push_back({{"share", share}, {"function", fn}});
      if (!w.contains("transforms")) w["transforms"] = json::array();
      w["transforms"].push_back({{"split", {{"shares", shares}}}});
    }
    workload.push_back(w);
  }
  json hosts = json::array();
  const int gpus = static_cast<int>(std::ceil(gpu_gb / 24.0 - 1e-9)) + (gpu_gb > 0 ? 1 : 0);
  json host{{"count", 1}, {"cores", std::ceil(cpu_cores) + 4.0}, {"memory", "4TB"}};
  if (gpus > 0) host["gpus"] = json::array({{{"type", d.gpu_type}, {"count", gpus}}});
  hosts.push_back(host);
  json app_list = json::array();
  for (const auto& [name, a] : apps)
    app_list.push_back(
        {{"name", name}, {"slo", fmt_duration(a.slo_s)}, {"rate", fmt::format("{}/s", a.rate)}});
  json planner{{"type", "harmonybatch"}, {"algorithm", algorithm}, {"model", plan.model}};
  planner.update(planner_options_to_json(o));
  planner["applications"] = app_list;
  json billing{{"per_invocation", o.prices.invocation},
               {"vcpu_second", o.prices.vcpu_s},
               {"memory_gb_second", o.prices.memory_gb_s},
               {"gpu_memory_gb_second", o.prices.gpu_memory_gb_s},
               {"gpu_whole_seconds", true},
               {"from", fmt_duration(d.warmup_s)}};
  return json{{"name", d.name},
              {"description", d.description},
              {"seed", d.seed},
              {"duration", fmt_duration(d.duration_s)},
              {"warmup", fmt_duration(d.warmup_s)},
              {"output", {{"requests", d.requests_output}}},
              {"workload", workload},
              {"platform",
               {{"type", "serverless"},
                {"cluster", {{"hosts", hosts}}},
                {"functions", functions},
                {"cpu_latency", d.cpu_latency},
                {"time_slice_mode", d.time_slice_mode},
                {"billing", billing},
                {"policies",
                 {{"autoscaler", {{"type", "reactive-rate"}, {"max_instances", 0}}},
                  {"keep_alive", {{"type", "forever"}}},
                  {"planner", planner}}}}}};
}

}  // namespace sim::policy::harmonybatch
