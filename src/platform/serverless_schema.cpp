// The "serverless" platform kind's parameter schema, declared once: validation, defaults and
// the scenario reference (dcsim docs). serverless_kind.cpp reads a section it resolved.

#include "serverless_schema.hpp"

#include <string>

#include "sim/config/units.hpp"
#include "sim/network/topology_config.hpp"
#include "sim/policy/policy.hpp"

namespace sim::platform {

using config::ParamType;
using nlohmann::json;

namespace {

// A rate is arrivals per second of its window, so a window of zero length has no rate (it
// would divide by zero); the element type already checked each entry's unit.
std::string every_window_positive(const json& windows) {
  for (std::size_t k = 0; k < windows.size(); ++k) {
    if (windows[k].is_string() &&
        config::parse_duration(windows[k].get<std::string>()).to_seconds() <= 0.0) {
      return "entry " + std::to_string(k) + " is " + windows[k].dump() +
             ": expected a window longer than zero";
    }
  }
  return "";
}

std::shared_ptr<const config::Schema> gpu_schema() {
  auto s =
      std::make_shared<config::Schema>("platform/serverless/gpu", "GPUs of one kind on a host.");
  s->add("type", ParamType::kString).doc("GPU type of the model catalog (data/models/gpus.json)");
  s->add("count", ParamType::kInteger).def(1).at_least(0).at_most(64).doc("GPUs of this kind");
  s->add("sharing", ParamType::kChoice)
      .def("exclusive")
      .one_of({"exclusive", "mps", "time-slice"})
      .doc(
          "exclusive: one instance per GPU (or MIG slice), batches run one at a time; mps: "
          "instances co-locate while memory fits and share SMs and memory bandwidth "
          "(docs/gpu-models.md); time-slice: instances co-locate while memory fits and their "
          "batches time-share the GPU (or slice), each at 1/n of its speed");
  s->list_of("mig", ParamType::kString)
      .def(json::array())
      .doc("MIG geometry as profile names, e.g. [\"4g.20gb\", \"3g.20gb\"]; empty: no MIG");
  return s;
}

std::shared_ptr<const config::Schema> host_schema() {
  auto s = std::make_shared<config::Schema>(
      "platform/serverless/host",
      "A host template: `count` identical hosts (VMs or owned machines). Hosts are numbered in "
      "order and host i sits on topology node \"host<i>\".");
  s->add("count", ParamType::kInteger).def(1).at_least(0).at_most(100000).doc("hosts");
  s->add("cores", ParamType::kNumber).def(32).at_least(0).doc("CPU cores (vCPUs)");
  s->add("memory", ParamType::kBytes).def("256GB").at_least(0).doc("host memory");
  s->list_of("gpus", gpu_schema()).def(json::array()).doc("GPU devices");
  s->add("market", ParamType::kChoice)
      .def("owned")
      .one_of({"owned", "on-demand", "spot"})
      .doc("how the host is paid for; spot hosts can be revoked");
  s->add("price_per_hour", ParamType::kNumber)
      .def(0.0)
      .at_least(0)
      .doc("USD per hour while the host exists (cost_usd in the summary)");
  return s;
}

std::shared_ptr<const config::Schema> revocation_schema() {
  auto s = std::make_shared<config::Schema>("platform/serverless/revocation",
                                            "A spot revocation at a fixed time.");
  s->add("host", ParamType::kInteger).at_least(0).doc("host index");
  s->add("at", ParamType::kDuration).at_least(0).doc("time of the revocation");
  return s;
}

std::shared_ptr<const config::Schema> cluster_schema() {
  auto s = std::make_shared<config::Schema>("platform/serverless/cluster",
                                            "Hosts, GPUs, VMs and the cold-start rates.");
  s->list_of("hosts", host_schema())
      .def(json::array({json{{"gpus", json::array({json{{"type", "A100-40GB"}}})}}}))
      .doc("host templates");
  s->add("pcie_bandwidth", ParamType::kBitrate)
      .def("512Gbps")
      .at_least(1)
      .doc(
          "host-to-GPU copy rate of a cold start's last stage (source: Flashpoint thesis "
          "§4.1.3, 64 GBps PCIe on the A10 test machine)");
  s->add("load_bandwidth", ParamType::kBitrate)
      .def("8Gbps")
      .at_least(1)
      .doc(
          "host load rate for models whose profile has no cold-start load time (assumption: "
          "1 GB/s deserialisation, the order of Flashpoint §3.4.1's T5-3B, 11.4 GB in 14.1 s)");
  s->add("store_bandwidth", ParamType::kBitrate)
      .def("2203Mbps")
      .at_least(1)
      .doc(
          "cloud-store download rate when the scenario has no network section (source: "
          "Flashpoint thesis §3.4.1, effective S3 bandwidth)");
  s->add("host_bandwidth", ParamType::kBitrate)
      .def("7506Mbps")
      .at_least(1)
      .doc(
          "host-to-host download rate without a network section (source: Flashpoint thesis "
          "§8.2.1)");
  s->add("runtime_start", ParamType::kDuration)
      .def("0s")
      .at_least(0)
      .doc(
          "a cold start's runtime stage between download and load: container start and "
          "serving-runtime initialisation (0: not modelled; the INFless presets keep 0 s, no "
          "value is published for their stack: docs/reproduction/infless.md; a measured bound "
          "is in data/models/measurements/runtime-start.json)");
  s->add("provisioning_delay", ParamType::kDuration)
      .def("120s")
      .at_least(0)
      .doc("time from a VM request to a usable host (assumption: order of EC2 start-up times)");
  s->add("spot_revocations_per_hour", ParamType::kNumber)
      .def(0.0)
      .at_least(0)
      .doc(
          "revocation rate of each spot host (exponential inter-revocation times); exclusive "
          "with spot_revocation_interval");
  s->add("spot_revocation_interval", ParamType::kDuration)
      .def("0s")
      .at_least(0)
      .doc(
          "interval model (Protean §5: notifications 'at each worker node at fixed time "
          "intervals based on revocation probability (P_rev)'): every interval each live spot "
          "host gets a revocation notice with probability spot_revocation_probability (0: off; "
          "the paper gives no interval)");
  s->add("spot_revocation_probability", ParamType::kNumber)
      .def(0.0)
      .at_least(0)
      .at_most(1)
      .doc("P_rev of the interval model (Protean §5: 0, 0.354, 0.708, from its ref. [76])");
  s->add("spot_revocation_phase", ParamType::kChoice)
      .def("uniform")
      .one_of({"uniform", "aligned"})
      .doc(
          "first draw of the interval model: uniform (hosts present at time zero draw first at "
          "a uniform time in (0, interval], the run starting at an unknown point of their "
          "intervals; later hosts one interval after they come up) or aligned (every host one "
          "interval after it comes up)");
  s->add("spot_drain", ParamType::kChoice)
      .def("notice")
      .one_of({"notice", "replacement"})
      .doc(
          "when a spot host under notice stops taking work: at the notice, or when the VM "
          "requested to replace it comes up (Protean §4.5: 'Once the new VM (spot/on-demand) is "
          "acquired, we redirect the incoming traffic to it') or spot_drain_lead before the "
          "revocation, whichever is first");
  s->add("spot_drain_lead", ParamType::kDuration)
      .def("1s")
      .at_least(0)
      .doc(
          "spot_drain replacement: the host stops taking work this long before its revocation "
          "(Protean §4.5: requests are short, '< 1s', so 'the remaining requests on the "
          "soon-to-be-evicted VM can finish before the eviction')");
  s->add("spot_revoked_batches", ParamType::kChoice)
      .def("finish")
      .one_of({"finish", "drop", "requeue"})
      .doc(
          "a batch still running on a spot host at its revocation: finish (runs to its end on "
          "the revoked host and is served), drop (cut: the VM is gone, its requests fail) or "
          "requeue (cut: its requests go back through the gateway, keeping their arrival "
          "times)");
  s->add("spot_notice_min", ParamType::kDuration)
      .def("30s")
      .at_least(0)
      .doc("shortest revocation notice (Protean §4.5: 30 to 120 s)");
  s->add("spot_notice_max", ParamType::kDuration).def("120s").at_least(0).doc("longest notice");
  s->list_of("revocations", revocation_schema())
      .def(json::array())
      .doc("revocations at fixed times (notice: spot_notice_min before)");
  return s;
}

std::shared_ptr<const config::Schema> app_timeout_schema() {
  auto s = std::make_shared<config::Schema>("platform/serverless/application_timeout",
                                            "A batching timeout for one application.");
  s->add("application", ParamType::kString).doc("application name as the workload gives it");
  s->add("timeout", ParamType::kDuration).at_least(0).doc("batching timeout");
  return s;
}

std::shared_ptr<const config::Schema> function_schema() {
  auto s = std::make_shared<config::Schema>("platform/serverless/function",
                                            "A function: the model it serves and how.");
  s->add("name", ParamType::kString).doc("function name, as the workload names it");
  s->add("model", ParamType::kString).doc("model of the catalog, e.g. \"protean/resnet-50\"");
  s->add("resource", ParamType::kChoice).def("gpu").one_of({"gpu", "cpu"}).doc("where it runs");
  s->add("max_batch", ParamType::kInteger).def(1).at_least(1).at_most(4096).doc("batch size");
  s->add("cores", ParamType::kNumber)
      .def(1.0)
      .at_least(0)
      .doc("vCPUs of a CPU instance (HarmonyBatch eq. 1)");
  s->add("gpu_share", ParamType::kNumber)
      .def(1.0)
      .at_least(0.01)
      .at_most(1.0)
      .doc("SM cap of an instance on an MPS GPU (1 = uncapped)");
  s->add("time_slice_memory", ParamType::kBytes)
      .def("0B")
      .at_least(0)
      .doc(
          "cGPU time slicing (HarmonyBatch eq. 3-4): GPU memory m of an instance out of the "
          "model's M_max; it owns m*tau of every M_max*tau cycle on a whole GPU shared only "
          "with time-sliced instances; 0: not time-sliced");
  s->add("cpu_threads", ParamType::kInteger)
      .def(0)
      .at_least(0)
      .at_most(1024)
      .doc(
          "INFless operator-profile instances (INFless §3.3): CPU threads of an instance, which "
          "runs with round(100 * gpu_share) % of the GPU's SMs (shares on one GPU sum to at "
          "most 1); 0: not an operator-profile instance");
  s->add("model_size", ParamType::kBytes)
      .optional()
      .doc(
          "bytes a cold start moves; default: the profile's cold-start size, else weights, "
          "else the GPU memory footprint");
  s->add("device_memory", ParamType::kBytes)
      .optional()
      .doc("GPU memory an instance reserves; default: the profile's memory_gb");
  s->add("batch_timeout", ParamType::kDuration)
      .def("0s")
      .at_least(0)
      .doc("how long the batcher may hold a request to fill a batch");
  s->list_of("application_timeouts", app_timeout_schema())
      .def(json::array())
      .doc("batching timeouts per application (override batch_timeout)");
  s->add("queue_group", ParamType::kString)
      .def("")
      .doc(
          "functions naming the same group share one queue and batcher (per-application-group "
          "queues; they must serve the same model); empty: a queue of its own");
  {
    auto& b = s->add("billing_memory", ParamType::kBytes);
    b.at_least(0).optional();
    b.doc("function memory billed per second of a batch (platform billing); absent: none");
  }
  {
    auto& b = s->add("billing_cores", ParamType::kNumber);
    b.at_least(0).optional();
    b.doc(
        "vCPUs billed per second of a batch (platform billing); absent: cores for CPU "
        "functions, none for GPU functions");
  }
  return s;
}

std::shared_ptr<const config::Schema> billing_schema() {
  auto s = std::make_shared<config::Schema>(
      "platform/serverless/billing",
      "Per-batch function billing (Alibaba Function Compute style, HarmonyBatch eq. 6).");
  s->add("per_invocation", ParamType::kNumber).def(0.0).at_least(0).doc("USD per batch");
  s->add("vcpu_second", ParamType::kNumber).def(0.0).at_least(0).doc("USD per vCPU-second");
  s->add("memory_gb_second", ParamType::kNumber)
      .def(0.0)
      .at_least(0)
      .doc("USD per GB-second of function memory (billing_memory)");
  s->add("gpu_memory_gb_second", ParamType::kNumber)
      .def(0.0)
      .at_least(0)
      .doc("USD per GB-second of GPU memory (time_slice_memory, else device memory)");
  s->add("gpu_whole_seconds", ParamType::kBool)
      .def(true)
      .doc("round a GPU batch's duration up to whole seconds");
  s->add("from", ParamType::kDuration)
      .def("0s")
      .at_least(0)
      .doc("batches dispatched before this time are not billed (e.g. the warm-up)");
  return s;
}

std::shared_ptr<const config::Schema> policies_schema() {
  auto s = std::make_shared<config::Schema>(
      "platform/serverless/policies",
      "One component per policy interface (dcsim list shows the registered ones).");
  s->component("batcher", policy::kBatcher).def(json{{"type", "fifo"}}).doc("ordering, batching");
  s->component("dispatcher", policy::kDispatcher)
      .def(json{{"type", "pull"}})
      .doc("which idle instance takes a batch");
  s->component("autoscaler", policy::kAutoscaler)
      .def(json{{"type", "reactive-rate"}})
      .doc("instances to start and stop at each tick");
  s->component("placement", policy::kPlacement)
      .def(json{{"type", "first-fit"}})
      .doc("where new instances go");
  s->component("gpu_partitioner", policy::kGpuPartitioner)
      .def(json{{"type", "static"}})
      .doc("MIG geometry changes");
  s->component("keep_alive", policy::kKeepAlive)
      .def(json{{"type", "fixed"}})
      .doc("idle timeouts and pre-warming");
  s->component("cold_start_sourcing", policy::kColdStartSourcing)
      .def(json{{"type", "cloud-store"}})
      .doc("where cold starts download from");
  s->component("procurement", policy::kProcurement)
      .def(json{{"type", "none"}})
      .doc("VM requests and releases");
  s->component("planner", policy::kPlanner)
      .def(json{{"type", "none"}})
      .doc("offline plan applied once at time zero");
  return s;
}

}  // namespace

std::shared_ptr<const config::Schema> serverless_schema() {
  auto schema = std::make_shared<config::Schema>(
      "platform/serverless",
      "Serverless inference control plane: per-function queues, batching, dispatch, instances "
      "with cold starts (download, load, copy), a control loop and pluggable policies.");
  schema->object("cluster", cluster_schema()).doc("hosts, GPUs, VMs");
  {
    auto& p = schema->object("network", net::topology_schema());
    p.default_value.reset();
    p.optional();
    p.doc(
        "spine-leaf fabric and object store (docs/network.md); absent: cold-start downloads "
        "run at the cluster's fixed store_bandwidth / host_bandwidth, without contention");
  }
  schema->list_of("functions", function_schema()).at_least(1).doc("the functions served");
  schema->object("policies", policies_schema()).doc("policy components");
  schema->add("control_interval", ParamType::kDuration)
      .def("1s")
      .at_least(1e-6)
      .doc("period of the control loop (first tick at time zero)");
  schema->list_of("rate_windows", ParamType::kDuration)
      .def(json::array({"10s", "60s"}))
      .at_least(1)
      .validate(every_window_positive)
      .doc(
          "windows over which arrival rates are given to policies (at least one: the longest "
          "bounds the arrivals the platform keeps)");
  schema->add("charge_decision_time", ParamType::kBool)
      .def(false)
      .doc("apply an autoscaler's decisions after the compute time it reports");
  schema->add("time_slice_mode", ParamType::kChoice)
      .def("slot-schedule")
      .one_of({"slot-schedule", "average"})
      .doc(
          "time-sliced instances: slot-schedule simulates the cGPU windows (worst case "
          "HarmonyBatch eq. 4), average charges eq. 3's mean latency");
  schema->add("queue_capacity", ParamType::kInteger)
      .def(1000000)
      .at_least(1)
      .doc("requests that may wait per queue; arrivals beyond it are dropped");
  schema->add("dispatch_scope", ParamType::kChoice)
      .def("cluster")
      .one_of({"cluster", "node", "instance"})
      .doc(
          "cluster: one queue per function for the whole cluster, drained by any idle "
          "instance; node: a gateway routes each arrival to a node hosting an instance of the "
          "function, and each node queues and batches its own requests (Protean §4); "
          "instance: a gateway routes each arrival to a ready instance of the function, and "
          "each instance queues its own requests (OpenFaaS's gateway and replicas; requests "
          "wait at the gateway while none is ready)");
  schema->add("gateway", ParamType::kChoice)
      .def("round-robin")
      .one_of({"round-robin", "least-loaded"})
      .doc(
          "dispatch_scope node: round-robin over the nodes hosting the function, or the node "
          "with the fewest queued requests and running batches per execution unit (a GPU or MIG "
          "slice hosting an instance; containers sharing one count once); dispatch_scope "
          "instance: round-robin over the ready instances, or the one with the fewest queued "
          "and running requests");
  schema->add("node_backlog", ParamType::kChoice)
      .def("wait")
      .one_of({"wait", "share"})
      .doc(
          "dispatch_scope node: wait, a node's queued requests wait for that node's instances; "
          "share, an instance that becomes idle with nothing queued at its node takes a batch "
          "of the oldest requests from the longest queue of its function at a node without an "
          "idle instance");
  schema->add("container_memory", ParamType::kChoice)
      .def("batch-footprint")
      .one_of({"batch-footprint", "weights-resident"})
      .doc(
          "GPU memory of a container: batch-footprint holds its model's batch footprint (weights "
          "+ a full batch's activations) for its lifetime, as an allocator that keeps its first "
          "batch's memory; weights-resident holds its weights (model_size) and takes a batch's "
          "activations (footprint - weights) only while the batch runs: a batch starts only when "
          "they fit the free memory of its GPU or slice, else it waits in its queue, and a "
          "container is placed only where the weights of the place's containers plus the largest "
          "activations among them fit (Protean §6.1.4 memory use). GPU functions that are "
          "time-sliced, operator-profile or partitioned keep their footprint");
  schema->add("evict_idle", ParamType::kChoice)
      .def("never")
      .one_of({"never", "lru"})
      .doc(
          "eviction of idle containers under GPU memory pressure: never, idle containers leave "
          "only by their keep-alive or a policy's stop; lru, when a container start (on the "
          "place its placement chose) does not fit the free memory of its GPU or MIG slice, or "
          "a queue with requests has idle containers but none whose batch's activations "
          "(container_memory weights-resident) fit, the idle containers of other functions on "
          "that GPU or slice (for the first of the queue's containers where that is enough) "
          "are terminated, least recently used (longest idle) first, until it fits, and none "
          "when all of them would not free enough (an OpenWhisk invoker's container pool removes "
          "idle containers to make room "
          "for a new one); each eviction is an `evicted` event and counted in "
          "memory_utilisation.idle_evictions. Neither Protean (Docker swarm) nor INFless "
          "(OpenFaaS) describes such eviction, so no preset enables it");
  schema->add("cpu_latency", ParamType::kChoice)
      .def("average")
      .one_of({"average", "sampled", "maximum"})
      .doc(
          "CPU instances' batch latency from HarmonyBatch eq. 1: average, sampled "
          "(Normal(L_avg, (L_max - L_avg)/2.33), L_max as the 99th percentile) or maximum");
  {
    auto& b = schema->object("billing", billing_schema());
    b.default_value.reset();
    b.optional();
    b.doc(
        "per-batch function billing reported under the summary's function_billing; absent: "
        "none");
  }
  return schema;
}

}  // namespace sim::platform
