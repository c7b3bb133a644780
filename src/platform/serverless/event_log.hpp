#pragma once
/// The lifecycle event log (output.events) as a statistics subscriber: it turns the control
/// plane's events into LifecycleEvent rows for the run's sink (events.csv). It names what it
/// sees (function, model, instance, host, GPU, slice and its profile) and knows no policy.
/// Batch events are logged at EventLevel::kAll only (one row each per batch: the volume).

#include "sim/metrics/event_log.hpp"
#include "statistics.hpp"

namespace sim::platform::serverless {

class EventLog final : public StatsSubscriber {
 public:
  EventLog(metrics::EventSink sink, metrics::EventLevel level);

  void instance_placed(const Inst& inst, Time now, bool warm) override;
  void start_rejected(const Fn& fn, Time now, std::string_view why) override;
  void instance_ready(const Inst& inst, Time now) override;
  void instance_idle(const Inst& inst, Time now, Time timeout) override;
  void batch_started(const Inst& inst, Time now, std::size_t requests) override;
  void batch_finished(const Inst& inst, const gpu::JobResult& result,
                      std::size_t requests) override;
  void keep_alive_expired(const Inst& inst, Time now) override;
  void instance_evicted(const Inst& inst, Time now, std::string_view why, const Fn& for_fn,
                        InstanceId for_instance) override;
  void instance_stopping(const Inst& inst, Time now, bool draining) override;
  void instance_ended(const Inst& inst, Time now) override;
  void gpu_reconfiguration(const GpuRef& g, Time now, std::string_view phase,
                           std::span<const std::string> requested, std::string_view why) override;
  void host_event(int host, Time now, std::string_view kind, std::string_view detail) override;
  void write_summary(nlohmann::json& /*out*/, const SummaryInputs& /*in*/) const override {}

 private:
  /// An event of `inst` at its place, with `detail`.
  void emit(const Inst& inst, Time now, std::string_view event, int batch, std::string detail);

  metrics::EventSink sink_;
  metrics::EventLevel level_;
};

}  // namespace sim::platform::serverless
