// Value types of HarmonyBatch planning: catalog -> planner coefficients, price tables.

#include "plan_types.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/gpu_models/model_profile.hpp"

namespace sim::policy::harmonybatch {

PlannerModel PlannerModel::from_profile(const gpu::ModelProfile& p) {
  if (!p.gpu || !p.cgpu) {
    throw std::invalid_argument("HarmonyBatch planner: model " + p.name +
                                " needs a gpu (eq. 2) and a cgpu (eq. 3-4) profile");
  }
  PlannerModel m;
  m.name = p.name;
  if (p.cpu) {
    m.cpu_avg = p.cpu->avg;
    m.cpu_max = p.cpu->max;
    if (p.cpu->memory_mb) {
      m.mem_a_mb = p.cpu->memory_mb->value.at(0);
      m.mem_b_mb = p.cpu->memory_mb->value.at(1);
    }
  }
  m.has_cpu = !m.cpu_avg.empty() && m.cpu_avg.size() == m.cpu_max.size();
  m.xi1_s = p.gpu->xi1_s.value;
  m.xi2_s = p.gpu->xi2_s.value;
  m.tau_s = p.cgpu->tau_s.value;
  m.m_max_gb = p.cgpu->m_max_gb.value;
  m.gpu_fraction = p.cgpu->gpu_fraction.value;
  m.cpu_fraction = p.cgpu->cpu_fraction.value;
  m.min_memory_thresholds = p.cgpu->min_memory_thresholds.value;
  if (p.cgpu->function_memory_mb) m.gpu_function_mem_mb = p.cgpu->function_memory_mb->value;
  return m;
}

PriceTable PriceTable::paper() {
  return PriceTable{};
}

PriceTable PriceTable::code() {
  // implementations.md §1.2: 9e-5 per vCPU-s, 9e-6 per GB-s of memory, 1.1e-4 per GB-s of GPU
  // memory, 0.009 per 10,000 invocations (CNY list prices).
  PriceTable p;
  p.name = "code";
  p.vcpu_s = 9e-5;
  p.memory_gb_s = 9e-6;
  p.gpu_memory_gb_s = 1.1e-4;
  p.invocation = 0.009 / 10000.0;
  p.gpu_function_bills_cpu_and_memory = true;
  return p;
}

PriceTable PriceTable::named(const std::string& name) {
  if (name == "paper") return paper();
  if (name == "code") return code();
  throw std::invalid_argument("unknown HarmonyBatch price table \"" + name +
                              "\" (expected \"paper\" or \"code\")");
}

PlannerOptions PlannerOptions::reference_code() {
  PlannerOptions o;
  o.prices = PriceTable::code();
  o.fix_merge_ratio = false;
  o.check_all_slos_on_gpu = false;
  o.forced_stage1_merge = true;
  o.knee_class_stage = true;
  o.cpu_cores_on_grid = false;
  o.skip_loose_slo_batch = true;
  return o;
}

const char* to_string(FunctionType t) {
  return t == FunctionType::kCpu ? "cpu" : "gpu";
}

double Group::rate() const {
  double r = 0.0;
  for (std::size_t i = 0; i < apps.size(); ++i)
    r += apps[i].rate * (i < shares.size() ? shares[i] : 1.0);
  return r;
}

double Group::min_slo() const {
  double s = apps.empty() ? 0.0 : apps.front().slo_s;
  for (const auto& a : apps)
    s = std::min(s, a.slo_s);
  return s;
}

}  // namespace sim::policy::harmonybatch
