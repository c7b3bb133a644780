#pragma once
/// The serverless control plane's private data model, shared by its parts: a request in a
/// queue, a queue, a resolved function, an instance, the decision counters. Plain structs with
/// no behaviour; the part that owns each job changes them (see serverless_platform.hpp).

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/cluster/host.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/engine/timer_set.hpp"
#include "sim/gpu_models/execution_unit.hpp"
#include "sim/gpu_models/model_catalog.hpp"
#include "sim/network/transfer_manager.hpp"
#include "sim/platform/request_queue.hpp"
#include "sim/platform/serverless_config.hpp"
#include "sim/policy/dispatcher.hpp"
#include "sim/traces/arrival_source.hpp"

namespace sim::platform::serverless {

using policy::InstanceId;
using policy::InstanceState;

struct Fn;
struct Queue;

/// A function's instances by state (index: InstanceState), kept by Lifecycle::transition, the
/// one writer of instance state: the views read a function's counts per finished batch (the
/// keep-alive's view), where a pass over its instances (hundreds per function in the largest
/// runs) would cost more than the batch. A terminated instance stays counted under kTerminated.
class StateCounts {
 public:
  [[nodiscard]] int operator[](InstanceState s) const { return n_[static_cast<std::size_t>(s)]; }
  /// Transitions (and creations) so far: the gateway's cached counts (Queue::gateway) are
  /// current while no member function's count moved.
  [[nodiscard]] std::uint64_t changes() const { return changes_; }

 private:
  friend class Lifecycle;
  std::array<int, 5> n_{};  ///< kColdStarting .. kTerminated
  std::uint64_t changes_ = 0;
};

struct Request {
  traces::Arrival arrival;
  std::uint64_t id = 0;
  Time timeout;
};

/// The gateway's count of one node for a queue group (ControlPlane::route): its execution
/// units hosting a routable instance of the group, and their running batches. While merging,
/// one entry per instance keyed by its unit (host, gpu, slice, and the instance itself when it
/// owns its unit).
struct GatewayCount {
  int host;
  int gpu;
  int slice;
  InstanceId own;  ///< the instance when it owns its unit (CPU, cGPU window...), else 0
  int n;
  int busy;
  /// The group's queue at `host` once route() has found it (node queues are never freed):
  /// spares the least-loaded choice a map lookup per node per arrival. Null: not looked up.
  Queue* node = nullptr;
};

/// How many instances of a set take each largest batch (config.max_batch), and the largest:
/// a flat vector ascending by batch (a queue's instances have a handful of distinct ones), not
/// a std::map whose node each change allocated or freed.
class BatchSizeCounts {
 public:
  void add(int batch) {
    const auto at = std::lower_bound(counts_.begin(), counts_.end(), batch,
                                     [](const Count& c, int b) { return c.batch < b; });
    if (at != counts_.end() && at->batch == batch) {
      ++at->n;
    } else {
      counts_.insert(at, Count{batch, 1});
    }
  }
  /// Precondition: `batch` was added more often than removed.
  void remove(int batch) {
    const auto at = std::lower_bound(counts_.begin(), counts_.end(), batch,
                                     [](const Count& c, int b) { return c.batch < b; });
    if (--at->n == 0) counts_.erase(at);
  }
  void clear() { counts_.clear(); }
  [[nodiscard]] bool empty() const { return counts_.empty(); }
  /// The largest batch added and not removed. Precondition: !empty().
  [[nodiscard]] int largest() const { return counts_.back().batch; }

