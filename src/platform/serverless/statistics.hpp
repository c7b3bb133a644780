#pragma once
/// Statistics of a run as subscribers to the control plane's events. Each subscriber keeps
/// its own tallies and writes its own block(s) of the summary; the control plane publishes
/// events to `Statistics`, which hands them to every subscriber in the order they were added.
/// A paper-specific statistic (per-invocation billing, the desired-replica count, INFless
/// operator resources, Flashpoint's cold-start figures and partitioned replicas) is a
/// subscriber of its own, so the neutral Accounting knows none.

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model.hpp"
#include "sim/gpu_models/execution_unit.hpp"
#include "sim/policy/decisions.hpp"
#include "sim/policy/platform_view.hpp"

namespace sim::platform::serverless {

/// What the subscribers write their summary blocks from, at the end of a run.
/// A GPU as the lifecycle events name it.
struct GpuRef {
  int host = -1;
  int gpu = -1;     ///< index on its host
  int device = -1;  ///< cluster-wide index (Fleet::global_gpu)
  const cluster::GpuDevice* dev = nullptr;
};

struct SummaryInputs {
  Time end;
  const Hosts& hosts;
  const Instances& instances;
  const std::vector<std::unique_ptr<Fn>>& functions;
  const policy::PlatformView& end_view;             ///< the platform at `end`
  const std::vector<ColdStartRecord>& cold_starts;  ///< every cold start begun (ColdStarts::log)
};

class StatsSubscriber {
 public:
  virtual ~StatsSubscriber() = default;
  /// A batch of `requests` requests ran on `inst`'s execution unit from result.started to
  /// result.finished (inst.dispatch: its dispatch). Pipelined batches are not reported.
  virtual void batch_finished(const Inst& /*inst*/, const gpu::JobResult& /*result*/,
                              std::size_t /*requests*/) {}
  virtual void instance_ended(const Inst& /*inst*/, Time /*now*/) {}
  // The lifecycle (the event log, event_log.hpp, writes them; output.events).
  /// `inst` was placed: cold-starting, or ready at once when `warm`.
  virtual void instance_placed(const Inst& /*inst*/, Time /*now*/, bool /*warm*/) {}
  /// A start command of `fn` was not applied (`why`: start_unplaced, start_invalid).
  virtual void start_rejected(const Fn& /*fn*/, Time /*now*/, std::string_view /*why*/) {}
  /// `inst`'s cold start is over (it may still be stopped at once).
  virtual void instance_ready(const Inst& /*inst*/, Time /*now*/) {}
  /// `inst` stays idle (no queued work took it); its keep-alive ends it after `timeout`
  /// (Time::max(): never).
  virtual void instance_idle(const Inst& /*inst*/, Time /*now*/, Time /*timeout*/) {}
  /// A batch of `requests` requests was dispatched to `inst` (every runner).
  virtual void batch_started(const Inst& /*inst*/, Time /*now*/, std::size_t /*requests*/) {}
  virtual void keep_alive_expired(const Inst& /*inst*/, Time /*now*/) {}
  /// Idle `inst` is evicted (EvictIdle) to make room on its GPU or slice (`ended` follows):
  /// `why` "start" (a container of `for_fn` is placed there) or "activations" (a batch of
  /// instance `for_instance` of `for_fn` starts there; 0 for a start).
  virtual void instance_evicted(const Inst& /*inst*/, Time /*now*/, std::string_view /*why*/,
                                const Fn& /*for_fn*/, InstanceId /*for_instance*/) {}
  /// `inst` is told to stop: `draining` when it finishes its batch first.
  virtual void instance_stopping(const Inst& /*inst*/, Time /*now*/, bool /*draining*/) {}
  /// A MIG reconfiguration of `g`: `phase` "begun" (g.dev has its new geometry, slices
  /// disabled), "ended", or "rejected" (`why`); `requested`: the profiles asked for.
  virtual void gpu_reconfiguration(const GpuRef& /*g*/, Time /*now*/, std::string_view /*phase*/,
                                   std::span<const std::string> /*requested*/,
                                   std::string_view /*why*/) {}
  /// A fleet event of `host` (-1: none yet): vm_requested, host_added, revocation_notice,
  /// revoked, releasing.
  virtual void host_event(int /*host*/, Time /*now*/, std::string_view /*kind*/,
                          std::string_view /*detail*/) {}
  /// A partitioned replica of `parts` parts (instances) was started.
  virtual void replica_started(int /*parts*/) {}
  /// The view of a control tick, before the tick's policies decide.
  virtual void tick(const policy::PlatformView& /*view*/) {}
  /// The autoscaler's decision of a tick, before it is applied; `instances`: the live ones.
  virtual void autoscaler_decided(const policy::Decisions& /*d*/, const Instances& /*instances*/) {}
  virtual void write_summary(nlohmann::json& out, const SummaryInputs& in) const = 0;
};

class Statistics {
 public:
  /// Adds a subscriber; the reference stays valid as long as this object.
  template <class T, class... Args>
  T& add(Args&&... args) {
    auto s = std::make_unique<T>(std::forward<Args>(args)...);
    T& ref = *s;
    subscribers_.push_back(std::move(s));
    return ref;
  }

