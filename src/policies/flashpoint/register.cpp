// The flashpoint policy family: one registration line per policy.

#include "register.hpp"

#include <string>

#include "autoscalers.hpp"
#include "locality.hpp"
#include "sim/config/schema.hpp"
#include "warm_pool.hpp"

namespace sim::policy::flashpoint {

using config::ParamType;
using nlohmann::json;

namespace {

/// Kubernetes HPA's lower limit: spec.minReplicas "defaults to 1 pod" and may be 0 only with the
/// alpha feature gate HPAScaleToZero and an Object or External metric (HorizontalPodAutoscalerSpec,
/// autoscaling/v2 API reference).
constexpr const char* kHpaMinimum =
    "1, Kubernetes HPA's spec.minReplicas default (0 needs the alpha HPAScaleToZero feature gate "
    "and an Object or External metric)";

/// Parameters every Flashpoint autoscaler shares. `period` / `period_source`: the evaluation
/// period of the deployed system the autoscaler stands for, and where that value comes from.
/// `hpa`: the autoscaler runs on Kubernetes HPA (TSK, OWK), so its scale-down stabilisation
/// and scale-up policies default to HPA's: --horizontal-pod-autoscaler-downscale-stabilization
/// 5 min, and behavior.scaleUp's default policies (100% or 4 pods per 15 s, the larger)
/// (kubernetes.io, "Horizontal Pod Autoscaling", "Default Behavior"). `min_replicas` /
/// `min_source`: the deployed system's smallest replica count (the thesis gives none, §3.1, §8.3).
void add_limits(config::Schema& s, const char* period, const std::string& period_source, bool hpa,
                int min_replicas, const std::string& min_source) {
  s.add("evaluation_period", ParamType::kDuration)
      .def(period)
      .at_least(1e-3)
      .doc(
          "how often the autoscaler decides (metrics are still sampled at every platform "
          "tick; must be > 0; below the platform's control interval it decides at every "
          "tick). Default: " +
          period_source);
  s.add("min_replicas", ParamType::kInteger)
      .def(min_replicas)
      .at_least(0)
      .doc("per function; 0 lets the function scale to zero. Default: " + min_source);
  s.add("max_replicas", ParamType::kInteger).def(1600).at_least(0).doc("per function");
  s.add("scale_down_window", ParamType::kDuration)
      .def(hpa ? "300s" : "60s")
      .at_least(0)
      .doc(std::string(
               "stabilisation: the count applied is the largest desired within this window, "
               "now included (Kubernetes HPA without `behavior`), so replicas are removed only "
               "down to it. Default: ") +
           (hpa ? "300s, Kubernetes HPA's default (--horizontal-pod-autoscaler-downscale-"
                  "stabilization)"
                : "60s (assumption: the thesis gives no value)"));
  s.add("decision_time", ParamType::kDuration)
      .def("0s")
      .at_least(0)
      .doc("compute time of each decision, charged with the platform's charge_decision_time");
  s.add("scale_up_period", ParamType::kDuration)
      .def(hpa ? "15s" : "0s")
      .at_least(0)
      .doc(std::string(
               "Kubernetes HPA scale-up policies: within any such period the replicas grow to "
               "at most max(base x (1 + scale_up_percent/100), base + scale_up_pods), base "
               "being the count at the period's start; 0s: no limit. Default: ") +
           (hpa ? "15s, HPA's default behavior.scaleUp (100% or 4 pods per 15 s)"
                : "0s (the system is not on HPA; the thesis gives no limit)"));
  s.add("scale_up_percent", ParamType::kNumber)
      .def(100.0)
      .at_least(0)
      .doc("HPA Percent scale-up policy: growth per scale_up_period, in % of the base count");
  s.add("scale_up_pods", ParamType::kInteger)
      .def(4)
      .at_least(0)
      .doc("HPA Pods scale-up policy: replicas added per scale_up_period");
  s.add("partitioning", ParamType::kBool)
      .def(false)
      .doc(
          "model partitioning (MP, thesis §4.2): scale-ups use the precalculated plan for the "
          "expected requests of eq. 4.14 (models with a layer profile)");
  s.add("max_partitions", ParamType::kInteger)
      .def(0)
      .at_least(0)
      .doc("largest number of parts of a replica; 0: the model's layer count (§4.2.2)");
  s.add("max_x", ParamType::kInteger)
      .def(3000)
      .at_least(1)
      .doc("requests x up to which plans are precalculated (§4.2.2: X = 3000)");
  s.add("model_completion", ParamType::kBool)
      .def(true)
      .doc("partitioned replicas load the rest of the model and become full ones (§4.2.5)");
  s.add("pipelining", ParamType::kBool)
      .def(true)
      .doc(
          "partitioned replicas pipeline requests (§4.2.1, eq. 4.3: the head admits one every "
          "max(E, N)); false: a replica holds one batch at a time, as a worker that is "
          "available only when it processes no request (the §8.1.2 testbed's scheduler, if a "
          "partitioned replica is one worker: the thesis does not say)");
  s.add("partition_cap", ParamType::kChoice)
      .def("replicas-added")
      .one_of({"replicas-added", "free-gpus"})
      .doc(
          "what bounds a scale-up's plan: replicas-added (§4.2.6: at most the replicas added, "
          "so a scale-up by one never partitions) or free-gpus (§8.1.2 testbed: the plan given "
          "the machines available; each of the n replicas added gets at most floor(idle GPUs / "
          "n) parts, and a partitioned replica counts as one replica until completed)");
}

PartitioningOptions partitioning(const json& p) {
  PartitioningOptions o;
  o.enabled = p.at("partitioning").get<bool>();
  o.max_partitions = p.at("max_partitions").get<int>();
  o.max_x = p.at("max_x").get<long>();
  o.complete = p.at("model_completion").get<bool>();
  o.pipelined = p.at("pipelining").get<bool>();
  o.cap = p.at("partition_cap").get<std::string>() == "free-gpus" ? PartitionCap::kFreeGpus
                                                                  : PartitionCap::kReplicasAdded;
  return o;
}

ScalingLimits limits(const json& p) {
  ScalingLimits l;
  l.min_replicas = p.at("min_replicas").get<int>();
  l.max_replicas = p.at("max_replicas").get<int>();
  l.scale_down_window = config::get_duration(p, "scale_down_window");
  l.evaluation_period = config::get_duration(p, "evaluation_period");
  l.decision_time = config::get_duration(p, "decision_time");
  l.scale_up_period = config::get_duration(p, "scale_up_period");
  l.scale_up_percent = p.at("scale_up_percent").get<double>();
  l.scale_up_pods = p.at("scale_up_pods").get<int>();
  return l;
}

PolicyKind tsk() {
  const char* doc =
      "TSK (TorchServe on Kubernetes, Flashpoint thesis §3.1): HPA on queue latency (the mean "
      "queue wait of the requests dequeued within `window`), desired = ceil(ready replicas * "
      "latency / target) as HPA computes an External metric with a Value target (TorchServe's "
      "Kubernetes autoscaler), cold-starting replicas not multiplied, unchanged within 10% of "
      "the target.";
  auto s = policy_schema(kAutoscaler, "tsk", doc);
  s->add("target_queue_latency_s", ParamType::kNumber)
      .def(7.0)
      .at_least(1e-3)
      .doc("queue latency target in seconds (thesis default 7 s); the resource threshold");
  s->add("window", ParamType::kDuration)
      .def("15s")
      .at_least(1e-3)
      .doc(
          "TorchServe's QueueTime is per dequeued request: the metric is the mean over the "
          "requests dequeued within this window (assumption: one HPA sync period, so each "
          "evaluation sees the requests dequeued since the previous one)");
  add_limits(*s, "15s",
             "15s, Kubernetes HPA's --horizontal-pod-autoscaler-sync-period default (TSK runs "
             "on Kubernetes HPA)",
             true, 1, kHpaMinimum + std::string(", as TorchServe's Kubernetes hpa.yaml sets it"));
  return {kAutoscaler, "tsk", doc, s, [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            return std::make_unique<QueueLatencyAutoscaler>(
                limits(p), p.at("target_queue_latency_s").get<double>(),
                config::get_duration(p, "window"), partitioning(p));
          }};
}

PolicyKind atl() {
  const char* doc =
      "ATL (Atoll, Flashpoint thesis §3.1, §8.1.2): desired = ceil(p99 of the per-tick arrival "
      "rate over a window * average execution time / target_utilisation).";
  auto s = policy_schema(kAutoscaler, "atl", doc);
  s->add("target_utilisation", ParamType::kNumber)
      .def(1.0)
      .at_least(0.01)
      .at_most(10.0)
      .doc("divides the concurrency the percentile rate needs; the resource threshold");
  s->add("window", ParamType::kDuration).def("60s").at_least(1e-3).doc("rate history kept");
  s->add("percentile", ParamType::kNumber).def(99.0).at_least(1.0).at_most(100.0).doc("of rates");
  add_limits(*s, "1s",
             "1s, every platform tick (the thesis gives no period for Atoll's autoscaler, "
             "§3.1, §8.1.2; its rate is the p99 of per-second rates over `window`)",
             false, 0,
             "0 (assumption: Atoll is a serverless platform whose idle sandboxes are reclaimed; "
             "the thesis gives no minimum, §3.1, §8.1.2)");
  return {kAutoscaler, "atl", doc, s, [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            return std::make_unique<ArrivalPercentileAutoscaler>(
                limits(p), p.at("target_utilisation").get<double>(),
                config::get_duration(p, "window"), p.at("percentile").get<double>(),
                partitioning(p));
          }};
}

PolicyKind owk() {
  const char* doc =
      "OWK (OpenWhisk on Kubernetes, Flashpoint thesis §3.1): HPA on GPU utilisation, desired = "
      "ceil(sum of ready replicas' busy fractions / target); cold-starting replicas count 0%.";
  auto s = policy_schema(kAutoscaler, "owk", doc);
  s->add("target_utilisation", ParamType::kNumber)
      .def(0.6)
      .at_least(0.01)
      .at_most(1.0)
      .doc("GPU utilisation target (thesis default 60%); the resource threshold");
  s->add("window", ParamType::kDuration)
      .def("15s")
      .at_least(1e-3)
      .doc(
          "busy fractions sampled at every tick are averaged over this window (metrics-server's "
          "--metric-resolution default 15s)");
  add_limits(*s, "15s",
             "15s, Kubernetes HPA's --horizontal-pod-autoscaler-sync-period default (OWK scales "
             "with the Kubernetes HPA, thesis §3.1)",
             true, 1,
             kHpaMinimum + std::string(" (OWK scales with the HPA, thesis §3.1; a Resource "
                                       "metric such as utilisation never allows 0)"));
  return {kAutoscaler, "owk", doc, s, [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            return std::make_unique<UtilisationAutoscaler>(
                limits(p), p.at("target_utilisation").get<double>(),
                config::get_duration(p, "window"), partitioning(p));
          }};
}

PolicyKind sm() {
  const char* doc =
      "SM* (SageMaker target tracking, Flashpoint thesis §3.1): desired = ceil(invocations per "
      "minute / target invocations per instance).";
  auto s = policy_schema(kAutoscaler, "sm", doc);
  s->add("target_invocations", ParamType::kNumber)
      .def(0.0)
      .at_least(0.0)
      .doc(
          "invocations per instance per minute; 0: 0.5 * 60 / execution time (AWS's safety "
          "factor 0.5); the resource threshold");
  s->add("window", ParamType::kInteger)
      .def(1)
      .at_least(0)
      .at_most(16)
      .doc("which of the platform's rate_windows gives the invocation rate (1: 60 s by default)");
  add_limits(*s, "60s",
             "60s, SageMaker target tracking acts on CloudWatch's 1-minute InvocationsPerInstance "
             "metric (its alarms' period; the consecutive-datapoint rule is not modelled)",
             false, 1,
             "1, SageMaker real-time endpoint variants: register-scalable-target's MinCapacity "
             "\"must be set to at least 1\" (docs.aws.amazon.com, SageMaker, \"Register a "
             "model\"); 0 only for asynchronous endpoints and inference components");
  return {kAutoscaler, "sm", doc, s, [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            return std::make_unique<InvocationsAutoscaler>(
                limits(p), p.at("target_invocations").get<double>(), p.at("window").get<int>(),
                partitioning(p));
          }};
}

PolicyKind locality_greedy() {
  const char* doc =
      "Flashpoint Listing 5.1: GPUs on hosts that hold the model first, then one GPU per host "
      "new to the model, then any GPU with room.";
  auto s = policy_schema(kPlacement, "locality-greedy", doc);
  return {kPlacement, "locality-greedy", doc, s,
          [](const json&, PolicyContext) -> std::unique_ptr<Policy> {
            return std::make_unique<LocalityPlacement>(true);
          }};
}

PolicyKind cache_affinity() {
  const char* doc =
      "Atoll / GPU-enabled FaaS (Flashpoint §8.2.2): GPUs on hosts that hold the model first, "
      "then the first GPU with room.";
  auto s = policy_schema(kPlacement, "cache-affinity", doc);
  return {kPlacement, "cache-affinity", doc, s,
          [](const json&, PolicyContext) -> std::unique_ptr<Policy> {
            return std::make_unique<LocalityPlacement>(false);
          }};
}

PolicyKind hierarchical() {
  const char* doc =
      "Flashpoint hierarchical sourcing (§5.2.2): local host memory, then a remote host's "
      "memory (senders mapped evenly to receivers), then the cloud store; optional chained "
      "multicast (§6.2) and download sharing (§5.2.4).";
  auto s = policy_schema(kColdStartSourcing, "hierarchical", doc);
  s->add("local", ParamType::kChoice)
      .def("loaded")
      .one_of({"off", "bytes", "loaded"})
      .doc(
          "the host's own copy: off (never used: Baseline), bytes (downloads skipped, the model "
          "is loaded again: Atoll), loaded (only the copy to the GPU remains: GPU-enabled FaaS, "
          "Flashpoint)");
  s->add("remote", ParamType::kBool).def(true).doc("source from another host's memory (LC)");
  s->add("remote_senders", ParamType::kChoice)
      .def("cached")
      .one_of({"cached", "live"})
      .doc(
          "with remote, which hosts may send: cached (every host keeping the model in memory, "
          "pooled copies of stopped replicas included: Listing 7.1's \"senders that have the "
          "target DL model\" under lazy eviction, §5.2.1, §8.2.2), live (only hosts running a "
          "replica of it: §6.1.2's count of running replicas as sources; a sensitivity)");
  s->add("remote_loaded", ParamType::kBool)
      .def(false)
      .doc(
          "a remote host sends the model loaded, so the receiver skips the load stage (the "
          "reading under which Fig. 8.5's 232.2x fits); false: transfer, load, copy, as §5.2.3 "
          "describes Fig. 5.3b");
  s->add("chain", ParamType::kBool)
      .def(false)
      .doc("chained multicast from the store or a sender host (MC)");
  s->add("share", ParamType::kBool)
      .def(true)
      .doc("join a download of the same model to the same host in flight");
  return {kColdStartSourcing, "hierarchical", doc, s,
          [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            HierarchicalSourcing::Config c;
            const auto local = p.at("local").get<std::string>();
            c.local = local == "off"     ? HierarchicalSourcing::Local::kOff
                      : local == "bytes" ? HierarchicalSourcing::Local::kBytes
                                         : HierarchicalSourcing::Local::kLoaded;
            c.remote = p.at("remote").get<bool>();
            c.senders = p.at("remote_senders").get<std::string>() == "live"
                            ? HierarchicalSourcing::Senders::kLive
                            : HierarchicalSourcing::Senders::kCached;
            c.chain = p.at("chain").get<bool>();
            c.share = p.at("share").get<bool>();
            c.remote_loaded = p.at("remote_loaded").get<bool>();
            return std::make_unique<HierarchicalSourcing>(c);
          }};
}

PolicyKind warm_pool() {
  const char* doc =
      "Starts `instances` warm replicas of every GPU function at time zero (no cold start), so "
      "that runs begin in a steady state: placed by the placement policy while room permits (a "
      "function's starts end at its first that finds none), ready at once and not counted as "
      "cold starts. Any family may select it (Protean Table 5's start-state sensitivity, "
      "docs/reproduction/protean.md).";
  auto s = policy_schema(kPlanner, "warm-pool", doc);
  s->add("instances", ParamType::kInteger).def(1).at_least(0).at_most(100000).doc("per function");
  return {kPlanner, "warm-pool", doc, s,
          [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            return std::make_unique<WarmPoolPlanner>(p.at("instances").get<int>());
          }};
}

}  // namespace

void register_policies(PolicyRegistry& registry) {
  registry.add(tsk());
  registry.add(atl());
  registry.add(owk());
  registry.add(sm());
  registry.add(locality_greedy());
  registry.add(cache_affinity());
  registry.add(hierarchical());
  registry.add(warm_pool());
}

}  // namespace sim::policy::flashpoint
