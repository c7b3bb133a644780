#pragma once
/// The serverless control plane behind the ServerlessPlatform façade: the request path
/// (gateway -> queue -> batcher -> dispatcher -> instance, request_path.cpp), the instance
/// lifecycle (start, idle, stop, terminate, lifecycle.cpp) and the control loop (control_plane.cpp)
/// that hands the policies a view and applies their decisions. The other jobs are parts it owns
/// and that report back to it: the function table, the fleet (FleetEvents), cold starts (ready),
/// the batch runners (BatchEvents: the execution unit, partitioned replicas' pipelines),
/// feasibility and views (return values), and the statistics (subscribers in Statistics, fed with
/// events).

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "accounting.hpp"
#include "batch_runner.hpp"
#include "cold_start.hpp"
#include "desired_instances.hpp"
#include "fleet.hpp"
#include "model.hpp"
#include "pipeline.hpp"
#include "sim/platform/platform.hpp"

namespace sim::platform::serverless {

class ControlPlane final : private FleetEvents, private BatchEvents {
 public:
  ControlPlane(ServerlessConfig config, const gpu::ModelCatalog& catalog, PlatformContext context,
               Policies policies);
  ~ControlPlane() override;
  ControlPlane(const ControlPlane&) = delete;
  ControlPlane& operator=(const ControlPlane&) = delete;

  void on_arrival(const traces::Arrival& arrival, std::uint64_t request_id);
  [[nodiscard]] std::uint64_t requests_in_system() const { return queued() + running_requests_; }
  void add_timeseries_columns(metrics::TimeSeriesRecorder& recorder);
  [[nodiscard]] nlohmann::json summary_extra(Time end) const;
  [[nodiscard]] policy::PlatformView view() const;
  /// The same view, refreshed in place in view_ and valid until the next call: what a
  /// caller that only reads it uses without copying (view() copies it).
  [[nodiscard]] const policy::PlatformView& current_view() const;
  /// Applies what is valid and counts the rest. `origin`: the autoscaler whose decision this
  /// is, told the outcome of each start command (Autoscaler::started); null for the others.
  void apply(const policy::Decisions& decisions, policy::Autoscaler* origin = nullptr);

  [[nodiscard]] const std::vector<ColdStartRecord>& cold_starts() const { return cold_->log(); }
  [[nodiscard]] std::size_t live_instances() const { return instances_.size(); }
  [[nodiscard]] std::uint64_t queued() const;
  [[nodiscard]] std::uint64_t running() const { return running_requests_; }
  [[nodiscard]] std::uint64_t dropped() const { return dropped_; }
  [[nodiscard]] std::uint64_t completed() const { return completed_; }
  /// Replica queues held (DispatchScope::kInstance): live replicas' and those not yet freed.
  [[nodiscard]] std::size_t instance_queues() const;

 private:
  // FleetEvents.
  void revocation_notice(int host) override;
  RevokedWork revoked(int host) override;
  /// SpotRevokedBatches kDrop / kRequeue: the batch running on `inst` at its host's revocation
  /// ends there; its requests fail or go back through the gateway. The unit still reports the
  /// batch's end (it cannot abort it), which then frees the instance and, the batch's requests
  /// having been taken from the instance here, records nothing. Returns their number.
  std::uint64_t cut_batch(Inst& inst);
  void releasing(int host) override;
  void vm_requested(int host_template, int replaces) override;
  void host_added(int host) override;
  // BatchEvents (request_path.cpp, replicas.cpp).
  /// The one completion path: records the batch's requests (records.hpp); a batch of an
  /// execution unit also frees its instance.
  void batch_finished(FinishedBatch batch) override;
  /// The head of a pipelined replica can take the next batch.
  void head_admits(InstanceId head) override;
  Inst& running(InstanceId id, std::uint64_t serial) override;

  // Control loop (control_plane.cpp).
  void tick();

