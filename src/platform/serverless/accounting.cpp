#include "accounting.hpp"

#include <algorithm>
#include <cmath>
#include <string>

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

// Per-batch function billing (FunctionBilling). Pipelined batches of partitioned replicas are
// not billed: partitioned replicas (Flashpoint) and per-invocation billing (HarmonyBatch) are
// not combined by any scheme yet.
void Accounting::batch_finished(const Inst& inst, const gpu::JobResult& result) {
  auto& warm = warm_by_fn_[inst.fn->id];
  warm.first += (result.finished - result.started).to_seconds();
  ++warm.second;
  if (!billing_) return;
  const FunctionBilling& p = *billing_;
  if (inst.dispatch < p.from) return;
  const bool gpu = inst.loc.gpu >= 0;
  const double d = (result.finished - result.started).to_seconds();
  const double billed = gpu && p.gpu_whole_seconds ? std::ceil(d) : d;
  const FunctionSpec& spec = inst.fn->spec;
  const double cores = spec.billing_cores.value_or(gpu ? 0.0 : inst.config.cpu_cores);
  const double gpu_gb =
      !gpu ? 0.0 : (inst.config.time_slice_gb > 0 ? inst.config.time_slice_gb : inst.device_gb);
  BillingTally& t = billing_by_fn_[inst.fn->id];
  t.usd += p.per_invocation + billed * (cores * p.vcpu_second +
                                        spec.billing_memory_gb.value_or(0.0) * p.memory_gb_second +
                                        gpu_gb * p.gpu_memory_gb_second);
  t.billed_s += billed;
  t.invocations += 1;
  t.requests += inst.batch.size();
}

std::map<std::uint32_t, double> Accounting::warm_execution() const {
  std::map<std::uint32_t, double> out;
  for (const auto& [fn, w] : warm_by_fn_)
    if (w.second > 0) out[fn] = w.first / static_cast<double>(w.second);
  return out;
}

void Accounting::instance_ended(const Inst& inst, Time now) {
  instance_seconds_ += (now - inst.life.created()).to_seconds();
  operators_.instance_ended(inst, now);
}

void Accounting::tick(const policy::PlatformView& v) {
  fragmentation_sum_ += gpu_fragmentation(v).fraction();
  ++fragmentation_samples_;
  operators_.tick(v);
}

void Accounting::desired(const policy::Decisions& d, const Instances& instances) {
  // Flashpoint Fig. 3.2b's "desired" replicas: what the autoscaler asks for, whether or not
  // the cluster can place it yet. Counted in instances (a partitioned replica: its parts), like
  // the reserved and deployed columns.
  double n = 0;
  for (const auto& [id, i] : instances)
    if (i->life.state() != InstanceState::kDraining && !i->stop_after_batch) ++n;
  for (const auto& s : d.start) {
    const auto parts = s.partition ? s.partition->cut_after.size() + 1 : std::size_t{1};
    n += static_cast<double>(s.count) * static_cast<double>(parts);
  }
  for (const auto& s : d.stop) {
    const auto it = instances.find(s.id);
    if (it == instances.end()) continue;
    const Inst& i = *it->second;
    if (i.life.state() == InstanceState::kDraining || i.stop_after_batch) continue;
    n -= 1.0 + static_cast<double>(i.part() == 0 ? i.replica->members.size() : 0);
  }
  desired_ = std::max(n, 0.0);
}

void Accounting::write_summary(json& out, Time end, const Hosts& hosts, const Instances& instances,
                               const std::vector<std::unique_ptr<Fn>>& functions,
                               const policy::PlatformView& end_view) const {
  double host_memory_capacity = 0.0;  // byte-seconds
  double gpu_memory_capacity = 0.0;   // GB-seconds
  for (const auto& h : hosts) {
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
  const auto frag_end = gpu_fragmentation(end_view);
  double inst_s = instance_seconds_;
  for (const auto& [id, i] : instances)
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
  out["fragmentation"] = {
      {"gpu_memory_end", frag_end.fraction()},
      {"gpu_memory_free_gb_end", frag_end.free_gb},
      {"gpu_memory_stranded_gb_end", frag_end.stranded_gb},
      {"gpu_memory_mean", fragmentation_samples_ > 0
                              ? fragmentation_sum_ / static_cast<double>(fragmentation_samples_)
                              : 0.0}};
  out["instance_seconds"] = inst_s;
  if (billing_) {
    BillingTally all;
    double cpu_usd = 0.0;
    double gpu_usd = 0.0;
    json per_function = json::object();
    for (const auto& [id, t] : billing_by_fn_) {
      const Fn& fn = *functions[id];
      all.usd += t.usd;
      all.billed_s += t.billed_s;
      all.invocations += t.invocations;
      all.requests += t.requests;
      (fn.spec.gpu ? gpu_usd : cpu_usd) += t.usd;
      per_function[fn.spec.name] = {
          {"usd", t.usd},
          {"invocations", t.invocations},
          {"requests", t.requests},
          {"usd_per_request", t.requests > 0 ? t.usd / static_cast<double>(t.requests) : 0.0}};
    }
    out["function_billing"] = {
        {"total_usd", all.usd},
        {"cpu_usd", cpu_usd},
        {"gpu_usd", gpu_usd},
        {"billed_seconds", all.billed_s},
        {"invocations", all.invocations},
        {"requests", all.requests},
        {"usd_per_request", all.requests > 0 ? all.usd / static_cast<double>(all.requests) : 0.0},
        {"from_s", billing_->from.to_seconds()},
        {"per_function", per_function}};
  }
  if (!partitioned_by_parts_.empty()) {
    // Flashpoint Fig. 8.10: how many parts the partitioned replicas of the run were cut into.
    json by_parts = json::object();
    std::uint64_t started = 0;
    for (const auto& [parts, n] : partitioned_by_parts_) {
      by_parts[std::to_string(parts)] = n;
      started += n;
    }
    out["partitioned_replicas"] = {{"started", started}, {"by_parts", by_parts}};
  }
  operators_.write_summary(out, end, instances);
}

}  // namespace sim::platform::serverless
