// The protean policy family (Protean, Middleware'24): one registration line per policy. Each
// policy declares its parameters once, in its schema.

#include "register.hpp"

#include "container_placement.hpp"
#include "job_distributor.hpp"
#include "protean_autoscaler.hpp"
#include "spot_procurement.hpp"
#include "strict_first_batcher.hpp"

namespace sim::policy::protean {

using config::ParamType;
using nlohmann::json;

namespace {

// The two readings of Algorithm 1 that the autoscaler, the dispatcher and the placement policy
// share, declared once (protean.md, "Protean against Naive Slicing on the same static
// geometry, attributed", session 12).
void add_slice_order(config::Schema& s) {
  s.add("slice_order", ParamType::kChoice)
      .def("memory-then-compute")
      .one_of({"memory-then-compute", "memory-then-location"})
      .doc(
          "Algorithm 1's \"ascending order of resources\" (§4.3) for slices of equal memory: "
          "memory-then-compute = fewer GPCs first (a 3g.20gb before a 4g.20gb: best-effort "
          "work first-fit onto the 3g, the larger slice left to strict requests); "
          "memory-then-location = host, GPU, slice order (the 4g of a (4g, 3g) GPU first)");
}

void add_admission_memory(config::Schema& s) {
  s.add("admission_memory", ParamType::kChoice)
      .def("platform")
      .one_of({"platform", "batch-footprint"})
      .doc(
          "what Algorithm 1's admission and best-effort first-fit charge each live container "
          "of a slice: platform = what the platform holds (an idle container its weights, a "
          "running batch its activations; BE memory is what BE requests occupy, §4.3), a new "
          "container its whole footprint (it is started for a batch, §4.2); batch-footprint "
          "= every live container, idle or not, a whole batch footprint");
}

SliceOrder slice_order_of(const json& p) {
  return p.at("slice_order").get<std::string>() == "memory-then-location"
             ? SliceOrder::kMemoryThenLocation
             : SliceOrder::kMemoryThenCompute;
}

AdmissionMemory admission_memory_of(const json& p) {
  return p.at("admission_memory").get<std::string>() == "batch-footprint"
             ? AdmissionMemory::kBatchFootprint
             : AdmissionMemory::kPlatform;
}

PolicyKind strict_first_batcher() {
  const char* doc =
      "Protean §4.1: strict requests first (stable), batches of the function's max_batch; a "
      "partial batch leaves when the oldest batching timeout passes.";
  return {kBatcher, "protean-strict-first", doc,
          policy_schema(kBatcher, "protean-strict-first", doc),
          [](const json&, PolicyContext) -> std::unique_ptr<Policy> {
            return std::make_unique<StrictFirstBatcher>();
          }};
}

PolicyKind job_distributor() {
  const char* doc =
      "Protean Algorithm 1 at dispatch: a strict batch to the idle container whose slice has "
      "the least eq. (2) slowdown among slices not fully tagged for best-effort memory; a "
      "best-effort batch first-fit onto the smallest slices.";
  auto s = policy_schema(kDispatcher, "protean-job-distribution", doc);
  add_slice_order(*s);
  return {kDispatcher, "protean-job-distribution", doc, s,
          [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            return std::make_unique<JobDistributor>(slice_order_of(p));
          }};
}

ContainerPlacement placement_of(const std::string& s) {
  if (s == "spread") return ContainerPlacement::kSpread;
  if (s == "consolidate") return ContainerPlacement::kConsolidate;
  return ContainerPlacement::kJobDistribution;
}

PolicyKind placement(const char* name, ContainerPlacement mode, const char* doc) {
  auto s = policy_schema(kPlacement, name, doc);
  const bool algorithm1 = mode == ContainerPlacement::kJobDistribution;
  if (algorithm1) {
    add_slice_order(*s);
    add_admission_memory(*s);
  }
  return {kPlacement, name, doc, s,
          [mode, algorithm1](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            if (!algorithm1) return std::make_unique<ContainerPlacementPolicy>(mode);
            return std::make_unique<ContainerPlacementPolicy>(mode, admission_memory_of(p),
                                                              slice_order_of(p));
          }};
}

PolicyKind autoscaler() {
  const char* doc =
      "Protean §4.2/§4.4: one container per batch (n_c = ceil(n_r / batch_size), n_r = rate x "
      "batch latency + queued), delayed termination after a surplus period, containers placed "
      "by Algorithm 1 (or spread by free memory for baselines), and the Algorithm 2 GPU "
      "reconfigurator (drains a GPU, then reconfigures it).";
  auto s = policy_schema(kAutoscaler, "protean", doc);
  s->add("surplus_period", ParamType::kDuration)
      .def("600s")
      .at_least(0)
      .doc("delayed termination: how long containers must be surplus before they stop (§4.2)");
  s->add("placement", ParamType::kChoice)
      .def("job-distribution")
      .one_of({"job-distribution", "spread", "consolidate"})
      .doc(
          "job-distribution: Algorithm 1; spread: the place with the most free memory; "
          "consolidate: the place with the least free memory that fits (best fit)");
  s->add("reconfigure", ParamType::kBool).def(true).doc("run the Algorithm 2 reconfigurator");
  s->add("t_low", ParamType::kNumber)
      .def(0.1)
      .at_least(0)
      .at_most(1)
      .doc(
          "T_low (thresholds fixed): least potential BE occupancy of the chosen small slice "
          "set (predicted BE memory / its memory) worth isolating BE on it (assumption: not "
          "published)");
  s->add("t_high", ParamType::kNumber)
      .def(0.9)
      .at_least(0)
      .at_most(1)
      .doc("T_high (thresholds fixed): greatest such occupancy (assumption: not published)");
  s->add("thresholds", ParamType::kChoice)
      .def("profiled")
      .one_of({"fixed", "profiled"})
      .doc(
          "calc_Lthresh / calc_Hthresh of Algorithm 2: fixed = t_low, t_high; profiled = per "
          "chosen set, strict and BE model, the BE counts between which a strict batch's eq. 2 "
          "slowdown on the chosen set is at most the one on the fallback's 3g shared with the "
          "BE requests (profiled_thresholds.hpp; t_low, t_high unused)");
  s->add("wait_limit", ParamType::kInteger)
      .def(3)
      .at_least(0)
      .doc("mismatches before a reconfiguration (Algorithm 2, §4.4: 3)");
  s->add("ewma_alpha", ParamType::kNumber)
      .def(0.5)
      .at_least(0.01)
      .at_most(1)
      .doc("weight of the newest BE count in the EWMA (assumption: not published)");
  s->add("best_effort_count", ParamType::kChoice)
      .def("in-flight")
      .one_of({"in-flight", "interval-arrivals"})
      .doc(
          "what Algorithm 2's predicted BE request count is: in-flight = queued + arriving "
          "during one 7g batch (n_r of §4.2); interval-arrivals = arrivals per control tick");
  s->add("max_reconfiguring_fraction", ParamType::kNumber)
      .def(0.3)
      .at_least(0)
      .at_most(1)
      .doc("share of the MIG GPUs that may reconfigure at once (§4.4: ~30%), at least one");
  s->add("reconfiguring_until", ParamType::kChoice)
      .def("serving")
      .one_of({"serving", "downtime"})
      .doc(
          "until when a reconfigured GPU counts against max_reconfiguring_fraction (§4.4: "
          "\"to keep overall GPU downtime low\"): serving = until one of its containers is "
          "ready again (its containers restart after the reconfiguration), or none was placed "
          "on it after the downtime; downtime = until the MIG downtime is over");
  s->add("after_reconfiguration", ParamType::kChoice)
      .def("needed")
      .one_of({"needed", "restore"})
      .doc(
          "what becomes of a reconfigured GPU's containers, all stopped by its drain (§2.1: "
          "reconfiguring needs every process on the GPU gone; the paper does not say how they "
          "come back): needed = only those the load needs (n_c, §4.2) are started again, "
          "wherever Algorithm 1 places them; restore = once the GPU serves again, every "
          "container it held when its drain began is cold-started again on its new slices, "
          "largest batch footprint first, each best fit (the slice of that GPU with the least "
          "free memory that holds it by the platform's memory rule: its resident memory plus "
          "room for one batch), those that fit nowhere left out; then the normal autoscaler "
          "continues");
  s->list_of("fallback_geometry", ParamType::kString)
      .def(json::array({"4g.20gb", "3g.20gb"}))
      .doc("geometry when no small slice set fits (Algorithm 2 line 20)");
  s->add("container_count", ParamType::kChoice)
      .def("in-flight")
      .one_of({"in-flight", "interval-batches", "interval-arrivals"})
      .doc(
          "n_r of §4.2: in-flight = requests arriving during one 7g batch + queued; "
          "interval-batches = requests arriving during one monitor interval + queued; "
          "interval-arrivals = requests arriving during one monitor interval, queue not "
          "counted (arrivals: the rate over the first of platform.rate_windows x the interval)");
  s->add("container_scope", ParamType::kChoice)
      .def("node")
      .one_of({"node", "node-even", "cluster"})
      .doc(
          "where the batches n_c counts are formed (§4: requests are load-balanced across the "
          "worker nodes, then batched): node = per worker node, an even share s of the "
          "requests to come (and of those no node holds) plus the node's own queue q_h: "
          "ceil((s + q_h) / batch) there, of which those beyond ceil(s / batch) are placed "
          "on that node (only its containers take its queue) and a node's idle containers "
          "beyond them are surplus; node-even = all of n_r, queues included, shared evenly "
          "among the available GPU hosts, ceil(n_r,node / batch) per node, placed anywhere; "
          "cluster = one ceil(n_r / batch) (one cluster-wide queue, dispatch_scope cluster)");
  s->add("monitor_interval", ParamType::kDuration)
      .def("1s")
      .at_least(0)
      .doc(
          "Monitor_Interval W of Algorithm 2 (the reconfigurator runs once per W; its wait "
          "counter counts W-long mismatches) and the window of container_count "
          "interval-batches and interval-arrivals (assumption: not published)");
  s->add("best_effort_memory", ParamType::kChoice)
      .def("requests")
      .one_of({"requests", "whole-batches"})
      .doc(
          "Algorithm 2 line 9, mem(BE_model, pred_BE_num): requests = pred_BE_num / batch x the "
          "batch footprint (T_low reachable below one batch); whole-batches = rounded up to "
          "containers");
  add_admission_memory(*s);
  add_slice_order(*s);
  s->add("strict_sm_cap", ParamType::kNumber)
      .def(1.0)
      .at_least(0.01)
      .at_most(1)
      .doc("SM cap (gpu_share) of strict containers under MPS; GPUlet: ~0.6 (Protean §6.2)");
  return {kAutoscaler, "protean", doc, s,
          [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            ProteanAutoscalerConfig c;
            c.surplus_period = config::get_duration(p, "surplus_period");
            c.placement = placement_of(p.at("placement").get<std::string>());
            c.reconfigure = p.at("reconfigure").get<bool>();
            c.reconfiguration.t_low = p.at("t_low").get<double>();
            c.reconfiguration.t_high = p.at("t_high").get<double>();
            c.reconfiguration.thresholds = p.at("thresholds").get<std::string>() == "profiled"
                                               ? ThresholdMode::kProfiled
                                               : ThresholdMode::kFixed;
            c.reconfiguration.wait_limit = p.at("wait_limit").get<int>();
            c.reconfiguration.fallback = p.at("fallback_geometry").get<std::vector<std::string>>();
            c.ewma_alpha = p.at("ewma_alpha").get<double>();
            c.best_effort_count = p.at("best_effort_count").get<std::string>() == "in-flight"
                                      ? BestEffortCount::kInFlight
                                      : BestEffortCount::kIntervalArrivals;
            c.max_reconfiguring_fraction = p.at("max_reconfiguring_fraction").get<double>();
            c.reconfiguring_until = p.at("reconfiguring_until").get<std::string>() == "serving"
                                        ? ReconfiguringUntil::kServing
                                        : ReconfiguringUntil::kDowntime;
            c.after_reconfiguration = p.at("after_reconfiguration").get<std::string>() == "restore"
                                          ? AfterReconfiguration::kRestore
                                          : AfterReconfiguration::kNeeded;
            c.strict_sm_cap = p.at("strict_sm_cap").get<double>();
            const auto count = p.at("container_count").get<std::string>();
            c.container_count = count == "in-flight"          ? ContainerCount::kInFlight
                                : count == "interval-batches" ? ContainerCount::kIntervalBatches
                                                              : ContainerCount::kIntervalArrivals;
            const auto scope = p.at("container_scope").get<std::string>();
            c.container_scope = scope == "node"        ? ContainerScope::kNode
                                : scope == "node-even" ? ContainerScope::kNodeEven
                                                       : ContainerScope::kCluster;
            c.monitor_interval_s = config::get_duration(p, "monitor_interval").to_seconds();
            c.best_effort_memory = p.at("best_effort_memory").get<std::string>() == "requests"
                                       ? BestEffortMemory::kRequests
                                       : BestEffortMemory::kWholeBatches;
            c.admission_memory = admission_memory_of(p);
            c.slice_order = slice_order_of(p);
            return std::make_unique<ProteanAutoscaler>(c);
          }};
}

PolicyKind spot_procurement() {
  const char* doc =
      "Protean §4.5: replace a spot VM under revocation notice by a spot VM, or by an "
      "on-demand one when the spot request fails (probability P_rev); spot_only never falls "
      "back and retries.";
  auto s = policy_schema(kProcurement, "protean-spot", doc);
  s->add("spot_template", ParamType::kInteger).def(0).at_least(0).doc("host template of spot VMs");
  s->add("on_demand_template", ParamType::kInteger)
      .def(1)
      .at_least(0)
      .doc("host template of on-demand VMs");
  s->add("spot_unavailable", ParamType::kNumber)
      .def(0.0)
      .at_least(0)
      .at_most(1)
      .doc("P_rev: probability that a spot request fails (Protean §5: 0, 0.354, 0.708)");
  s->add("spot_only", ParamType::kBool).def(false).doc("Spot Only: never request on-demand VMs");
  s->add("retry_interval", ParamType::kDuration)
      .def("60s")
      .at_least(0)
      .doc("Spot Only: time between spot retries (assumption)");
  s->add("retry", ParamType::kBool)
      .def(true)
      .doc(
          "Spot Only: retry a failed spot request every retry_interval until one succeeds; "
          "false: a worker whose replacement request failed is not replaced (§4.5 describes "
          "the retry only as the spot request made at the notice; §6.1.3 says no more of "
          "Spot Only than that it employs only spot VMs)");
  s->add("availability_interval", ParamType::kDuration)
      .def("0s")
      .at_least(0)
      .doc(
          "0: each spot request fails independently with probability spot_unavailable; "
          "longer: spot capacity is drawn once per interval of this length from time zero "
          "(missing with probability spot_unavailable) and every request of an interval "
          "where it is missing fails (a reading of §5's 'fixed time intervals' and 'spot VM "
          "availability'; the paper states neither)");
  return {kProcurement, "protean-spot", doc, s,
          [](const json& p, PolicyContext ctx) -> std::unique_ptr<Policy> {
            SpotProcurementConfig c;
            c.spot_template = p.at("spot_template").get<int>();
            c.on_demand_template = p.at("on_demand_template").get<int>();
            c.spot_unavailable = p.at("spot_unavailable").get<double>();
            c.spot_only = p.at("spot_only").get<bool>();
            c.retry_interval = config::get_duration(p, "retry_interval");
            c.retry = p.at("retry").get<bool>();
            c.availability_interval = config::get_duration(p, "availability_interval");
            return std::make_unique<SpotProcurement>(c, std::move(ctx.rng));
          }};
}

}  // namespace

void register_policies(PolicyRegistry& registry) {
  registry.add(strict_first_batcher());
  registry.add(job_distributor());
  registry.add(autoscaler());
  registry.add(placement("protean-job-distribution", ContainerPlacement::kJobDistribution,
                         "Protean Algorithm 1 for a new container: strict, the slice with the "
                         "least eq. (2) slowdown; best-effort, first-fit on the smallest slices."));
  registry.add(placement("spread", ContainerPlacement::kSpread,
                         "The GPU or slice with the most free memory (load balancing by slice "
                         "memory, Protean §5 Naive Slicing)."));
  registry.add(placement("consolidate", ContainerPlacement::kConsolidate,
                         "The GPU or slice with the least free memory that still fits (best "
                         "fit): containers consolidated onto as few GPUs as possible "
                         "(INFless/Llama, Protean §1)."));
  registry.add(spot_procurement());
}

}  // namespace sim::policy::protean