  // Request path (request_path.cpp).
  void pump(Queue& q);
  void pump_all();
  /// Without idle sets: scans q.idle for the dispatchable instances (dropping the ids no
  /// longer idle) and returns the largest batch one takes; nullopt if there is none.
  std::optional<int> scan_idle(Queue& q);
  // Idle sets (idle_sets.cpp): Queue::dispatchable kept as instances change.
  [[nodiscard]] bool dispatchable(const Inst& inst) const;
  void enter_idle_set(Queue& q, Inst& inst);
  void leave_idle_set(Queue& q, Inst& inst);
  /// q's idle instances (Inst::in_idle), ascending ids.
  [[nodiscard]] std::vector<Inst*> idle_instances(const Queue& q) const;
  /// Rebuilds q's set by the scan (after dispatchable_epoch_ moved).
  void resync_idle_set(Queue& q);
  /// Throws std::logic_error unless q's set is what the scan would find (debug builds check
  /// it before every dispatch).
  void check_idle_set(const Queue& q) const;
  /// Something no idle set follows changed (a host's availability, an instance's `held` or
  /// its latency): every set is rebuilt before its next dispatch.
  void dispatchability_changed() {
    ++dispatchable_epoch_;
    routes_changed();  // a host's availability is also the gateway's
  }
  /// The gateway's cached counts (Queue::gateway) are stale: see route_epoch_.
  void routes_changed() { ++route_epoch_; }
  // Per-node dispatch (DispatchScope::kNode): the gateway (gateway.cpp) and the node queues.
  Queue& route(Queue& cluster, int exclude_host);
  /// The gateway's per-node counts for `cluster`, by host ascending, without `exclude_host`
  /// (-1: none), merged into `out` from the group's routable instances.
  void gateway_counts(const Queue& cluster, int exclude_host, std::vector<GatewayCount>& out);
  /// The same for exclude_host = -1, from cluster.gateway when still current.
  std::vector<GatewayCount>& cached_gateway_counts(Queue& cluster);
  Queue& node_queue(Queue& cluster, int host);
  [[nodiscard]] bool routable(const Inst& inst) const;
  // Per-instance dispatch (DispatchScope::kInstance, instance_routing.cpp).
  Queue& route_instance(Queue& cluster);
  Queue& instance_queue(Queue& cluster, const Inst& inst);
  [[nodiscard]] bool instance_routable(const Inst& inst) const;
  [[nodiscard]] bool serves(const Inst& inst, const Queue& q) const;
  void schedule_reroute();
  void reroute_stranded();
  /// NodeBacklog::kShare: moves a batch of the oldest requests of the longest queue of the
  /// group at a node without an idle instance to `own` (empty); whether it moved any.
  bool share_backlog(Queue& own, const Inst& inst);
  /// Frees the queues of ended replicas that nothing can reach any more (tick()).
  void free_ended_queues();
  /// ContainerMemory::kWeightsResident: whether a batch of `inst` may start now (its
  /// activations fit the free memory of its GPU or slice); always true without activations.
  [[nodiscard]] bool activations_fit(const Inst& inst) const;
  // Eviction of idle containers under memory pressure (EvictIdle, lifecycle.cpp).
  /// The idle instances at `loc` that may be evicted for a container of `fn`: not of `fn`'s
  /// queue, not held, not a replica's part; least recently used (longest idle) first.
  [[nodiscard]] std::vector<Inst*> eviction_candidates(const policy::Location& loc, const Fn& fn);
  /// Before a start at `loc` that does not fit: evicts the shortest least-recently-used prefix
  /// of the candidates after which it fits; false (nothing evicted) when none does.
  bool evict_for_start(const Fn& fn, const policy::InstanceConfig& config,
                       const policy::Location& loc, double bytes, ContainerMemory memory);
  /// When no idle instance of a queue with requests can take a batch (scan_idle): the same for
  /// idle `inst`'s activations, until they fit.
  bool evict_for_activations(const Inst& inst);
  void evict(Inst& victim, std::string_view why, const Fn& for_fn, InstanceId for_instance);
  void release_activations(Inst& inst);
  /// Pumps the queues whose idle instances waited for activation memory (in the order they
  /// first waited), once a batch has released some.
  void pump_memory_waiting();
  /// Hands `batch` to the instance's runner: its execution unit, or a pipelined replica's
  /// pipeline.
  void run_batch(Inst& inst, std::vector<Request> batch);
  /// Keeps a batch's emptied storage for a later dispatch (spare_batches_), if small.
  void recycle(std::vector<Request> batch);

