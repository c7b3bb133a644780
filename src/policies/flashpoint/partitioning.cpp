#include "partitioning.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace sim::policy::flashpoint {

PlanCosts plan_costs(const std::vector<LayerCost>& layers, const std::vector<int>& cut_after) {
  const int n = static_cast<int>(layers.size());
  PlanCosts p;
  p.cut_after = cut_after;
  double part_cold = 0.0;
  double part_exec = 0.0;
  std::size_t next = 0;
  for (int i = 0; i < n; ++i) {
    const auto& l = layers[static_cast<std::size_t>(i)];
    part_cold += l.cold_start_s;
    part_exec += l.exec_s;
    p.inference_s += l.exec_s;
    const bool cut = next < cut_after.size() && cut_after[next] == i;
    if (cut || i == n - 1) {
      p.cold_start_s = std::max(p.cold_start_s, part_cold);
      p.max_exec_s = std::max(p.max_exec_s, part_exec);
      part_cold = part_exec = 0.0;
    }
    if (cut) {
      if (i == n - 1) throw std::invalid_argument("plan_costs: a cut after the last layer");
      p.max_transfer_s = std::max(p.max_transfer_s, l.transfer_s);
      p.incurred_s += l.transfer_s;
      ++next;
    }
  }
  if (next != cut_after.size()) throw std::invalid_argument("plan_costs: cuts not ascending");
  p.inference_s += p.incurred_s;
  return p;
}

namespace {

/// floor(P / p): full pipelines of p GPUs that fit on P GPUs (eq. 4.5); 0 when p > P.
long pipelines(int partitions, int gpus) {
  return gpus / std::max(1, partitions);
}

/// Sum over y = 1..x of (ceil(y / f) - 1).
double wait_steps_sum(long x, long f) {
  const long full = x / f;
  const long rem = x % f;
  return static_cast<double>(f) * static_cast<double>(full) * static_cast<double>(full - 1) / 2.0 +
         static_cast<double>(rem) * static_cast<double>(full);
}

}  // namespace

// Eq. 4.5: W(p, x, P) = max(E, N) * (ceil(x / floor(P / p)) - 1).
double waiting_time_s(const PlanCosts& plan, long y, int gpus) {
  const long f = pipelines(plan.partitions(), gpus);
  if (f <= 0) return std::numeric_limits<double>::infinity();
  return plan.bottleneck_s() * static_cast<double>((y + f - 1) / f - 1);
}

double total_time_s(const PlanCosts& plan, long y, int gpus) {
  return plan.cold_start_s + waiting_time_s(plan, y, gpus) + plan.inference_s;
}

// Eq. 4.8 in closed form (the sum of eq. 4.5's steps over y = 1..x).
double average_time_s(const PlanCosts& plan, long x, int gpus) {
  const long f = pipelines(plan.partitions(), gpus);
  if (f <= 0 || x <= 0) return std::numeric_limits<double>::infinity();
  return plan.cold_start_s + plan.inference_s +
         plan.bottleneck_s() * wait_steps_sum(x, f) / static_cast<double>(x);
}

