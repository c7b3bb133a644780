#include "billing.hpp"

#include <cmath>

namespace sim::platform::serverless {

using nlohmann::json;

// Per-batch function billing (FunctionBilling). Pipelined batches of partitioned replicas are
// not billed: partitioned replicas (Flashpoint) and per-invocation billing (HarmonyBatch) are
// not combined by any scheme yet.
void Billing::batch_finished(const Inst& inst, const gpu::JobResult& result, std::size_t requests) {
  const FunctionBilling& p = prices_;
  if (inst.dispatch < p.from) return;
  const bool gpu = inst.loc.gpu >= 0;
  const double d = (result.finished - result.started).to_seconds();
  const double billed = gpu && p.gpu_whole_seconds ? std::ceil(d) : d;
  const FunctionSpec& spec = inst.fn->spec;
  const double cores = spec.billing_cores.value_or(gpu ? 0.0 : inst.config.cpu_cores);
  const double gpu_gb =
      !gpu ? 0.0 : (inst.config.time_slice_gb > 0 ? inst.config.time_slice_gb : inst.device_gb);
  Tally& t = by_fn_[inst.fn->id];
  t.usd += p.per_invocation + billed * (cores * p.vcpu_second +
                                        spec.billing_memory_gb.value_or(0.0) * p.memory_gb_second +
                                        gpu_gb * p.gpu_memory_gb_second);
  t.billed_s += billed;
  t.invocations += 1;
  t.requests += requests;
}

void Billing::write_summary(json& out, const SummaryInputs& in) const {
  Tally all;
  double cpu_usd = 0.0;
  double gpu_usd = 0.0;
  json per_function = json::object();
  for (const auto& [id, t] : by_fn_) {
    const Fn& fn = *in.functions[id];
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
      {"from_s", prices_.from.to_seconds()},
      {"per_function", per_function}};
}

}  // namespace sim::platform::serverless
