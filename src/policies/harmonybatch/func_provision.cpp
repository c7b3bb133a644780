// funcProvision (HarmonyBatch §IV-B, Theorems 1 and 2) with Alibaba FC's resource rules as the
// public code applies them (implementations.md §1.8-1.9).

#include "func_provision.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "performance_model.hpp"

namespace sim::policy::harmonybatch {

namespace {

struct Columns {
  std::vector<double> slos;
  std::vector<double> rates;
  double total = 0.0;
  double min_slo = std::numeric_limits<double>::infinity();
  double max_slo = -std::numeric_limits<double>::infinity();
};

Columns columns(std::span<const Application> apps) {
  Columns c;
  for (const auto& a : apps) {
    c.slos.push_back(a.slo_s);
    c.rates.push_back(a.rate);
    c.total += a.rate;
    c.min_slo = std::min(c.min_slo, a.slo_s);
    c.max_slo = std::max(c.max_slo, a.slo_s);
  }
  return c;
}

double snap_up(double x, double step) {
  return std::ceil(x / step - 1e-9) * step;
}

// Theorem 1, eq. (14) without the positive factor K1/b: alpha (1 - c/beta) e^{-c/beta} + gamma.
double cost_slope(const gpu::ExpCoefficients& k, double c) {
  return k.alpha * (1.0 - c / k.beta) * std::exp(-c / k.beta) + k.gamma;
}

}  // namespace

std::optional<double> cpu_cost_minimiser(const PlannerModel& m, int batch, double lo, double hi,
                                         double step) {
  const auto& k = m.cpu_avg.at(static_cast<std::size_t>(batch - 1));
  // eq. (14) is increasing on [2 beta, inf): the only root lies there.
  double l = std::max(2.0 * k.beta, lo);
  double r = hi;
  if (l > r || cost_slope(k, l) > 0.0 || cost_slope(k, r) < 0.0) return std::nullopt;
  // Bisection with midpoints on the step grid, exactly as the public code runs it (the body
  // runs at least once; Python's round() is round-half-even, as std::nearbyint by default),
  // so that the same cores come out (implementations.md §1.8, step 4).
  double previous = 0.0;
  while (l < r) {
    const double mid = std::nearbyint(((l + r) / 2.0) / step) * step;
    if (mid == previous) break;
    previous = mid;
    const double d = cost_slope(k, mid);
    if (d < 0.0) {
      l = mid + step;
    } else if (d > 0.0) {
      r = mid;
    } else {
      return mid;
    }
    if (l + step > r) break;
  }
  return l;
}

std::optional<FunctionConfig> provision_cpu(const PlannerModel& m,
                                            std::span<const Application> apps,
                                            const PlannerOptions& o) {
  if (!m.has_cpu || apps.empty()) return std::nullopt;
  const Columns col = columns(apps);
  std::optional<FunctionConfig> best;
  const int max_b = std::min(o.cpu_max_batch, static_cast<int>(m.cpu_avg.size()));
  for (int b = 1; b <= max_b; ++b) {
    // Constraint (9) with equality: the equivalent timeout that fills b on average.
    const double target = col.total > 0.0 ? (b - 1) / col.total : 0.0;
    const auto t = timeouts_for_equivalent(target, col.slos, col.rates);
    const double budget = col.min_slo - t.front();
    const auto& kmax = m.cpu_max[static_cast<std::size_t>(b - 1)];
    if (budget <= kmax.gamma) continue;  // no core count meets the tightest SLO (10)
    double c0 = std::max(o.cpu_min_cores, cpu_min_cores_for_memory(m, b));
    // Constraint (10): L_max(c) <= s_min - t_min, i.e. c >= -beta ln((budget - gamma)/alpha).
    const double c_slo = -std::log((budget - kmax.gamma) / kmax.alpha) * kmax.beta;
    if (c_slo > 0.0) {
      c0 = std::max(c0, c_slo);
    } else if (o.skip_loose_slo_batch) {
      continue;  // the code skips the batch (quirk Q3)
    }
    // Alibaba allocates cores on a 0.05 grid; the code keeps the bound continuous (Q4).
    if (o.cpu_cores_on_grid) c0 = snap_up(c0, o.cpu_step);
    const double c1 = o.cpu_max_cores;
    if (c0 > c1 + 1e-9) continue;
    std::vector<double> candidates{c0, c1};
    if (auto c2 = cpu_cost_minimiser(m, b, c0, c1, o.cpu_step)) candidates.push_back(*c2);
    for (double c : candidates) {
      const auto mem = cpu_function_memory_gb(m, c, b);
      if (!mem) continue;
      const double avg = cpu_avg_latency_s(m, c, b);
      const double cost = cost_per_request(o.prices, FunctionType::kCpu, c, *mem, 0, avg, b);
      if (!best || cost < best->cost_per_request) {
        FunctionConfig f;
        f.type = FunctionType::kCpu;
        f.cores = c;
        f.memory_gb = *mem;
        f.batch = b;
        f.timeouts_s = t;
        f.avg_latency_s = avg;
        f.max_latency_s = cpu_max_latency_s(m, c, b);
        f.cost_per_request = cost;
        best = f;
      }
    }
  }
  return best;
}

std::optional<FunctionConfig> provision_gpu(const PlannerModel& m,
                                            std::span<const Application> apps,
                                            const PlannerOptions& o) {
  if (!m.has_gpu || apps.empty()) return std::nullopt;
  const Columns col = columns(apps);
  const double slo_checked = o.check_all_slos_on_gpu ? col.min_slo : col.max_slo;
  const double mem = gpu_function_memory_gb(m);
  std::optional<FunctionConfig> best;
  for (int g = o.gpu_min_gb; g <= o.gpu_max_gb; ++g) {
    const double cores = g / 3.0;  // Alibaba: a GPU function gets g/3 vCPU
    if (mem > 4.0 * cores) continue;
    std::optional<FunctionConfig> found;
    int lo = 1;
    int hi = o.gpu_max_batch;
    // Theorem 2: the cheapest batch for g is the largest b with floor(r T) + 1 >= b.
    while (lo <= hi) {
      const int b = (lo + hi + 1) / 2;
      if (gpu_min_memory_gb(m, b) > g) {  // constraint (8)
        hi = b - 1;
        continue;
      }
      const double lat = gpu_max_latency_s(m, g, b, o.gpu_max_latency_overhead);
      if (slo_checked < lat) {  // constraint (10)
        hi = b - 1;
        continue;
      }
      std::vector<double> t;
      for (double s : col.slos)
        t.push_back(s - lat);  // t_w = s_w - L_max
      const double T = b == 1 ? 0.0 : equivalent_timeout_s(t, col.rates);
      // Constraint (9): k = floor(R T + 1), compared with b only, so capped at b + 1 before the
      // int conversion (an SLO of 1e20 s makes R T overflow an int).
      const auto k = static_cast<int>(std::min(std::floor(col.total * T + 1.0), b + 1.0));
      bool accept = false;
      if (k == b) {
        accept = true;
      } else if (k < b) {
        hi = b - 1;
      } else if (lo == b) {
        accept = true;
      } else {
        lo = b;
      }
      if (accept) {
        FunctionConfig f;
        f.type = FunctionType::kGpu;
        f.cores = cores;
        f.memory_gb = mem;
        f.gpu_gb = g;
        f.batch = b;
        f.timeouts_s = t;
        f.avg_latency_s = gpu_avg_latency_s(m, g, b);
        f.max_latency_s = lat;
        f.cost_per_request =
            cost_per_request(o.prices, FunctionType::kGpu, cores, mem, g, f.avg_latency_s, b);
        found = f;
        break;
      }
    }
    if (found && (!best || found->cost_per_request < best->cost_per_request)) best = found;
  }
  return best;
}

std::optional<FunctionConfig> provision(const PlannerModel& m, std::span<const Application> apps,
                                        const PlannerOptions& o, AllowedTypes allowed) {
  std::optional<FunctionConfig> cpu;
  std::optional<FunctionConfig> gpu;
  if (allowed != AllowedTypes::kGpuOnly) cpu = provision_cpu(m, apps, o);
  if (allowed != AllowedTypes::kCpuOnly) gpu = provision_gpu(m, apps, o);
  if (cpu && (!gpu || cpu->cost_per_request <= gpu->cost_per_request)) return cpu;
  return gpu;
}

}  // namespace sim::policy::harmonybatch