PlanCosts best_plan_with(const std::vector<LayerCost>& layers, int partitions, long x, int gpus) {
  const int n = static_cast<int>(layers.size());
  if (n == 0) throw std::invalid_argument("best_plan_with: no layers");
  if (partitions < 1 || partitions > n) {
    throw std::invalid_argument("best_plan_with: partitions must be in [1, " + std::to_string(n) +
                                "], found " + std::to_string(partitions));
  }
  const long f = std::max(1L, pipelines(partitions, gpus));
  const double steps = wait_steps_sum(std::max(1L, x), f) / static_cast<double>(std::max(1L, x));
  // best[q][i]: layers i..n-1 in exactly q parts, kept as scalars plus the end k of its
  // leftmost part (the cuts are rebuilt at the end, so the inner loop copies nothing).
  struct Cell {
    double cold = 0.0, exec = 0.0, transfer = 0.0, incurred = 0.0;
    int first_end = -1;
    bool ok = false;
  };
  const auto idx = [n](int q, int i) {
    return static_cast<std::size_t>(q) * static_cast<std::size_t>(n) + static_cast<std::size_t>(i);
  };
  std::vector<Cell> best(static_cast<std::size_t>(partitions + 1) * static_cast<std::size_t>(n));
  double suffix_cold = 0.0;
  double suffix_exec = 0.0;
  for (int i = n - 1; i >= 0; --i) {
    suffix_cold += layers[static_cast<std::size_t>(i)].cold_start_s;
    suffix_exec += layers[static_cast<std::size_t>(i)].exec_s;
    Cell& one = best[idx(1, i)];
    one.cold = suffix_cold;
    one.exec = suffix_exec;
    one.first_end = n - 1;
    one.ok = true;
  }
  for (int q = 2; q <= partitions; ++q) {
    for (int i = n - q; i >= 0; --i) {
      double leaf_cold = 0.0;
      double leaf_exec = 0.0;
      double best_score = std::numeric_limits<double>::infinity();
      Cell chosen;
      for (int k = i; k <= n - q; ++k) {  // leftmost part = layers i..k, then q-1 parts
        const auto& l = layers[static_cast<std::size_t>(k)];
        leaf_cold += l.cold_start_s;
        leaf_exec += l.exec_s;
        const Cell& rest = best[idx(q - 1, k + 1)];
        if (!rest.ok) continue;
        Cell c;
        c.cold = std::max(leaf_cold, rest.cold);
        c.exec = std::max(leaf_exec, rest.exec);
        c.transfer = std::max(l.transfer_s, rest.transfer);
        c.incurred = l.transfer_s + rest.incurred;
        // Score of a (sub)plan: C + steps * max(E, N) + IN, its share of eq. 4.8 (the
        // execution sum is the same for every split of one suffix).
        const double s = c.cold + steps * std::max(c.exec, c.transfer) + c.incurred;
        if (s < best_score) {
          best_score = s;
          c.first_end = k;
          c.ok = true;
          chosen = c;
        }
      }
      best[idx(q, i)] = chosen;
    }
  }
  std::vector<int> cuts;
  int i = 0;
  for (int q = partitions; q > 1; --q) {
    const int k = best[idx(q, i)].first_end;
    cuts.push_back(k);
    i = k + 1;
  }
  // Recompute C, E, N, IN, I from the cuts (exact, and fills the inference time).
  return plan_costs(layers, cuts);
}

PlanCosts best_plan(const std::vector<LayerCost>& layers, int max_partitions, long x, int gpus) {
  const int top = std::min(max_partitions, static_cast<int>(layers.size()));
  PlanCosts chosen = plan_costs(layers, {});
  double t = average_time_s(chosen, x, gpus);
  for (int p = 2; p <= top; ++p) {
    PlanCosts c = best_plan_with(layers, p, x, gpus);
    const double tc = average_time_s(c, x, gpus);
    if (tc < t) {
      t = tc;
      chosen = std::move(c);
    }
  }
  return chosen;
}

const PlanCosts& PlanTable::lookup(long x, int max_partitions) const {
  if (ranges.empty()) throw std::logic_error("PlanTable::lookup: empty table");
  const PlanRange* r = &ranges.back();
  for (const auto& range : ranges) {
    if (x <= range.to) {
      r = &range;
      break;
    }
  }
  if (r->best.partitions() <= max_partitions) return r->best;
  const int p = std::clamp(max_partitions, 1, static_cast<int>(r->plans_by_p.size()));
  return r->plans_by_p[static_cast<std::size_t>(p - 1)];
}

