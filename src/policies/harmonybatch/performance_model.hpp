#pragma once
/// HarmonyBatch's latency and cost model (§III): eq. 1-4 through sim::gpu's formulas, the
/// equivalent batching timeout (eq. 5), the per-request cost (eq. 6), and Alibaba Function
/// Compute's resource rules as the public code applies them (implementations.md §1.3-1.7).

#include <optional>
#include <span>

#include "plan_types.hpp"

namespace sim::policy::harmonybatch {

/// The integer part of `mb`, rounded up to a multiple of 64 MB (implementations.md §1.5).
double round_up_64mb(double mb);

/// CPU function memory in GB for c cores and batch b, or nullopt when it needs more than
/// 4 GB per vCPU; at least 1 GB per vCPU (Alibaba FC rules, implementations.md §1.5).
std::optional<double> cpu_function_memory_gb(const PlannerModel& m, double cores, int batch);
/// Cores below which a batch's memory exceeds 4 GB per vCPU.
double cpu_min_cores_for_memory(const PlannerModel& m, int batch);
/// GPU function host memory in GB (64 MB multiple).
double gpu_function_memory_gb(const PlannerModel& m);
/// Minimum GPU memory of a batch (constraint 8), from the model's thresholds.
int gpu_min_memory_gb(const PlannerModel& m, int batch);

/// eq. 1 with the avg or max coefficients of batch b.
double cpu_avg_latency_s(const PlannerModel& m, double cores, int batch);
double cpu_max_latency_s(const PlannerModel& m, double cores, int batch);
/// eq. 2-3 with the code's CPU part: (M/g) a L0 + b L0 / min(g/3, 1).
double gpu_avg_latency_s(const PlannerModel& m, int gpu_gb, int batch);
/// eq. 4 times `overhead` (not at g = M_max), plus the CPU part.
double gpu_max_latency_s(const PlannerModel& m, int gpu_gb, int batch, double overhead);

/// The batch that forms on average when up to b requests are collected while `arrivals`
/// (= rate × timeout) more arrive after the first: min(b, floor(arrivals) + 1) (HarmonyBatch's
/// b_avg). Computed in double before the int conversion, so huge or infinite products (an SLO of
/// 1e20 s) give b; NaN gives b.
int formed_batch(int b, double arrivals);

/// eq. 5 folded left over applications sorted by timeout: (T_eq, Σ r).
double equivalent_timeout_s(std::span<const double> timeouts_s, std::span<const double> rates);

/// The code's timeout solver for CPU functions: timeouts t_w = x + (s_w - s_1) with x
/// bisected on [0, T] until T_eq ≈ T (to 1 ms). T = 0 gives all zeros.
std::vector<double> timeouts_for_equivalent(double target_s, std::span<const double> slos,
                                            std::span<const double> rates);

/// eq. 6: (K3 + D' (c K1 + mem Kmem + g K2)) / b with D' = ceil(D) for GPU functions
/// (whole-second billing).
double cost_per_request(const PriceTable& p, FunctionType type, double cores, double memory_gb,
                        int gpu_gb, double duration_s, int batch);

}  // namespace sim::policy::harmonybatch
