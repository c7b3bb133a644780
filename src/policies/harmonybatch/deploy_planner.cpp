// The HarmonyBatch planner policy: compute the plan at time zero and start its functions.

#include "deploy_planner.hpp"

#include <cmath>
#include <stdexcept>

#include "baselines.hpp"
#include "plan_io.hpp"
#include "sim/config/schema.hpp"

namespace sim::policy::harmonybatch {

using config::ParamType;
using nlohmann::json;

DeployPlanner::DeployPlanner(Config config, const gpu::ModelCatalog* catalog)
    : config_(std::move(config)), catalog_(catalog) {}

Decisions DeployPlanner::plan(const PlatformView& view) {
  if (catalog_ == nullptr) {
    throw std::invalid_argument("planner harmonybatch: no model catalog (run it on a platform)");
  }
  const auto model = PlannerModel::from_profile(catalog_->model(config_.model));
  const Plan p = plan_with(config_.algorithm, model, config_.apps, config_.options);
  Decisions d;
  FreeResources free;
  for (const auto& h : view.hosts) {
    free.cores.push_back(h.available ? h.cores_free : 0.0);
    std::vector<double> gpus;
    for (const auto& gv : h.gpus)
      gpus.push_back(h.available && !gv.mig && gv.instances == 0 ? gv.memory_free_gb : 0.0);
    free.gpu_gb.push_back(std::move(gpus));
  }
  for (std::size_t k = 0; k < p.groups.size(); ++k) {
    const Group& g = p.groups[k];
    const FunctionConfig& f = g.function;
    InstanceConfig want;
    want.max_batch = f.batch;
    if (f.type == FunctionType::kCpu) {
      want.cpu_cores = f.cores;
    } else {
      want.time_slice_gb = f.gpu_gb;
    }
    // Every member function of the group must exist with the plan's configuration; the
    // instances go to the first (they serve the whole queue group).
    const FunctionView* first = nullptr;
    for (const auto& app : g.apps) {
      const std::string name = function_name(k, app.name);
      const FunctionView* fv = nullptr;
      for (const auto& candidate : view.functions)
        if (candidate.name == name) fv = &candidate;
      if (fv == nullptr) {
        throw std::invalid_argument("planner harmonybatch: the " + config_.algorithm +
                                    " plan needs a function \"" + name +
                                    "\" (generate the scenario with dcsim plan --scenario)");
      }
      const bool same = fv->gpu == (f.type == FunctionType::kGpu) &&
                        fv->config.max_batch == want.max_batch &&
                        std::abs(fv->config.cpu_cores - want.cpu_cores) < 1e-6 &&
                        std::abs(fv->config.time_slice_gb - want.time_slice_gb) < 1e-6;
      if (!same) {
        throw std::invalid_argument(
            "planner harmonybatch: function \"" + name + "\" is configured differently from the " +
            config_.algorithm + " plan (" + to_string(f.type) + ", batch " +
            std::to_string(f.batch) + ", " +
            (f.type == FunctionType::kCpu ? std::to_string(f.cores) + " vCPU"
                                          : std::to_string(f.gpu_gb) + " GB") +
            "); regenerate the scenario with dcsim plan --scenario");
      }
      if (first == nullptr) first = fv;
    }
    // Place the instances here (first fit over hosts' free cores and GPUs' free memory = free
    // time-slice units, since M_max is the A10's memory): the generic first-fit placement
    // keeps one instance per exclusive GPU, while cGPU functions share a GPU by time slices.
    const int n = config_.instances > 0 ? config_.instances : instances_for(g);
    for (int k2 = 0; k2 < n; ++k2) {
      StartInstance s;
      s.function = first->id;
      s.config = want;
      s.location = place(want, f.type == FunctionType::kGpu, free);
      d.start.push_back(s);
    }
  }
  return d;
}

std::optional<Location> DeployPlanner::place(const InstanceConfig& c, bool gpu,
                                             FreeResources& free) {
  for (std::size_t h = 0; h < free.cores.size(); ++h) {
    if (!gpu) {
      if (free.cores[h] + 1e-9 >= c.cpu_cores) {
        free.cores[h] -= c.cpu_cores;
        return Location{static_cast<int>(h), -1, -1};
      }
      continue;
    }
    for (std::size_t k = 0; k < free.gpu_gb[h].size(); ++k) {
      if (free.gpu_gb[h][k] + 1e-9 >= c.time_slice_gb) {
        free.gpu_gb[h][k] -= c.time_slice_gb;
        return Location{static_cast<int>(h), static_cast<int>(k), -1};
      }
    }
  }
  return std::nullopt;  // the placement policy tries
}

PolicyKind deploy_planner_kind() {
  const char* doc =
      "HarmonyBatch (Chen et al.): at time zero, plans the applications with HarmonyBatch's "
      "two-stage merging, BATCH or MBS+ and starts each group's CPU or cGPU function "
      "instances; the scenario declares one function per application and group "
      "(\"g<k>.<app>\", queue group \"g<k>\", the plan's timeouts), as dcsim plan --scenario "
      "writes it.";
  auto app = std::make_shared<config::Schema>("planner/harmonybatch/application",
                                              "One application of the plan.");
  app->add("name", ParamType::kString).doc("application name, as the workload gives it");
  app->add("slo", ParamType::kDuration).at_least(1e-6).doc("latency SLO");
  app->add("rate", ParamType::kRate).doc("mean arrival rate the plan is made for");
  auto s = std::make_shared<config::Schema>("planner/harmonybatch", doc);
  s->add("algorithm", ParamType::kChoice)
      .def("harmonybatch")
      .one_of({"harmonybatch", "batch", "mbs+"})
      .doc("HarmonyBatch's Algorithm 1 or one of the paper's baselines");
  s->add("model", ParamType::kString).doc("catalog model, e.g. \"harmonybatch/vgg19\"");
  s->list_of("applications", app).doc("the applications, with SLO and planned rate");
  s->add("prices", ParamType::kChoice)
      .def("paper")
      .one_of({"paper", "code"})
      .doc("price table of eq. 6: the paper's USD (K1, K2, K3) or the public code's");
  s->add("fix_merge_ratio", ParamType::kBool)
      .def(true)
      .doc(
          "weigh a merged group by the sum of its rate shares (the paper); false: 1 + sum (the "
          "code)");
  s->add("check_all_slos_on_gpu", ParamType::kBool)
      .def(true)
      .doc("a GPU function must meet every SLO of its group; false: only the largest (the code)");
  s->add("forced_stage1_merge", ParamType::kBool)
      .def(false)
      .doc("stage 1 merges without the cost check, as the code does; false: Merge (the paper)");
  s->add("knee_class_stage", ParamType::kBool)
      .def(false)
      .doc("run the code's knee-class merge pass before stage 2 (not in the paper)");
  s->add("cpu_cores_on_grid", ParamType::kBool)
      .def(true)
      .doc("round CPU cores from the SLO bound up to 0.05 (Alibaba); false: continuous (code)");
  s->add("skip_loose_slo_batch", ParamType::kBool)
      .def(false)
      .doc("skip a CPU batch whose SLO bound gives c <= 0, as the code does (quirk Q3)");
  s->add("mbs_search", ParamType::kChoice)
      .def("bayesian")
      .one_of({"bayesian", "exhaustive"})
      .doc("MBS+'s per-group search: Bayesian optimisation (15 points per type) or the grid");
  s->add("mbs_seed", ParamType::kInteger)
      .def(1)
      .at_least(0)
      .doc("seed of MBS+'s Bayesian search (the original: random_state 1)");
  s->add("instances", ParamType::kInteger)
      .def(0)
      .at_least(0)
      .at_most(10000)
      .doc("instances per group; 0: enough for the group's load (rho + 4 sqrt(rho) + 1)");
  return {kPlanner, "harmonybatch", doc, s,
          [](const json& p, PolicyContext ctx) -> std::unique_ptr<Policy> {
            DeployPlanner::Config c;
            c.algorithm = p.at("algorithm").get<std::string>();
            c.model = p.at("model").get<std::string>();
            c.apps = parse_applications(p.at("applications"), "planner harmonybatch");
            c.options.prices = PriceTable::named(p.at("prices").get<std::string>());
            c.options.fix_merge_ratio = p.at("fix_merge_ratio").get<bool>();
            c.options.check_all_slos_on_gpu = p.at("check_all_slos_on_gpu").get<bool>();
            c.options.forced_stage1_merge = p.at("forced_stage1_merge").get<bool>();
            c.options.knee_class_stage = p.at("knee_class_stage").get<bool>();
            c.options.cpu_cores_on_grid = p.at("cpu_cores_on_grid").get<bool>();
            c.options.skip_loose_slo_batch = p.at("skip_loose_slo_batch").get<bool>();
            c.options.mbs_bayesian = p.at("mbs_search").get<std::string>() == "bayesian";
            c.options.mbs_seed = p.at("mbs_seed").get<std::uint64_t>();
            c.instances = p.at("instances").get<int>();
            return std::make_unique<DeployPlanner>(std::move(c), ctx.catalog);
          }};
}

}  // namespace sim::policy::harmonybatch
