#include "accounting.hpp"

#include <algorithm>

#include "sim/platform/fragmentation.hpp"

namespace sim::platform::serverless {

using nlohmann::json;

void Accounting::memory_changed(Time now, double host_bytes, double gpu_gb) {
  const double dt = (now - memory_since_).to_seconds();
  host_byte_seconds_ += host_reserved_bytes_ * dt;
  gpu_gb_seconds_ += gpu_reserved_gb_ * dt;
  activation_gb_seconds_ += activation_gb_ * dt;
  memory_since_ = now;
  host_reserved_bytes_ += host_bytes;
  gpu_reserved_gb_ += gpu_gb;
}

void Accounting::activations_changed(Time now, double gb) {
  memory_changed(now, 0.0, gb);
  activation_gb_ += gb;
  if (activation_gb_ < 1e-9) activation_gb_ = 0.0;  // no drift
  activation_peak_gb_ = std::max(activation_peak_gb_, activation_gb_);
}

void Accounting::instance_evicted(const Inst& /*inst*/, Time /*now*/, std::string_view why,
                                  const Fn& /*for_fn*/, InstanceId /*for_instance*/) {
  ++(why == "start" ? evictions_for_start_ : evictions_for_activations_);
}

void Accounting::instance_ended(const Inst& inst, Time now) {
  instance_seconds_ += (now - inst.life.created()).to_seconds();
}

void Accounting::tick(const policy::PlatformView& v) {
  fragmentation_sum_ += gpu_fragmentation(v).fraction();
  ++fragmentation_samples_;
}

void Accounting::write_summary(json& out, const SummaryInputs& in) const {
  const Time end = in.end;
  double host_memory_capacity = 0.0;  // byte-seconds
  double gpu_memory_capacity = 0.0;   // GB-seconds
  for (const auto& h : in.hosts) {
    const Time until = h->down_at ? *h->down_at : end;
    const double life_s = until > h->up_since ? (until - h->up_since).to_seconds() : 0.0;
    host_memory_capacity += h->spec.memory_bytes * life_s;
    for (const auto& g : h->gpus)
      gpu_memory_capacity += g->type().memory_gb * life_s;
  }
  // Reservations integrated up to `end`.
  const double tail_s = end > memory_since_ ? (end - memory_since_).to_seconds() : 0.0;
  const double host_used = host_byte_seconds_ + host_reserved_bytes_ * tail_s;
  const double gpu_used = gpu_gb_seconds_ + gpu_reserved_gb_ * tail_s;
  const auto frag_end = gpu_fragmentation(in.end_view);
  double inst_s = instance_seconds_;
  for (const auto& [id, i] : in.instances)
    inst_s += (end - i->life.created()).to_seconds();
  out["memory_utilisation"] = {
      {"host", host_memory_capacity > 0 ? host_used / host_memory_capacity : 0.0},
      {"gpu", gpu_memory_capacity > 0 ? gpu_used / gpu_memory_capacity : 0.0}};
  if (report_activations_) {
    // gpu = gpu_resident + gpu_activations: what instances hold for their lifetime (weights)
    // and what their running batches hold.
    const double act_used = activation_gb_seconds_ + activation_gb_ * tail_s;
    auto& m = out["memory_utilisation"];
    m["gpu_resident"] = gpu_memory_capacity > 0 ? (gpu_used - act_used) / gpu_memory_capacity : 0.0;
    m["gpu_activations"] = gpu_memory_capacity > 0 ? act_used / gpu_memory_capacity : 0.0;
    m["gpu_activations_peak_gb"] = activation_peak_gb_;
    m["dispatches_short_of_memory"] = memory_waits_;
  }
  if (report_evictions_) {
    auto& m = out["memory_utilisation"];
    m["idle_evictions"] = evictions_for_start_ + evictions_for_activations_;
    m["idle_evictions_for_start"] = evictions_for_start_;
    m["idle_evictions_for_activations"] = evictions_for_activations_;
  }
  out["fragmentation"] = {
      {"gpu_memory_end", frag_end.fraction()},
      {"gpu_memory_free_gb_end", frag_end.free_gb},
      {"gpu_memory_stranded_gb_end", frag_end.stranded_gb},
      {"gpu_memory_mean", fragmentation_samples_ > 0
                              ? fragmentation_sum_ / static_cast<double>(fragmentation_samples_)
                              : 0.0}};
  out["instance_seconds"] = inst_s;
}

}  // namespace sim::platform::serverless
