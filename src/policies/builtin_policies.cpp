// register_builtin_policies: one line per built-in policy (STYLE.md "Explicit registration").
// Each policy declares its parameters once, in its schema.

#include "flashpoint/register.hpp"
#include "harmonybatch/register.hpp"
#include "infless/register.hpp"
#include "protean/register.hpp"
#include "reference/autoscalers.hpp"
#include "reference/cluster_policies.hpp"
#include "reference/first_fit.hpp"
#include "reference/keep_alive.hpp"
#include "reference/planners.hpp"
#include "reference/request_path.hpp"
#include "reference/sourcing.hpp"
#include "sim/policy/policy_registry.hpp"

namespace sim::policy {

using config::ParamType;
using nlohmann::json;

namespace {

/// A kind whose policy has no parameters.
template <class T>
PolicyKind simple(const char* category, const char* name, const char* doc) {
  return {
      category, name, doc, policy_schema(category, name, doc),
      [](const json&, PolicyContext) -> std::unique_ptr<Policy> { return std::make_unique<T>(); }};
}

PolicyKind fifo_batcher() {
  const char* doc =
      "Arrival order (optionally strict requests first); a full batch at once, else all waiting "
      "requests when the oldest batching deadline passes.";
  auto s = policy_schema(kBatcher, "fifo", doc);
  s->add("strict_first", ParamType::kBool)
      .def(false)
      .doc("order strict-class requests before best-effort ones (stable)");
  return {kBatcher, "fifo", doc, s, [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            return std::make_unique<reference::FifoBatcher>(p.at("strict_first").get<bool>());
          }};
}

PolicyKind fixed_pool() {
  const char* doc = "Keeps a fixed number of live instances of every function.";
  auto s = policy_schema(kAutoscaler, "fixed-pool", doc);
  s->add("instances", ParamType::kInteger).def(1).at_least(0).at_most(100000).doc("per function");
  return {kAutoscaler, "fixed-pool", doc, s,
          [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            return std::make_unique<reference::FixedPoolAutoscaler>(p.at("instances").get<int>());
          }};
}

PolicyKind reactive_rate() {
  const char* doc =
      "Instances for the observed request rate at a target utilisation: n = ceil(rate / (target "
      "* max_batch / batch latency)), at least 1 while requests wait.";
  auto s = policy_schema(kAutoscaler, "reactive-rate", doc);
  s->add("target_utilisation", ParamType::kNumber)
      .def(0.7)
      .at_least(0.01)
      .at_most(1.0)
      .doc("fraction of an instance's throughput to plan for");
  s->add("window", ParamType::kInteger)
      .def(0)
      .at_least(0)
      .at_most(16)
      .doc("which of the platform's rate_windows to use");
  s->add("min_instances", ParamType::kInteger).def(0).at_least(0).doc("per function");
  s->add("max_instances", ParamType::kInteger).def(1000).at_least(0).doc("per function");
  s->add("scale_down", ParamType::kBool)
      .def(false)
      .doc("stop idle instances above the target (else keep-alive decides)");
  return {kAutoscaler, "reactive-rate", doc, s,
          [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            reference::ReactiveRateAutoscaler::Config c;
            c.target_utilisation = p.at("target_utilisation").get<double>();
            c.window = p.at("window").get<int>();
            c.min_instances = p.at("min_instances").get<int>();
            c.max_instances = p.at("max_instances").get<int>();
            c.scale_down = p.at("scale_down").get<bool>();
            return std::make_unique<reference::ReactiveRateAutoscaler>(c);
          }};
}

PolicyKind fixed_keep_alive() {
  const char* doc = "Stops an instance after a fixed idle time; keeps min_warm instances warm.";
  auto s = policy_schema(kKeepAlive, "fixed", doc);
  s->add("keep_alive", ParamType::kDuration)
      .def("600s")
      .at_least(0)
      .doc("idle time before an instance is stopped (OpenWhisk's fixed 10-minute window)");
  s->add("min_warm", ParamType::kInteger)
      .def(0)
      .at_least(0)
      .doc("live instances per function started ahead of demand (pre-warming)");
  return {kKeepAlive, "fixed", doc, s, [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            return std::make_unique<reference::FixedKeepAlive>(
                config::get_duration(p, "keep_alive"), p.at("min_warm").get<int>());
          }};
}

PolicyKind replace_revoked() {
  const char* doc = "Requests a replacement VM for every host under revocation notice.";
  auto s = policy_schema(kProcurement, "replace-revoked", doc);
  s->add("market", ParamType::kChoice)
      .def("same")
      .one_of({"same", "on-demand", "spot"})
      .doc("market of the replacement (same: the revoked host's template)");
  return {kProcurement, "replace-revoked", doc, s,
          [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            const auto m = p.at("market").get<std::string>();
            std::optional<Market> market;
            if (m != "same") market = m == "spot" ? Market::kSpot : Market::kOnDemand;
            return std::make_unique<reference::ReplaceRevoked>(market);
          }};
}

PolicyKind weighted_dispatcher() {
  const char* doc =
      "A rate split: batches go to instances in proportion to their weights (smooth weighted "
      "round robin over the idle instances); INFless's non-uniform dispatch with weight "
      "throughput.";
  auto s = policy_schema(kDispatcher, "weighted", doc);
  s->add("weight", ParamType::kChoice)
      .def("throughput")
      .one_of({"throughput", "batch", "equal"})
      .doc(
          "throughput: max_batch / solo batch latency on the instance's unit (requests per "
          "second); batch: max_batch; equal: 1");
  return {kDispatcher, "weighted", doc, s,
          [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            const auto w = p.at("weight").get<std::string>();
            using W = reference::WeightedDispatcher::Weight;
            return std::make_unique<reference::WeightedDispatcher>(
                w == "batch" ? W::kBatch : (w == "equal" ? W::kEqual : W::kThroughput));
          }};
}

PolicyKind local_first() {
  const char* doc = "The host's cached copy, else another host's, else the cloud store.";
  auto s = policy_schema(kColdStartSourcing, "local-first", doc);
  s->add("chain", ParamType::kBool)
      .def(false)
      .doc(
          "cold starts of one model from one source beginning at the same time share a "
          "chained multicast (Flashpoint thesis §6.2) instead of separate downloads");
  return {kColdStartSourcing, "local-first", doc, s,
          [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            return std::make_unique<reference::LocalFirstSourcing>(p.at("chain").get<bool>());
          }};
}

PolicyKind initial_pool() {
  const char* doc =
      "Offline plan: starts `instances` instances of every function at time zero (default "
      "configuration, placed by the placement policy).";
  auto s = policy_schema(kPlanner, "initial-pool", doc);
  s->add("instances", ParamType::kInteger).def(1).at_least(0).at_most(100000).doc("per function");
  return {kPlanner, "initial-pool", doc, s,
          [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            return std::make_unique<reference::InitialPoolPlanner>(p.at("instances").get<int>());
          }};
}

}  // namespace

void register_builtin_policies(PolicyRegistry& r) {
  r.add(fifo_batcher());
  r.add(simple<reference::PullDispatcher>(
      kDispatcher, "pull",
      "A global queue that idle instances pull from: the longest-idle "
      "instance takes the batch."));
  r.add(simple<reference::RoundRobinDispatcher>(
      kDispatcher, "round-robin", "Batches go to idle instances in turn (id order)."));
  r.add(weighted_dispatcher());
  r.add(fixed_pool());
  r.add(reactive_rate());
  r.add(simple<reference::FirstFitPlacement>(
      kPlacement, "first-fit", "The first host, GPU and slice (by index) with room."));
  r.add(simple<reference::StaticPartitioner>(kGpuPartitioner, "static",
                                             "Keeps the configured MIG geometries."));
  r.add(fixed_keep_alive());
  r.add(simple<reference::KeepForever>(kKeepAlive, "forever",
                                       "Never stops idle instances; no pre-warming."));
  r.add(simple<reference::CloudStoreSourcing>(kColdStartSourcing, "cloud-store",
                                              "Every cold start downloads from the cloud store."));
  r.add(local_first());
  r.add(simple<reference::NoProcurement>(kProcurement, "none", "Never requests or releases VMs."));
  r.add(replace_revoked());
  r.add(simple<reference::NoPlanner>(kPlanner, "none", "Plans nothing before the run."));
  r.add(initial_pool());

  protean::register_policies(r);
  flashpoint::register_policies(r);
  harmonybatch::register_policies(r);
  infless::register_policies(r);
}

}  // namespace sim::policy