  /// After a start of apply() on `host`: makes the placement view's hosts current again,
  /// refilling only `host` and those marked in placement_stale_ (control_plane.cpp).
  void refresh_placement_view(policy::PlatformView& pv, int host);

  // Instance lifecycle (lifecycle.cpp).
  /// Inline: on every arrival's path (scan_idle) once per idle instance.
  Inst* find(InstanceId id) {
    return id < by_id_.size() ? by_id_[static_cast<std::size_t>(id)] : nullptr;
  }
  /// The one way into instances_: also indexes the instance by id for find().
  void add_instance(std::unique_ptr<Inst> inst);
  /// inst.life.transition(event, now), and its view marked changed (view_changed_): every
  /// transition of the control plane goes through here.
  void transition(Inst& inst, InstanceEvent event, Time now);
  /// The live instances on `host`, ascending ids (empty for an unknown host).
  [[nodiscard]] std::span<const Inst* const> on_host(int host) const;
  bool start_instance(Fn& fn, const policy::InstanceConfig& config,
                      const std::optional<policy::Location>& location, policy::PlatformView& pv,
                      bool warm = false, const PartSetup* part = nullptr);
  void cold_start_ready(Inst& inst);
  void became_idle(Inst& inst);
  /// Its keep-alive ran out: terminate it if it is still idle.
  void keep_alive_expired(InstanceId id);
  void stop_on_host(int host);
  void stop(Inst& inst);
  void terminate(Inst& inst);
  void release_cold_start_memory(Inst& inst);

  // Partitioned replicas: a model's parts on several GPUs, run as a pipeline (replicas.cpp).
  bool start_partitioned(Fn& fn, const policy::InstanceConfig& config,
                         const policy::PartitionSpec& spec, policy::PlatformView& pv);
  void part_ready(Inst& inst);
  void complete_model(InstanceId head);
  void end_replica(Inst& part);
  void detach_pipeline(Inst& head);

  ServerlessConfig config_;
  const gpu::ModelCatalog& catalog_;
  PlatformContext context_;
  Policies policies_;
  Simulation& sim_;

  std::unique_ptr<net::Topology> topology_;
  std::unique_ptr<net::FlowNetwork> flows_;
  std::unique_ptr<net::TransferManager> transfers_;

  DecisionCounts counts_;
  Statistics stats_;              ///< every statistic of the run, fed with events
  Accounting& accounting_;        ///< the neutral one, in stats_ (also told of memory)
  DesiredInstances& desired_;     ///< the instances_desired column, in stats_
  std::unique_ptr<Fleet> fleet_;  ///< built once the topology is
  Instances instances_;
  /// instances_ by id (ids are dense, from 1): find() is on every dispatch's path, where a
  /// map lookup per idle instance cost a sixth of a large run. Null once terminated; one
  /// pointer per instance ever started.
  std::vector<Inst*> by_id_;
  /// Live instances by host, ascending ids: the placement checks (fits) look at one host's.
  std::vector<std::vector<const Inst*>> on_host_;
  std::unique_ptr<ColdStarts> cold_;
  /// Idle instances' keep-alives, tagged by instance id: set at every batch's end and
  /// cancelled at the next batch's start, so kept out of the event queue (TimerSet).
  TimerSet keep_alive_timers_{sim_, [this](std::uint64_t id) { keep_alive_expired(id); }};
  UnitRunner unit_runner_{static_cast<BatchEvents&>(*this)};
  std::unique_ptr<Pipelines> pipelines_;  ///< the runner of pipelined replicas' heads

