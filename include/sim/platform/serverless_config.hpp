#pragma once
/// Configuration of the "serverless" platform kind: plain data, filled from the scenario by
/// serverless_config.cpp, the policies it runs, and the cold-start record it keeps. The parts
/// of the control plane (src/platform/serverless/) include this header, never the platform's
/// façade.
///
/// The defaults live only in the schema (serverless_schema.cpp): members here are
/// value-initialised (zero, empty), not defaulted, and code that builds a configuration by hand
/// starts from default_serverless_config() (or default_function_spec(), ...), which resolve an
/// empty section against the schema. tests/platform/serverless_config_test.cpp checks that no
/// member here gains a default of its own.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/cluster/host.hpp"
#include "sim/engine/time.hpp"
#include "sim/gpu_models/solo_latency.hpp"
#include "sim/gpu_models/time_sliced_unit.hpp"
#include "sim/policy/autoscaler.hpp"
#include "sim/policy/batcher.hpp"
#include "sim/policy/cold_start_sourcing.hpp"
#include "sim/policy/dispatcher.hpp"
#include "sim/policy/gpu_partitioner.hpp"
#include "sim/policy/keep_alive.hpp"
#include "sim/policy/placement.hpp"
#include "sim/policy/planner.hpp"
#include "sim/policy/procurement.hpp"