// §4.2.2: exponential search for the first x at which the optimal number of partitions
// changes, then bisection; repeated until max_x. P (the GPUs of the comparison) = the
// maximum number of partitions, as in §4.2.1.
PlanTable precalculate_plans(const std::vector<LayerCost>& layers, int max_partitions, long max_x) {
  PlanTable table;
  const int top = std::min(max_partitions, static_cast<int>(layers.size()));
  const auto optimum = [&](long x) {
    ++table.evaluations;
    return best_plan(layers, top, x, top);
  };
  long from = 1;
  PlanCosts current = optimum(from);
  while (from <= max_x) {
    long same = from;
    long step = 1;
    long differs = -1;
    PlanCosts next;
    while (same < max_x) {
      const long probe = std::min(same + step, max_x);
      PlanCosts c = optimum(probe);
      if (c.partitions() != current.partitions()) {
        differs = probe;
        next = std::move(c);
        break;
      }
      same = probe;
      step *= 2;
    }
    if (differs > 0) {
      // Bisect (same, differs] for the first x whose optimum differs.
      while (differs - same > 1) {
        const long mid = same + (differs - same) / 2;
        PlanCosts c = optimum(mid);
        if (c.partitions() != current.partitions()) {
          differs = mid;
          next = std::move(c);
        } else {
          same = mid;
        }
      }
    }
    PlanRange range;
    range.from = from;
    range.to = differs > 0 ? differs - 1 : max_x;
    range.best = current;
    for (int p = 1; p <= top; ++p) {
      range.plans_by_p.push_back(p == 1 ? plan_costs(layers, {})
                                        : best_plan_with(layers, p, from, top));
    }
    table.ranges.push_back(std::move(range));
    if (differs < 0) break;
    from = differs;
    current = std::move(next);
  }
  return table;
}

// Eq. 4.14.
double expected_requests(double queue_length, double arrival_rate, double service_rate,
                         double full_cold_start_s) {
  return queue_length + (arrival_rate - service_rate) * full_cold_start_s;
}

std::vector<int> gillis_cuts(const std::vector<LayerCost>& layers, double limit_bytes) {
  std::vector<int> cuts;
  double part = 0.0;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (part > 0.0 && part + layers[i].bytes > limit_bytes) {
      cuts.push_back(static_cast<int>(i) - 1);
      part = 0.0;
    }
    part += layers[i].bytes;
  }
  return cuts;
}

std::vector<int> serfer_cuts(const std::vector<LayerCost>& layers, double limit_bytes) {
  // Assumption (the thesis gives no algorithm): SerFer splits wherever the running size
  // passes half the limit, ignoring transfers, so it cuts more often than Gillis.
  std::vector<int> cuts;
  double part = 0.0;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (part > 0.0 && part + layers[i].bytes > limit_bytes / 2.0) {
      cuts.push_back(static_cast<int>(i) - 1);
      part = 0.0;
    }
    part += layers[i].bytes;
  }
  return cuts;
}

double worked_example_average_s(int requests, int replicas, double cold_start_s,
                                const std::vector<double>& stages, bool pipelined) {
  if (requests <= 0 || replicas <= 0 || stages.empty()) {
    throw std::invalid_argument("worked_example_average_s: needs requests, replicas, stages");
  }
  // Per replica: when each stage is next free.
  std::vector<std::vector<double>> free_at(static_cast<std::size_t>(replicas),
                                           std::vector<double>(stages.size(), cold_start_s));
  double sum = 0.0;
  for (int y = 0; y < requests; ++y) {
    auto& f = free_at[static_cast<std::size_t>(y % replicas)];
    double t = pipelined ? f.front() : f.back();
    for (std::size_t s = 0; s < stages.size(); ++s) {
      t = std::max(t, f[s]) + stages[s];
      f[s] = t;
    }
    sum += t;
  }
  return sum / static_cast<double>(requests);
}

double concurrency(double gpu_memory, double fn_memory, double gpu_compute, double fn_compute) {
  return std::min(gpu_memory / fn_memory, gpu_compute / fn_compute);
}

double expected_wait_s(double arrival_rate, double service_rate, double cold_start_s) {
  return (arrival_rate / service_rate - 1.0) * cold_start_s;
}

double scale_ratio(double arrival_rate, double concurrency_per_gpu, int instances) {
  return arrival_rate / (concurrency_per_gpu * static_cast<double>(instances)) - 1.0;
}

double expected_cold_start_s(double ratio, double download_s, double load_s, double send_s) {
  return ratio * download_s + load_s + send_s;
}

}  // namespace sim::policy::flashpoint