  std::vector<std::unique_ptr<Fn>> fns_;  ///< by workload function id
  /// Each function's view for KeepAlive::idle_timeout, by function id: built once, refreshed
  /// per call (refresh_function_view), so the per-batch call copies no names or profile data.
  std::vector<policy::FunctionView> keep_alive_views_;
  /// current_view()'s storage: refreshed per call (refresh_view), so that the views built per
  /// dispatched batch for a dispatcher that wants the platform reuse its vectors and strings.
  /// A cache of const state, hence mutable; no call sees what an earlier one left in it.
  mutable policy::PlatformView view_;
  /// The instances whose view may have changed since view_ was last refreshed (a transition:
  /// state, its time, a batch counted), so that a refresh rewrites their views alone rather
  /// than every instance's (a miss or two per instance, per dispatched batch in a Protean run);
  /// view_rebuild_ when any other instance field in the view changed or an instance came or
  /// went: the next refresh walks every instance (view_builder.hpp, ViewInputs::changed).
  mutable std::vector<const Inst*> view_changed_;
  mutable bool view_rebuild_ = true;
  std::vector<std::unique_ptr<Queue>> queues_;  ///< by first member function id
  std::vector<Queue*> node_queues_;     ///< every node (and instance) queue, in creation order
  EventHandle reroute_;                 ///< pending reroute_stranded()
  std::vector<Queue*> memory_waiting_;  ///< see pump_memory_waiting()
  /// route()'s scratch when it excludes a host (rerouting; never nested): the counts without
  /// that host are not cached.
  std::vector<GatewayCount> route_counts_;
  /// Moves when a routable instance may have changed in a way its function's StateCounts do
  /// not show (an instance added or removed, a replica's part made whole, a host's
  /// availability): every cached Queue::gateway is stale.
  std::uint64_t route_epoch_ = 1;
  std::vector<std::unique_ptr<Inst>> graveyard_;  ///< terminated, freed at the next tick

  InstanceId next_instance_ = 1;
  std::uint64_t next_batch_ = 1;
  /// pump()'s scratch, and finished batches' request vectors kept for later dispatches: a
  /// batch allocated and freed one each.
  static constexpr std::size_t kSpareBatches = 256;
  static constexpr std::size_t kSpareCapacity = 4;
  std::vector<std::size_t> pump_order_;
  std::vector<bool> pump_taken_;
  std::vector<std::vector<Request>> spare_batches_;
  bool planned_ = false;
  /// What changed in the hosts since apply()'s placement view was built or last refreshed,
  /// besides the host of the start being refreshed for. A start changes only its own host
  /// before its refresh; its cold start's first steps, which run after it, change that host's
  /// cache (ColdStarts::begin: the rest of a cold start runs from later events); a warm start
  /// dispatches (became_idle), which may touch any host. Refilling 2,000 hosts' views after
  /// each start was the largest single cost of a 2,000-host run.
  struct PlacementStale {
    std::vector<int> hosts;
    bool all = false;
  } placement_stale_;
  std::uint64_t dispatchable_epoch_ = 1;  ///< see dispatchability_changed()

  // Counters for the summary.
  std::uint64_t running_requests_ = 0;
  std::uint64_t dropped_ = 0;
  std::uint64_t completed_ = 0;
  std::uint64_t batches_ = 0;
  /// Requests back in a queue after their batch was cut (spot_revoked_batches requeue), and
  /// when: their next dequeue is not counted again (Fn::dequeued), only its wait since then.
  std::unordered_map<std::uint64_t, Time> requeued_at_;
};

}  // namespace sim::platform::serverless
