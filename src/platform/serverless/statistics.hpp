#pragma once
/// Statistics of a run as subscribers to the control plane's events. Each subscriber keeps
/// its own tallies and writes its own block(s) of the summary; the control plane publishes
/// events to `Statistics`, which hands them to every subscriber in the order they were added.
/// A paper-specific statistic (per-invocation billing, the desired-replica count, INFless
/// operator resources, Flashpoint's cold-start figures and partitioned replicas) is a
/// subscriber of its own, so the neutral Accounting knows none.

#include <memory>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model.hpp"
#include "sim/gpu_models/execution_unit.hpp"
#include "sim/policy/decisions.hpp"
#include "sim/policy/platform_view.hpp"

namespace sim::platform::serverless {

/// What the subscribers write their summary blocks from, at the end of a run.
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
