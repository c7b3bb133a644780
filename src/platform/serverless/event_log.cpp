#include "event_log.hpp"

#include <fmt/format.h>

#include "sim/metrics/csv_format.hpp"

namespace sim::platform::serverless {

namespace {

/// "1g.5gb+3g.20gb+...": a MIG GPU's slices in index order (empty for a whole GPU).
std::string geometry_text(const cluster::GpuDevice* dev) {
  std::string out;
  if (dev == nullptr || !dev->mig()) return out;
  const gpu::MigGpu& m = *dev->mig_gpu();
  for (std::size_t i = 0; i < m.slice_count(); ++i) {
    if (i > 0) out += '+';
    out += m.slice_profile(i).name;
  }
  return out;
}

std::string joined(std::span<const std::string> profiles) {
  std::string out;
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    if (i > 0) out += '+';
    out += profiles[i];
  }
  return out;
}

}  // namespace

EventLog::EventLog(metrics::EventSink sink, metrics::EventLevel level)
    : sink_(std::move(sink)), level_(level) {}

void EventLog::emit(const Inst& inst, Time now, std::string_view event, int batch,
                    std::string detail) {
  metrics::LifecycleEvent e;
  e.time = now;
  e.event = event;
  e.function = inst.fn->spec.name;
  e.model = inst.fn->spec.model;
  e.instance = static_cast<std::int64_t>(inst.id);
  e.host = inst.loc.host;
  e.gpu = inst.loc.gpu;
  e.device = inst.device;
  e.slice = inst.loc.slice;
  // An instance's GPU is not reconfigured while it lives (ControlPlane::apply), so its slice
  // index names the same slice for its whole life.
  if (inst.gpu != nullptr && inst.gpu->mig() && inst.loc.slice >= 0 &&
      static_cast<std::size_t>(inst.loc.slice) < inst.gpu->mig_gpu()->slice_count()) {
    e.profile = inst.gpu->mig_gpu()->slice_profile(static_cast<std::size_t>(inst.loc.slice)).name;
  }
  e.batch = batch;
  e.detail = std::move(detail);
  sink_(e);
}

void EventLog::instance_placed(const Inst& inst, Time now, bool warm) {
  emit(inst, now, "placed", -1,
       fmt::format("start={};max_batch={}", warm ? "warm" : "cold", inst.config.max_batch));
}

void EventLog::start_rejected(const Fn& fn, Time now, std::string_view why) {
  metrics::LifecycleEvent e;
  e.time = now;
  e.event = "start_rejected";
  e.function = fn.spec.name;
  e.model = fn.spec.model;
  e.detail = fmt::format("why={}", why);
  sink_(e);
}

void EventLog::instance_ready(const Inst& inst, Time now) {
  emit(inst, now, "ready", -1, {});
}

void EventLog::instance_idle(const Inst& inst, Time now, Time timeout) {
  emit(inst, now, "idle", -1,
       timeout == Time::max() ? std::string("keep_alive_s=inf")
                              : "keep_alive_s=" + metrics::format_seconds(timeout));
}

void EventLog::batch_started(const Inst& inst, Time now, std::size_t requests) {
  if (level_ != metrics::EventLevel::kAll) return;
  emit(inst, now, "batch_start", static_cast<int>(requests), {});
}

void EventLog::batch_finished(const Inst& inst, const gpu::JobResult& result,
                              std::size_t requests) {
  if (level_ != metrics::EventLevel::kAll) return;
  emit(inst, result.finished, "batch_end", static_cast<int>(requests),
       "exec_s=" + metrics::format_seconds(result.finished - result.started));
}

void EventLog::keep_alive_expired(const Inst& inst, Time now) {
  emit(inst, now, "keep_alive_expired", -1, {});
}

void EventLog::instance_evicted(const Inst& inst, Time now, std::string_view why, const Fn& for_fn,
                                InstanceId for_instance) {
  std::string detail = fmt::format("why={};for_function={}", why, for_fn.spec.name);
  if (for_instance != 0) detail += fmt::format(";for_instance={}", for_instance);
  emit(inst, now, "evicted", -1, detail);
}

void EventLog::instance_stopping(const Inst& inst, Time now, bool draining) {
  emit(inst, now, "stop", -1, draining ? "after_batch=1" : "after_batch=0");
}

void EventLog::instance_ended(const Inst& inst, Time now) {
  emit(inst, now, "ended", -1, fmt::format("batches={}", inst.batches));
}

void EventLog::gpu_reconfiguration(const GpuRef& g, Time now, std::string_view phase,
                                   std::span<const std::string> requested, std::string_view why) {
  metrics::LifecycleEvent e;
  e.time = now;
  e.host = g.host;
  e.gpu = g.gpu;
  e.device = g.device;
  std::string event = "reconfigure_" + std::string(phase);
  e.event = event;
  e.detail = "geometry=" + geometry_text(g.dev);
  if (phase != "ended") e.detail += ";requested=" + joined(requested);
  if (!why.empty()) e.detail += fmt::format(";why={}", why);
  sink_(e);
}

void EventLog::host_event(int host, Time now, std::string_view kind, std::string_view detail) {
  metrics::LifecycleEvent e;
  e.time = now;
  e.event = kind;
  e.host = host;
  e.detail = std::string(detail);
  sink_(e);
}

}  // namespace sim::platform::serverless