namespace sim::platform {

struct FunctionSpec {
  std::string name;   ///< as the workload names it
  std::string model;  ///< catalog name
  bool gpu{};         ///< resource "gpu"
  policy::InstanceConfig config;
  std::optional<double> model_bytes;         ///< default: the catalog's size (see docs)
  std::optional<double> device_memory_gb;    ///< default: the profile's memory_gb
  Time batch_timeout;                        ///< batching timeout of every application...
  std::map<std::string, Time> app_timeouts;  ///< ...unless overridden here (application name)
  /// Queue group (per-application-group queues): functions naming the same non-empty group
  /// share one queue, one batcher call and one set of idle instances; they must serve the same
  /// model. Empty: the function has its own queue.
  std::string queue_group;
  /// Function billing (ServerlessConfig::billing): memory and vCPUs billed per second of a
  /// batch. Defaults: no memory; cpu_cores for CPU functions, none for GPU functions.
  std::optional<double> billing_memory_gb;
  std::optional<double> billing_cores;
};

/// Per-batch function billing in the style of Alibaba Function Compute (HarmonyBatch eq. 6):
/// each batch costs per_invocation + D' (cores vcpu_second + memory memory_gb_second +
/// GPU memory gpu_memory_gb_second), D' its execution time, rounded up to whole seconds on
/// GPU instances when gpu_whole_seconds. Batches dispatched before `from` are not billed.
struct FunctionBilling {
  double per_invocation{};
  double vcpu_second{};
  double memory_gb_second{};
  double gpu_memory_gb_second{};
  bool gpu_whole_seconds{};
  Time from;
};

struct HostTemplate {
  cluster::HostSpec spec;
  int count{};
};

/// Where a spot host under revocation notice stops taking work.
enum class SpotDrain : std::uint8_t {
  kAtNotice,  ///< at the notice: the host's instances drain at once
  /// when the VM requested to replace it comes up ("Once the new VM (spot/on-demand) is
  /// acquired, we redirect the incoming traffic to it", Protean §4.5), or drain_lead before
  /// the revocation if that comes first (the remaining requests "can finish before the
  /// eviction", ibid.)
  kAtReplacement,
};

/// What happens at a spot host's revocation to a batch still running on it.
enum class SpotRevokedBatches : std::uint8_t {
  /// it runs to its end and its requests are served (the execution models cannot abort a
  /// batch; the batch is counted in spot.batches_running_at_revocation)
  kFinish,
  /// it is cut: the VM and the work on it are gone, its requests fail (records "dropped")
  kDrop,
  /// it is cut and its requests go back through the gateway to the remaining hosts, keeping
  /// their arrival times (a retry of the lost invocation)
  kRequeue,
};

/// When a spot host's first revocation draw of the interval model falls.
enum class SpotPhase : std::uint8_t {
  /// hosts present at time zero: uniform in (0, interval] (the run starts at an unknown point
  /// of their intervals); hosts that come up later: one interval after they came up
  kUniform,
  kAligned,  ///< every host: one interval after it came up
};

struct SpotSettings {
  double revocations_per_hour{};  ///< per spot host, exponential inter-revocation times
  /// Interval model (Protean §5: "revocation notifications at each worker node at fixed time
  /// intervals based on revocation probability (P_rev)"): every `revocation_interval` each
  /// live spot host gets a notice with probability `revocation_probability`. Zero: off.
  Time revocation_interval;
  double revocation_probability{};
  SpotPhase phase{};
  SpotDrain drain{};
  Time drain_lead;  ///< kAtReplacement: stop taking work this long before the revocation
  SpotRevokedBatches revoked_batches{};
  Time notice_min;  ///< Protean §4.5: 30 to 120 s notice
  Time notice_max;
  struct Scheduled {
    int host{};
    Time at;  ///< the revocation itself; the notice comes notice_min..max before
  };
  std::vector<Scheduled> scheduled;
};

/// Where requests wait for an instance (DESIGN.md "Serverless platform").
enum class DispatchScope : std::uint8_t {
  kCluster,  ///< one queue per function (or queue group) for the whole cluster
  /// a gateway routes each arrival to a node that hosts an instance of the function, and each
  /// node keeps its own queue per function (Protean §4: requests "load-balanced across the
  /// worker nodes by the Dispatcher", then reordered and batched on the node)
  kNode,
  /// a gateway routes each arrival to one ready instance of the function, and each instance
  /// keeps its own queue (OpenFaaS: the gateway proxies to a replica behind the function's
  /// service, each replica serves what it was sent; INFless Table 3: no batch-aware dispatcher)
  kInstance
};

/// How the gateway of DispatchScope::kNode (kInstance) picks the node (the instance).
enum class GatewayRoute : std::uint8_t {
  kRoundRobin,  ///< the nodes hosting the function in turn
  /// the node with the fewest queued requests and running batches per execution unit (GPU,
  /// MIG slice, or an instance's own unit) hosting a routable instance: co-located containers
  /// sharing one unit add no capacity (request_path.cpp)
  kLeastLoaded
};

/// DispatchScope::kNode: what a node's queued requests do when another node's instance of
/// their function is idle.
enum class NodeBacklog : std::uint8_t {
  kWait,  ///< they wait for their own node's instances (the gateway's choice is final)
  /// an instance that becomes idle with nothing queued at its node takes a batch's worth of
  /// the oldest requests from the longest queue of its function at a node without an idle
  /// instance (work sharing between nodes)
  kShare
};

/// What GPU memory a container holds (docs/policy-authors.md "Container memory").
enum class ContainerMemory : std::uint8_t {
  /// its model's whole batch footprint (weights + a full batch's activations) for its
  /// lifetime, as a framework whose allocator keeps the memory of its first batch
  kBatchFootprint,
  /// its weights for its lifetime; a batch's activations only while the batch runs (a batch
  /// starts only when they fit the GPU's or slice's free memory, else it waits in its queue)
  kWeightsResident
};

/// Whether the platform evicts idle containers when a GPU or MIG slice runs short of memory
/// (besides their keep-alive), and in which order (docs/scenario-reference.md `evict_idle`).
enum class EvictIdle : std::uint8_t {
  kNever,  ///< idle containers leave only by their keep-alive or a policy's stop
  /// when a container start does not fit its place's memory, or a queue with requests has
  /// idle instances but none whose batch's activations (kWeightsResident) fit, the idle
  /// containers of other functions on the same GPU or slice (of the first of those instances
  /// where that is enough) are terminated, least recently used first, until it fits; none
  /// when they cannot free enough
  kLeastRecentlyUsed
};

struct ServerlessConfig {
  std::vector<HostTemplate> hosts;
  double pcie_bps{};   ///< host-to-GPU copy bandwidth
  double load_bps{};   ///< host load rate when a profile gives no load time
  double store_bps{};  ///< cloud-store download rate without a network section
  double host_bps{};   ///< host-to-host rate without a network section
  Time provisioning_delay;
  /// A cold start's runtime stage between download and load: the container starts and the
  /// serving runtime (e.g. TensorFlow Serving) initialises before it can load the model.
  Time runtime_start;
  SpotSettings spot;
  std::optional<nlohmann::json> network;  ///< resolved topology section, if any
  std::vector<FunctionSpec> functions;
  Time control_interval;
  std::vector<Time> rate_windows;
  bool charge_decision_time{};
  /// Time-sliced (cGPU) instances: kSlotSchedule simulates the windows (worst case eq. 4),
  /// kAverage charges eq. 3's average latency.
  gpu::TimeSliceMode time_slice_mode{};
  std::uint64_t queue_capacity{};  ///< per queue; arrivals beyond it are dropped
  DispatchScope dispatch_scope{};
  GatewayRoute gateway{};
  NodeBacklog node_backlog{};
  ContainerMemory container_memory{};
  EvictIdle evict_idle{};
  /// How CPU instances draw a batch's latency from HarmonyBatch eq. 1.
  gpu::CpuLatencyMode cpu_latency{};
  /// Absent: no function billing in the summary.
  std::optional<FunctionBilling> billing;
};

/// The schema's defaults (serverless_config.cpp): an empty `platform` section resolved, with no
/// hosts and no functions (the caller adds them).
[[nodiscard]] ServerlessConfig default_serverless_config();
/// A function with the schema's defaults (a GPU function, batch 1, ...); name and model empty.
[[nodiscard]] FunctionSpec default_function_spec();
/// A host template with the schema's defaults (one host, its cores, memory and market), no GPUs.
[[nodiscard]] HostTemplate default_host_template();
/// Function billing with the schema's defaults (all prices zero, whole GPU seconds, from 0 s).
[[nodiscard]] FunctionBilling default_function_billing();

struct Policies {
  std::unique_ptr<policy::Batcher> batcher;
  std::unique_ptr<policy::Dispatcher> dispatcher;
  std::unique_ptr<policy::Autoscaler> autoscaler;
  std::unique_ptr<policy::Placement> placement;
  std::unique_ptr<policy::GpuPartitioner> partitioner;  ///< optional
  std::unique_ptr<policy::KeepAlive> keep_alive;
  std::unique_ptr<policy::ColdStartSourcing> sourcing;
  std::unique_ptr<policy::Procurement> procurement;  ///< optional
  std::unique_ptr<policy::Planner> planner;          ///< optional; called once at time zero
};

/// One cold start's stage durations (DESIGN.md "Cold start").
struct ColdStartRecord {
  policy::InstanceId instance = 0;
  /// A part of a partitioned replica: the id of the replica's head (part 0); 0: a full
  /// instance.
  policy::InstanceId replica = 0;
  std::uint32_t function = 0;
  int host = 0;
  policy::SourceKind source = policy::SourceKind::kStore;
  bool chained = false;  ///< part of a chained multicast
  Time started;
  Time download;
  Time runtime;  ///< container and serving-runtime start (ServerlessConfig::runtime_start)
  Time load;
  Time copy;
  bool completed = false;
};

}  // namespace sim::platform
