#pragma once
/// The serverless control plane ("serverless" platform kind): gateway -> queue (per function or
/// per queue group) -> batcher -> dispatcher -> instance -> execution unit -> record, with cold
/// starts that download, load and copy model bytes (chained multicast optional), an offline
/// planner at time zero, and a periodic control loop that hands the policies a
/// PlatformView and applies the decisions they return. docs/policy-authors.md describes the
/// semantics (which wait is which, when each policy is called) in full.

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/cluster/host.hpp"
#include "sim/gpu_models/model_catalog.hpp"
#include "sim/gpu_models/solo_latency.hpp"
#include "sim/gpu_models/time_sliced_unit.hpp"
#include "sim/network/flow_network.hpp"
#include "sim/network/transfer_manager.hpp"
#include "sim/platform/platform.hpp"
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
  bool gpu = true;
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
  double per_invocation = 0.0;
  double vcpu_second = 0.0;
  double memory_gb_second = 0.0;
  double gpu_memory_gb_second = 0.0;
  bool gpu_whole_seconds = true;
  Time from;
};

struct HostTemplate {
  cluster::HostSpec spec;
  int count = 1;
};

struct SpotSettings {
  double revocations_per_hour = 0.0;  ///< per spot host, exponential inter-revocation times
  Time notice_min = seconds(30);      ///< Protean §4.5: 30 to 120 s notice
  Time notice_max = seconds(120);
  struct Scheduled {
    int host = 0;
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
  kNode
};

/// How the gateway of DispatchScope::kNode picks the node.
enum class GatewayRoute : std::uint8_t {
  kRoundRobin,  ///< the nodes hosting the function in turn
  kLeastLoaded  ///< the node with the fewest queued and running batches per routable instance
};

struct ServerlessConfig {
  std::vector<HostTemplate> hosts;
  double pcie_bps = 512e9;    ///< host-to-GPU copy bandwidth
  double load_bps = 8e9;      ///< host load rate when a profile gives no load time
  double store_bps = 2203e6;  ///< cloud-store download rate without a network section
  double host_bps = 7506e6;   ///< host-to-host rate without a network section
  Time provisioning_delay = seconds(120);
  SpotSettings spot;
  std::optional<nlohmann::json> network;  ///< resolved topology section, if any
  std::vector<FunctionSpec> functions;
  Time control_interval = seconds(1);
  std::vector<Time> rate_windows{seconds(10), seconds(60)};
  bool charge_decision_time = false;
  /// Time-sliced (cGPU) instances: kSlotSchedule simulates the windows (worst case eq. 4),
  /// kAverage charges eq. 3's average latency.
  gpu::TimeSliceMode time_slice_mode = gpu::TimeSliceMode::kSlotSchedule;
  std::uint64_t queue_capacity = 1000000;  ///< per queue; arrivals beyond it are dropped
  DispatchScope dispatch_scope = DispatchScope::kCluster;
  GatewayRoute gateway = GatewayRoute::kRoundRobin;
  /// How CPU instances draw a batch's latency from HarmonyBatch eq. 1.
  gpu::CpuLatencyMode cpu_latency = gpu::CpuLatencyMode::kAverage;
  /// Absent: no function billing in the summary.
  std::optional<FunctionBilling> billing;
};

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
  std::uint32_t function = 0;
  int host = 0;
  policy::SourceKind source = policy::SourceKind::kStore;
  bool chained = false;  ///< part of a chained multicast
  Time started;
  Time download;
  Time load;
  Time copy;
  bool completed = false;
};

class ServerlessPlatform final : public Platform {
 public:
  /// `catalog` must outlive the platform. Throws std::invalid_argument naming the problem
  /// (unknown model or GPU type, a workload function without a spec, a missing policy).
  ServerlessPlatform(ServerlessConfig config, const gpu::ModelCatalog& catalog,
                     PlatformContext context, Policies policies);
  ~ServerlessPlatform() override;

  void on_arrival(const traces::Arrival& arrival, std::uint64_t request_id) override;
  [[nodiscard]] std::uint64_t requests_in_system() const override;
  void add_timeseries_columns(metrics::TimeSeriesRecorder& recorder) override;
  [[nodiscard]] nlohmann::json summary_extra(Time end) const override;