 private:
  struct Count {
    int batch;
    int n;
  };
  std::vector<Count> counts_;
};

/// A queue with its batcher wake-up: one per function, or one per queue group
/// (FunctionSpec::queue_group) shared by the group's functions.
struct Queue {
  RequestQueue<Request> requests;
  std::vector<Fn*> members;  ///< by function id
  /// Instances of the members that may be dispatchable (idle and not held), by id: an instance
  /// enters when it becomes idle and leaves when a dispatch finds it no longer dispatchable, so
  /// a dispatch scans the idle instances only, not every live one. Ascending ids without
  /// repeats (see add_idle): a flat vector, because every dispatch scans it and a std::set's
  /// scattered nodes made that scan a third of a large run's time. Unused with idle sets.
  std::vector<InstanceId> idle;
  /// With a dispatcher's idle sets (Dispatcher::idle_set; cluster-wide dispatch only): the
  /// dispatchable instances, kept as they change rather than found by a scan per dispatch.
  /// `idle` is then replaced by Inst::in_idle (an instance is in one queue only), and the
  /// set's members are the instances with Inst::in_idle_set: two sorted vectors of ids, one
  /// insert and one erase in each per batch, were the run's memmove (2.4%).
  struct Dispatchable {
    std::unique_ptr<policy::IdleSet> set;
    std::size_t members = 0;      ///< instances with in_idle_set
    BatchSizeCounts batch_sizes;  ///< members by config.max_batch
    std::uint64_t epoch = 0;      ///< ControlPlane::dispatchable_epoch_ it is up to
  };
  std::optional<Dispatchable> dispatchable;
  EventHandle wake;
  Time wake_at;
  int host = -1;                                ///< a node queue's host; -1: the cluster-wide queue
  Queue* cluster = nullptr;                     ///< a node queue's cluster-wide queue
  std::map<int, std::unique_ptr<Queue>> nodes;  ///< cluster queue under kNode: by host
  /// An instance queue's instance (DispatchScope::kInstance; `host` is its host); 0: none.
  InstanceId instance = 0;
  std::map<InstanceId, std::unique_ptr<Queue>> replicas;  ///< cluster queue under kInstance
  std::size_t next = 0;                                   ///< the gateway's round-robin position
  /// Cluster queue under kNode: the gateway's per-node counts as route() last merged them,
  /// reused while `epoch` and `changes` still match (ControlPlane::gateway_counts). Rebuilding
  /// them walked the group's instances on every arrival, a seventh of a Protean run, though
  /// they change only when an instance's state, the instance set or a host does.
  struct Gateway {
    std::vector<GatewayCount> hosts;
    std::uint64_t epoch = 0;    ///< ControlPlane::route_epoch_ when merged
    std::uint64_t changes = 0;  ///< the members' StateCounts::changes() summed, then
  } gateway;
};

/// Adds `id` to a queue's idle ids, keeping them ascending and distinct.
inline void add_idle(Queue& q, InstanceId id) {
  const auto at = std::lower_bound(q.idle.begin(), q.idle.end(), id);
  if (at == q.idle.end() || *at != id) q.idle.insert(at, id);
}

/// A workload function resolved against the catalog (function_table.hpp builds them).
struct Fn {
  FunctionSpec spec;
  std::uint32_t id = 0;
  const gpu::ModelProfile* model = nullptr;
  double bytes = 0.0;
  double device_gb = 0.0;
  /// What an instance of spec.config holds (memory_charge under the platform's
  /// container_memory): for its lifetime, and per running batch. FunctionView shows both.
  double resident_gb = 0.0;
  double activation_gb = 0.0;
  double batch_latency_s = 0.0;
  Queue* queue = nullptr;
  std::size_t queued = 0;            ///< requests of this function in its queue
  std::deque<Time> recent;           ///< arrival times within the longest rate window
  std::uint64_t recent_dropped = 0;  ///< arrivals dropped from the front of `recent`
  /// Where each rate window starts, as an index into every arrival ever kept (recent_dropped +
  /// position in `recent`), as of `window_start_at`: the views move it forward instead of
  /// searching `recent` per call (the keep-alive's view is built per finished batch), since
  /// views are built at non-decreasing times. A cache of what a binary search would find.
  mutable std::vector<std::uint64_t> window_start;
  mutable Time window_start_at;
  std::uint64_t arrivals = 0;
  std::uint64_t strict_arrivals = 0;
  std::uint64_t dequeued = 0;      ///< requests taken into batches
  double dequeued_wait_s = 0.0;    ///< their summed queue waits
  std::set<InstanceId> instances;  ///< live instances, by id
  StateCounts states;              ///< its instances by state (Lifecycle keeps them)
  std::map<std::uint32_t, Time> timeout_by_app;
  std::vector<policy::LayerView> layers;  ///< per-layer costs (models with a layer profile)
  std::vector<double> layer_share;        ///< each layer's share of the model's bytes
};

/// What a part of a partitioned replica changes in an instance's cold start.
struct PartSetup {
  double bytes = 0.0;
  double load_s = 0.0;
  InstanceId head = 0;  ///< 0: this part is the head
  int part = 0;
  int parts = 1;
};

/// What happens to an instance (its states: docs/policy-authors.md "Instance kinds").
enum class InstanceEvent : std::uint8_t {
  kReady,       ///< its model is on the device (again, for a whole partitioned replica)
  kDispatched,  ///< it took a batch
  kBatchDone,   ///< its batch finished (a pipeline: its first part is free again)
  kDrain,       ///< stop after the batch it runs
  kTerminate
};

/// An instance's state and timestamps. transition() is their only writer, and it rejects
/// events the state does not allow (std::logic_error: a bug in the control plane). It also
/// keeps `counts` (its function's instances by state): construction counts it cold-starting,
/// every transition moves it from its old state's count to its new one's.
class Lifecycle {
 public:
  Lifecycle(Time created, StateCounts& counts);
  // A copy would move counts it never entered.
  Lifecycle(const Lifecycle&) = delete;
  Lifecycle& operator=(const Lifecycle&) = delete;

