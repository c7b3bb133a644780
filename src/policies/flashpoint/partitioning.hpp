#pragma once
/// Model partitioning (Flashpoint thesis §4.1.3, §4.2): the analytical model of a pipelined
/// partitioned replica (eq. 4.1-4.8), the cut-selection dynamic program (eq. 4.10), the
/// precalculated plans over the expected request count x with the exponential search of
/// §4.2.2, the expected request count of eq. 4.14, and the baseline partitioners Gillis and
/// SerFer (§3.1, §8.1.1). Pure functions over per-layer profiles; no platform state.

#include <cstddef>
#include <vector>

namespace sim::policy::flashpoint {

/// One layer: its cold start alone (load + copy), its execution time and the time to send its
/// output to the next partition (output bytes * 8 / link rate).
struct LayerCost {
  double cold_start_s = 0.0;
  double exec_s = 0.0;
  double transfer_s = 0.0;
  double bytes = 0.0;  ///< weights of the layer (Gillis/SerFer memory limit)
};

/// Table 4.1: C, E, N, IN and I of a partition plan (cuts after the listed layers).
struct PlanCosts {
  std::vector<int> cut_after;   ///< ascending layer indices; empty = the full model
  double cold_start_s = 0.0;    ///< C: the longest partition cold start
  double max_exec_s = 0.0;      ///< E: the longest partition execution
  double max_transfer_s = 0.0;  ///< N: the longest transfer at a cut
  double incurred_s = 0.0;      ///< IN: the sum of the transfers at the cuts
  double inference_s = 0.0;     ///< I = I(1) + IN (eq. 4.2)
  [[nodiscard]] int partitions() const { return static_cast<int>(cut_after.size()) + 1; }
  /// The pipeline's bottleneck stage max(E, N) (eq. 4.3).
  [[nodiscard]] double bottleneck_s() const {
    return max_exec_s > max_transfer_s ? max_exec_s : max_transfer_s;
  }
};

PlanCosts plan_costs(const std::vector<LayerCost>& layers, const std::vector<int>& cut_after);

/// Eq. 4.5: waiting time of the y-th request for a plan of p partitions on P GPUs.
double waiting_time_s(const PlanCosts& plan, long y, int gpus);
/// Eq. 4.7: T(p, y, P) = C + W + I.
double total_time_s(const PlanCosts& plan, long y, int gpus);
/// Eq. 4.8: the average of T over y = 1..x.
double average_time_s(const PlanCosts& plan, long x, int gpus);

/// Eq. 4.10 for a fixed number of partitions p: the cuts whose plan has the lowest average
/// time (eq. 4.8) for x requests on `gpus` GPUs. The thesis's interval recursion (split
/// (i, j, c) at k into (i, k, c_l) and (k+1, j, c-1-c_l)) covers the same partitions as peeling
/// off the leftmost partition, which is what this DP does: O(n^2 p) instead of O(n^3 p^2).
/// Sub-results are kept by their own eq.-4.8 value, as in the thesis (a heuristic: eq. 4.8 is
/// not additive over parts).
PlanCosts best_plan_with(const std::vector<LayerCost>& layers, int partitions, long x, int gpus);

/// The best plan over 1..max_partitions partitions (eq. 4.9 at a single x).
PlanCosts best_plan(const std::vector<LayerCost>& layers, int max_partitions, long x, int gpus);

/// §4.2.2: ranges of x with the same optimal number of partitions, found by exponential search
/// from x = 1 (double the step until the optimum changes, then bisect) up to max_x (3000 in
/// the thesis). `plans_by_p[p-1]` is the best plan with p partitions at the range's start
/// (used when the autoscaler scales up by fewer replicas than the optimum).
struct PlanRange {
  long from = 1;
  long to = 1;  ///< inclusive
  PlanCosts best;
  std::vector<PlanCosts> plans_by_p;
};
struct PlanTable {
  std::vector<PlanRange> ranges;
  std::size_t evaluations = 0;  ///< best_plan calls (the search's cost)
  /// The plan for x requests with at most `max_partitions` partitions.
  [[nodiscard]] const PlanCosts& lookup(long x, int max_partitions) const;
};
/// `gpus_for(p)`: the GPUs the comparison uses for p partitions (the thesis uses P = the
/// maximum number of partitions for every p, §4.2.1 Fig. 4.8).
PlanTable precalculate_plans(const std::vector<LayerCost>& layers, int max_partitions, long max_x);

/// Eq. 4.14: E(x) = q_l + (lambda - mu) * C(1), the requests a scale-up is expected to serve.
double expected_requests(double queue_length, double arrival_rate, double service_rate,
                         double full_cold_start_s);

/// Gillis (§3.1): the fewest partitions whose weights each fit `limit_bytes` (greedy: close a
/// partition when the next layer would overflow it). SerFer: one partition per layer group
/// that fits, cutting wherever the running size passes half the limit, i.e. more partitions,
/// ignoring transfer cost. Both return the cuts.
std::vector<int> gillis_cuts(const std::vector<LayerCost>& layers, double limit_bytes);
std::vector<int> serfer_cuts(const std::vector<LayerCost>& layers, double limit_bytes);

/// §4.1.3 worked examples: `requests` queued requests served after `cold_start_s` by
/// `replicas` independent replicas, each a flow shop of `stages` (execution and transfer
/// times, alternating). pipelined: a stage takes the next request as soon as it passed the
/// previous one on; otherwise a replica admits a request only when the previous one left its
/// last stage. Requests go to replicas in turn. Returns the average completion time.
double worked_example_average_s(int requests, int replicas, double cold_start_s,
                                const std::vector<double>& stages, bool pipelined);

/// Thesis eq. 3.1-3.2: service rate mu = m * c(f), c(f) = min(memory ratio, compute ratio).
double concurrency(double gpu_memory, double fn_memory, double gpu_compute, double fn_compute);
/// Eq. 3.5: expected wait during excess demand, (lambda / mu - 1) * E(d_c).
double expected_wait_s(double arrival_rate, double service_rate, double cold_start_s);
/// Eq. 3.7: r = lambda / (c_f * m) - 1, the ratio of instances to create to current ones.
double scale_ratio(double arrival_rate, double concurrency_per_gpu, int instances);
/// Eq. 3.6: E(d_c) = r * E(d_c,d) + E(d_c,l) + E(d_c,s).
double expected_cold_start_s(double ratio, double download_s, double load_s, double send_s);

}  // namespace sim::policy::flashpoint