  /// The view policies get (built on demand; also for tests).
  [[nodiscard]] policy::PlatformView view() const;
  /// Checks and applies decisions now (what the control loop does with policy output).
  void apply(const policy::Decisions& decisions);

  [[nodiscard]] const std::vector<ColdStartRecord>& cold_starts() const { return cold_log_; }
  [[nodiscard]] std::size_t live_instances() const { return instances_.size(); }
  [[nodiscard]] std::uint64_t queued() const;
  [[nodiscard]] std::uint64_t running() const { return running_requests_; }
  [[nodiscard]] std::uint64_t dropped() const { return dropped_; }
  [[nodiscard]] std::uint64_t completed() const { return completed_; }

 private:
  struct Request;
  struct Queue;
  struct Fn;
  struct Inst;
  struct PendingDownload;
  struct Chain;
  struct Pipeline;

  void tick();
  void sample_operator_fragments(const policy::PlatformView& v);
  void pump(Queue& q);
  void pump_all();
  // Per-node dispatch (DispatchScope::kNode): the gateway and the node queues.
  Queue& route(Queue& cluster, int exclude_host);
  Queue& node_queue(Queue& cluster, int host);
  [[nodiscard]] bool routable(const Inst& inst) const;
  [[nodiscard]] bool serves(const Inst& inst, const Queue& q) const;
  void schedule_reroute();
  void reroute_stranded();
  void run_batch(Inst& inst, std::vector<Request> batch);
  void finish_batch(policy::InstanceId id, std::uint64_t batch_serial,
                    const gpu::JobResult& result);
  void became_idle(Inst& inst);
  struct PartSetup;
  bool start_instance(Fn& fn, const policy::InstanceConfig& config,
                      const std::optional<policy::Location>& location, policy::PlatformView& pv,
                      bool warm = false, const PartSetup* part = nullptr);
  bool start_partitioned(Fn& fn, const policy::InstanceConfig& config,
                         const policy::PartitionSpec& spec, policy::PlatformView& pv);
  void part_ready(Inst& inst);
  void complete_model(policy::InstanceId head);
  void finish_pipelined(policy::InstanceId head, std::vector<Request> batch, Time dispatch,
                        Time avail, Time ready_at, int device);
  void head_admits(policy::InstanceId head);
  // Pipelined partitioned replicas with a network: a blocking flow shop (Pipeline).
  void make_pipeline(Inst& head, const std::vector<int>& cut_after,
                     const std::vector<policy::Location>& locs);
  void pipeline_work(std::uint64_t pipeline, std::size_t station);
  void pipeline_done(std::uint64_t pipeline, std::size_t station);
  void pipeline_advance(std::uint64_t pipeline, std::size_t station);
  void detach_pipeline(Inst& head);
  bool fits(const Fn& fn, const policy::InstanceConfig& config, const policy::Location& loc,
            double bytes) const;
  /// Start (GB units of the cGPU cycle) of the first free window of m_gb on `loc`, if any.
  [[nodiscard]] std::optional<double> time_slice_window(const Fn& fn, const policy::Location& loc,
                                                        double m_gb) const;
  void begin_download(Inst& inst);
  void join_chain(Inst& inst, const policy::SourceChoice& choice);
  void launch_chain(std::uint64_t chain);
  void download_done(policy::InstanceId id);
  void load_done(policy::InstanceId id);
  void copy_done(policy::InstanceId id);
  void stop(Inst& inst);
  void terminate(Inst& inst);
  void release_cold_start_memory(Inst& inst);
  void add_host(int template_index, cluster::Market market);
  void revocation_notice(int host);
  void revoke(int host);
  void schedule_spot(cluster::Host& host);
  void apply_vms(const policy::Decisions& d);
  /// Instances the autoscaler wants once decision d is applied (time-series column).
  [[nodiscard]] double desired_after(const policy::Decisions& d) const;
  Inst* find(policy::InstanceId id);
  [[nodiscard]] policy::InstanceView view_of(const Inst& inst) const;
  [[nodiscard]] std::vector<policy::HostView> hosts_view() const;
  [[nodiscard]] int global_gpu(const policy::Location& loc) const;

  ServerlessConfig config_;
  const gpu::ModelCatalog& catalog_;
  PlatformContext context_;
  Policies policies_;
  Simulation& sim_;
  RandomStream spot_rng_;