  void transition(InstanceEvent event, Time now);

  [[nodiscard]] InstanceState state() const { return state_; }
  [[nodiscard]] Time created() const { return created_; }
  [[nodiscard]] Time state_since() const { return state_since_; }
  /// When it last became ready (zero while cold-starting).
  [[nodiscard]] Time ready_at() const { return ready_at_; }
  /// When it last became idle.
  [[nodiscard]] Time idle_since() const { return idle_since_; }

 private:
  void transition_state(InstanceEvent event, Time now);

  InstanceState state_ = InstanceState::kColdStarting;
  StateCounts* counts_;
  Time created_;
  Time state_since_;
  Time ready_at_;
  Time idle_since_;
};

/// An instance's cold start while it lasts (cold_start.hpp runs it).
struct Boot {
  double host_bytes = 0.0;  ///< host memory reserved during the cold start
  std::size_t log = 0;      ///< index into the cold-start log
  policy::ColdStartStage stage = policy::ColdStartStage::kNone;  ///< in progress
  Time stage_since;
  std::optional<net::TransferManager::RequestId> transfer;
  bool skip_load = false;  ///< SourceChoice::loaded: the host keeps the model loaded
  double bytes = 0.0;      ///< bytes its cold start moves (a part: its share of the model)
  double load_s = -1.0;    ///< a part's load stage; < 0: the model's
};

/// A part of a partitioned replica (replicas.cpp has the mechanism and its source): every part
/// is an instance on its own GPU; the head (part 0) takes the requests and runs them through
/// the pipeline.
struct Replica {
  InstanceId head = 0;  ///< parts 1..p-1: the head's id
  int part = 0;
  int parts = 1;
  std::vector<InstanceId> members;  ///< head: parts 1..p-1
  int parts_waiting = 0;            ///< head: parts still cold-starting (itself included)
  double completion_s = 0.0;        ///< head: model completion after the replica is ready
};

/// When and where a batch ran, as its requests' records report it.
struct BatchTimes {
  Time dispatch;  ///< the dispatcher gave the batch to the instance
  Time avail;     ///< the instance became idle before the dispatch
  Time ready_at;  ///< the instance finished its cold start
  Time start;     ///< execution began
  Time finish;
  std::uint32_t batch_size = 0;
  int device = -1;  ///< cluster-wide GPU index; -1: CPU
  int slice = -1;
};

/// Fields in the order of a batch's path: a dispatch and a completion read the first eight
/// cache lines (id to replica, with a small batch's requests; instance_view() reads replica),
/// the rest is read at start, stop and by the views. With ~10,500 instances each batch finds
/// its instance out of cache; laid out this way, and aligned to a line (so that those fields
/// span eight lines, not nine), its hot fields cost a few adjacent lines fetched together
/// (prefetch_batch_state), not one line each after the other.
struct alignas(64) Inst {
  Inst(Time created, StateCounts& counts) : life(created, counts) {}