  void batch_finished(const Inst& inst, const gpu::JobResult& result, std::size_t requests) {
    for (const auto& s : subscribers_)
      s->batch_finished(inst, result, requests);
  }
  void instance_ended(const Inst& inst, Time now) {
    for (const auto& s : subscribers_)
      s->instance_ended(inst, now);
  }
  void instance_placed(const Inst& inst, Time now, bool warm) {
    for (const auto& s : subscribers_)
      s->instance_placed(inst, now, warm);
  }
  void start_rejected(const Fn& fn, Time now, std::string_view why) {
    for (const auto& s : subscribers_)
      s->start_rejected(fn, now, why);
  }
  void instance_ready(const Inst& inst, Time now) {
    for (const auto& s : subscribers_)
      s->instance_ready(inst, now);
  }
  void instance_idle(const Inst& inst, Time now, Time timeout) {
    for (const auto& s : subscribers_)
      s->instance_idle(inst, now, timeout);
  }
  void batch_started(const Inst& inst, Time now, std::size_t requests) {
    for (const auto& s : subscribers_)
      s->batch_started(inst, now, requests);
  }
  void keep_alive_expired(const Inst& inst, Time now) {
    for (const auto& s : subscribers_)
      s->keep_alive_expired(inst, now);
  }
  void instance_evicted(const Inst& inst, Time now, std::string_view why, const Fn& for_fn,
                        InstanceId for_instance) {
    for (const auto& s : subscribers_)
      s->instance_evicted(inst, now, why, for_fn, for_instance);
  }
  void instance_stopping(const Inst& inst, Time now, bool draining) {
    for (const auto& s : subscribers_)
      s->instance_stopping(inst, now, draining);
  }
  void gpu_reconfiguration(const GpuRef& g, Time now, std::string_view phase,
                           std::span<const std::string> requested, std::string_view why) {
    for (const auto& s : subscribers_)
      s->gpu_reconfiguration(g, now, phase, requested, why);
  }
  void host_event(int host, Time now, std::string_view kind, std::string_view detail) {
    for (const auto& s : subscribers_)
      s->host_event(host, now, kind, detail);
  }
  void replica_started(int parts) {
    for (const auto& s : subscribers_)
      s->replica_started(parts);
  }
  void tick(const policy::PlatformView& view) {
    for (const auto& s : subscribers_)
      s->tick(view);
  }
  void autoscaler_decided(const policy::Decisions& d, const Instances& instances) {
    for (const auto& s : subscribers_)
      s->autoscaler_decided(d, instances);
  }
  void write_summary(nlohmann::json& out, const SummaryInputs& in) const {
    for (const auto& s : subscribers_)
      s->write_summary(out, in);
  }

 private:
  std::vector<std::unique_ptr<StatsSubscriber>> subscribers_;
};

}  // namespace sim::platform::serverless