  std::unique_ptr<net::Topology> topology_;
  std::unique_ptr<net::FlowNetwork> flows_;
  std::unique_ptr<net::TransferManager> transfers_;
  std::optional<net::NodeId> store_node_;
  const gpu::GpuType* planning_gpu_ = nullptr;

  std::vector<std::unique_ptr<Fn>> fns_;        ///< by workload function id
  std::vector<std::unique_ptr<Queue>> queues_;  ///< by first member function id
  std::vector<Queue*> node_queues_;             ///< every node queue, in creation order
  EventHandle reroute_;                         ///< pending reroute_stranded()
  std::vector<std::unique_ptr<cluster::Host>> hosts_;
  std::vector<std::vector<int>> gpu_ids_;  ///< host -> gpu -> global device index
  int next_gpu_id_ = 0;
  std::map<policy::InstanceId, std::unique_ptr<Inst>> instances_;
  std::vector<std::unique_ptr<Inst>> graveyard_;  ///< terminated, freed at the next tick
  std::map<std::pair<std::string, int>, std::unique_ptr<PendingDownload>> downloads_;
  std::map<std::uint64_t, std::unique_ptr<Chain>> chains_;          ///< by serial
  std::map<std::pair<std::string, int>, std::uint64_t> gathering_;  ///< (model, source) -> chain
  std::uint64_t next_chain_ = 1;
  std::map<std::uint64_t, std::unique_ptr<Pipeline>> pipelines_;  ///< by serial
  std::uint64_t next_pipeline_ = 1;
  std::uint64_t chained_ = 0;  ///< cold starts served by a chain
  std::vector<ColdStartRecord> cold_log_;
  policy::InstanceId next_instance_ = 1;
  std::uint64_t next_batch_ = 1;
  int pending_vms_ = 0;
  double desired_instances_ = 0.0;  ///< after the last tick's autoscaler decision
  bool planned_ = false;

  // Counters for the summary.
  std::uint64_t running_requests_ = 0;
  std::uint64_t dropped_ = 0;
  std::uint64_t completed_ = 0;
  std::uint64_t batches_ = 0;
  double instance_seconds_ = 0.0;  ///< of terminated instances
  std::map<std::string, std::uint64_t> applied_;
  std::map<std::string, std::uint64_t> rejected_;
  /// Partitioned replicas started, by their number of parts (Flashpoint Fig. 8.10).
  std::map<int, std::uint64_t> partitioned_by_parts_;
  std::uint64_t spot_notices_ = 0;
  std::uint64_t spot_revocations_ = 0;
  std::uint64_t revocation_overruns_ = 0;
  std::uint64_t vms_provisioned_ = 0;
  // Memory reserved by instances, integrated over time (memory utilisation).
  void memory_changed(double host_bytes, double gpu_gb);
  Time memory_since_;
  double host_reserved_bytes_ = 0.0;
  double gpu_reserved_gb_ = 0.0;
  double host_byte_seconds_ = 0.0;
  double gpu_gb_seconds_ = 0.0;
  // Function billing (ServerlessConfig::billing), by function id.
  struct BillingTally {
    double usd = 0.0;
    double billed_s = 0.0;
    std::uint64_t invocations = 0;
    std::uint64_t requests = 0;
  };
  void bill(const Inst& inst, const gpu::JobResult& result);
  std::map<std::uint32_t, BillingTally> billing_;
  // Fragmentation sampled at every control tick.
  double fragmentation_sum_ = 0.0;
  std::uint64_t fragmentation_samples_ = 0;
  // INFless operator-profile instances (cpu_threads > 0): resources held over time and the
  // unallocated share of the servers that hold any (INFless Fig. 17b, Table 4). Reported only
  // when such instances ran, so other scenarios' summaries are unchanged.
  std::uint64_t op_instances_ended_ = 0;
  double op_thread_seconds_ = 0.0;  ///< of terminated instances
  double op_share_seconds_ = 0.0;
  double op_free_cpu_sum_ = 0.0;
  double op_free_gpu_sum_ = 0.0;
  std::uint64_t op_samples_ = 0;
};

/// The "serverless" platform kind: schema and factory (policies built through
/// PlatformContext::policies, the catalog from PlatformContext::catalog).
PlatformKind serverless_platform_kind();

}  // namespace sim::platform