  InstanceId id = 0;
  Fn* fn = nullptr;
  Lifecycle life;
  policy::InstanceConfig config;
  policy::Location loc;
  std::uint64_t batches = 0;
  double batch_latency_s = 0.0;  ///< solo latency of max_batch on its unit
  /// GPU memory a batch of it holds while it runs (ContainerMemory::kWeightsResident), 0 else
  double activation_gb = 0.0;
  bool holds_activations = false;  ///< its running batch holds activation_gb
  /// kWeightsResident: the dispatcher last skipped it because its activations did not fit, and
  /// when they fitted again; a request's wait until then is queueing for memory, not batching.
  bool short_of_memory = false;
  bool stop_after_batch = false;
  /// Its running batch was cut at its host's revocation (ControlPlane::cut_batch): the batch
  /// ended there, and the unit's later completion only frees the instance.
  bool batch_cut = false;
  bool held = false;  ///< ready but not dispatchable (a part of a replica)
  /// With idle sets (Queue::Dispatchable): in its queue's idle instances (what Queue::idle
  /// holds without them), and a member of the queue's set.
  bool in_idle = false;
  bool in_idle_set = false;
  /// Cluster-wide index of its GPU (Fleet::global_gpu), -1 on CPU: a batch's records carry it.
  int device = -1;
  Time memory_ready_at;
  gpu::ExecutionUnit* unit = nullptr;
  /// Its GPU (null on CPU; hosts and their devices are never freed during a run): a batch's
  /// start and end count on it. Reached through the host, it was three dependent misses per
  /// batch (host, its GPU vector, the device), each waiting for the one before.
  cluster::GpuDevice* gpu = nullptr;
  /// Its keep-alive while it is idle (ControlPlane::keep_alive_timers_). A cold-start
  /// stage's event is `timer`, further down: the two are never pending together (a keep-alive
  /// starts once the cold start is over, and an instance never goes back to one).
  TimerSet::Ticket keep_alive;
  double pipeline_latency_s = 0.0;  ///< head: I = execution + transfers (0: not pipelined)
  std::uint64_t pipeline = 0;       ///< head with a network: its Pipeline (0: fixed times)
  std::uint64_t batch_serial = 0;   ///< its running batch's
  Time dispatch;                    ///< of its running (or last) batch
  /// On its execution unit (UnitRunner): the running batch's requests and times, kept here
  /// rather than in the unit's callback, which then fits std::function's inline storage (no
  /// allocation per batch). A pipeline's batch is held by its Pipelines. A batch of up to
  /// kHeld requests is held in place (held_count of them), among the lines a completion
  /// prefetches: most batches of the INFless §5.3 run hold one or two (3.46 M requests in
  /// 2.4 M batches), and in a vector of their own they were one more miss after the
  /// instance's; a larger batch is in `running` (held_count 0).
  static constexpr std::size_t kHeld = 2;
  std::array<Request, kHeld> held_requests{};
  std::uint32_t held_count = 0;
  BatchTimes running_times;
  std::vector<Request> running;
  /// A part of a partitioned replica; none for a full instance (or after model completion).
  std::optional<Replica> replica;
  /// Its part of a partitioned replica; -1: a full instance.
  [[nodiscard]] int part() const { return replica ? replica->part : -1; }

  double device_gb = 0.0;  ///< GPU memory reserved for its lifetime
  double cores = 0.0;      ///< host cores reserved for its lifetime
  double window_gb = 0.0;  ///< time-sliced: window start within the cycle, in GB units
  std::unique_ptr<gpu::ExecutionUnit> own_unit;  ///< CPU, time-sliced, operator-profile
  /// Its cold start, from its start until the host memory it reserved is released (at once
  /// for a warm start).
  std::optional<Boot> boot;
  double pipeline_interval_s = 0.0;  ///< head: max(E, N), a new request every this long
  EventHandle admit;
  EventHandle timer;  ///< its cold-start stage's (cold_start.cpp)
};

/// Starts fetching the lines of `inst` a batch's dispatch or completion reads (Inst's fields
/// up to `replica`), so that their misses overlap instead of each field waiting in turn. A
/// hint only.
inline void prefetch_batch_state(const Inst& inst) {
  const auto* p = reinterpret_cast<const char*>(&inst);
  const auto* end = reinterpret_cast<const char*>(&inst.replica) + sizeof(inst.replica);
  for (; p < end; p += 64)
    __builtin_prefetch(p);
}
/// The bytes prefetch_batch_state() fetches, from the instance's start (computed from the
/// object, not with offsetof: Inst is not standard-layout).
inline std::uint32_t batch_state_bytes(const Inst& inst) {
  const auto* end = reinterpret_cast<const char*>(&inst.replica) + sizeof(inst.replica);
  return static_cast<std::uint32_t>(end - reinterpret_cast<const char*>(&inst));
}

using Instances = std::map<InstanceId, std::unique_ptr<Inst>>;

/// Throws std::logic_error unless `fn.states` equals a count of fn's live instances (in
/// `instances`) by state: the control plane checks it at every view in debug builds, the
/// tests after every step.
void check_state_counts(const Fn& fn, const Instances& instances);
using Hosts = std::vector<std::unique_ptr<cluster::Host>>;

/// Decisions applied and rejected, by kind (the summary's "decisions" block); every part that
/// checks a decision counts it here.
struct DecisionCounts {
  std::map<std::string, std::uint64_t> applied;
  std::map<std::string, std::uint64_t> rejected;
};

/// Time to move `bytes` at `bps` bits per second, rounded up to the next tick.
inline Time transfer_time(double bytes, double bps) {
  return bytes <= 0 ? Time::zero() : ceil_seconds(bytes * 8.0 / bps);
}

}  // namespace sim::platform::serverless
