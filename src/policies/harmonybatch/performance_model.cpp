// HarmonyBatch §III: latency (eq. 1-4), equivalent batching timeout (eq. 5), cost (eq. 6).

#include "performance_model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sim::policy::harmonybatch {

namespace {

const gpu::ExpCoefficients& coeff(const std::vector<gpu::ExpCoefficients>& k, int batch) {
  if (batch < 1 || static_cast<std::size_t>(batch) > k.size()) {
    throw std::invalid_argument("HarmonyBatch: no CPU coefficients for batch " +
                                std::to_string(batch));
  }
  return k[static_cast<std::size_t>(batch - 1)];
}

double l0_s(const PlannerModel& m, int batch) {
  return gpu::gpu_base_latency_s(m.xi1_s, m.xi2_s, batch);
}

// The CPU part of a GPU function's latency: b L0 / min(g/3, 1) (implementations.md §1.4).
double gpu_cpu_part_s(const PlannerModel& m, int gpu_gb, double l0) {
  if (m.cpu_fraction <= 0.0) return 0.0;
  return m.cpu_fraction * l0 / std::min(gpu_gb / 3.0, 1.0);
}

}  // namespace

double round_up_64mb(double mb) {
  return std::ceil(std::floor(mb) / 64.0) * 64.0;
}

double cpu_min_cores_for_memory(const PlannerModel& m, int batch) {
  return round_up_64mb(m.mem_a_mb * batch + m.mem_b_mb) / 4.0 / 1024.0;
}

std::optional<double> cpu_function_memory_gb(const PlannerModel& m, double cores, int batch) {
  double need = round_up_64mb(m.mem_a_mb * batch + m.mem_b_mb) / 1024.0;
  if (need > 4.0 * cores + 1e-12) return std::nullopt;  // at most 4 GB per vCPU
  if (cores > need) need = cores;                       // at least 1 GB per vCPU
  return round_up_64mb(need * 1024.0) / 1024.0;
}

double gpu_function_memory_gb(const PlannerModel& m) {
  return round_up_64mb(m.gpu_function_mem_mb) / 1024.0;
}

int gpu_min_memory_gb(const PlannerModel& m, int batch) {
  const auto& t = m.min_memory_thresholds;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (batch <= t[i]) return static_cast<int>(i) + 1;
  return static_cast<int>(t.size()) + 1;
}

double cpu_avg_latency_s(const PlannerModel& m, double cores, int batch) {
  return gpu::cpu_latency_s(coeff(m.cpu_avg, batch), cores);
}

double cpu_max_latency_s(const PlannerModel& m, double cores, int batch) {
  return gpu::cpu_latency_s(coeff(m.cpu_max, batch), cores);
}

double gpu_avg_latency_s(const PlannerModel& m, int gpu_gb, int batch) {
  const double l0 = l0_s(m, batch);
  return gpu::cgpu_average_latency_s(m.gpu_fraction * l0, gpu_gb, m.m_max_gb) +
         gpu_cpu_part_s(m, gpu_gb, l0);
}

double gpu_max_latency_s(const PlannerModel& m, int gpu_gb, int batch, double overhead) {
  const double l0 = l0_s(m, batch);
  const double scale = gpu_gb >= m.m_max_gb ? 1.0 : overhead;
  return gpu::cgpu_max_latency_s(m.gpu_fraction * l0, gpu_gb, m.m_max_gb, m.tau_s) * scale +
         gpu_cpu_part_s(m, gpu_gb, l0);
}

int formed_batch(int b, double arrivals) {
  if (b <= 1) return b;
  const double formed = std::floor(arrivals) + 1.0;
  return formed < static_cast<double>(b) ? static_cast<int>(formed) : b;  // NaN -> b
}

double equivalent_timeout_s(std::span<const double> t, std::span<const double> r) {
  if (t.size() != r.size() || t.empty()) {
    throw std::invalid_argument("equivalent_timeout_s: need as many timeouts as rates (>= 1)");
  }
  // eq. (5), folded: (T1, r1) + (T2, r2) -> (T1 + η2 (1 - e^{-r1 (T2 - T1)}) / r1, r1 + r2).
  double T = t[0];
  double R = r[0];
  for (std::size_t i = 1; i < t.size(); ++i) {
    const double t2 = t[i];
    const double r2 = r[i];
    if (R <= 0.0) {
      T = t2;
    } else if (r2 > 0.0) {
      T = T + (r2 / (R + r2)) * (1.0 - std::exp(-R * (t2 - T))) / R;
    }
    R += r2;
  }
  return T;
}

std::vector<double> timeouts_for_equivalent(double target_s, std::span<const double> slos,
                                            std::span<const double> rates) {
  // As the code runs it: the body runs at least once when target > 0, the timeouts keep the
  // SLO spacing accumulated pairwise, and the loop stops once the bracket is below 1 ms.
  std::vector<double> t(slos.size(), 0.0);
  double lo = 0.0;
  double hi = target_s;
  while (lo < hi) {
    const double mid = (lo + hi) / 2.0;
    // Past ~1e13 s the doubles around the bracket are more than 1 ms apart, so the code's
    // stopping rule is never met; stop when the bracket can shrink no more.
    if (mid <= lo || mid >= hi) break;
    t[0] = mid;
    for (std::size_t i = 1; i < slos.size(); ++i)
      t[i] = slos[i] - slos[i - 1] + t[i - 1];
    if (equivalent_timeout_s(t, rates) > target_s) {
      hi = mid;
    } else {
      lo = mid;
    }
    if (std::abs(hi - lo) < 0.001) break;
  }
  return t;
}

double cost_per_request(const PriceTable& p, FunctionType type, double cores, double memory_gb,
                        int gpu_gb, double duration_s, int batch) {
  double unit = 0.0;
  double billed = duration_s;
  if (type == FunctionType::kCpu) {
    unit = cores * p.vcpu_s + memory_gb * p.memory_gb_s;
  } else {
    billed = std::ceil(duration_s);  // GPU functions are billed in whole seconds
    // Summed in the code's order (cpu, memory, GPU), so that equal plans cost the same bits.
    if (p.gpu_function_bills_cpu_and_memory) unit = cores * p.vcpu_s + memory_gb * p.memory_gb_s;
    unit += gpu_gb * p.gpu_memory_gb_s;
  }
  return (p.invocation + unit * billed) / batch;
}

}  // namespace sim::policy::harmonybatch
