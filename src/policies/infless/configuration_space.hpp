#pragma once
/// INFless's configuration space (batch, CPU threads, GPU SM %) and Algorithm 1's
/// AvailableConfig, over a model's combined operator profile (§3.3).

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "rate_bounds.hpp"
#include "sim/gpu_models/model_profile.hpp"

namespace sim::policy::infless {

/// Combined operator profiling's result per configuration (OperatorModel::cop_ms without the
/// offset), remembered across calls: an autoscaler predicts the latency of every serving
/// instance on every tick, and each prediction walks the operator DAG with a table lookup per
/// operator. The remembered value is the one computed, so predictions are unchanged.
class CopMemo {
 public:
  [[nodiscard]] std::optional<double> cop_ms(const gpu::OperatorModel& model, int batch,
                                             int threads, int gpu_percent);

 private:
  const gpu::OperatorModel* model_ = nullptr;  ///< the model the entries are of
  std::unordered_map<std::uint64_t, std::optional<double>> ms_;
};

/// t_exec = f(b, c, g): combined operator profiling (INFless §3.3) times a safety factor. The
/// paper adds 10% (factor 1 + prediction_offset, the default); its ablations OP1.5 and OP2
/// add 50% and 100% (factors 1.5 and 2).
class LatencyPredictor {
 public:
  /// `factor` nullopt: 1 + the model's prediction_offset. `memo`, if given, remembers the
  /// profile's latencies (it must outlive the predictor).
  LatencyPredictor(const gpu::OperatorModel& model, std::optional<double> factor,
                   CopMemo* memo = nullptr);
  /// Seconds, or nullopt when the configuration is infeasible or was not profiled.
  [[nodiscard]] std::optional<double> t_exec_s(int batch, int threads, int gpu_percent) const;
  [[nodiscard]] const gpu::OperatorModel& model() const { return *model_; }
  [[nodiscard]] double factor() const { return factor_; }

 private:
  const gpu::OperatorModel* model_;
  double factor_;
  CopMemo* memo_;
};

struct Configuration {
  int batch = 1;
  int threads = 0;
  int gpu_percent = 0;
  double t_exec_s = 0.0;  ///< predicted
  RateBounds bounds;
};

/// The batch set B of Algorithm 1: {max, max/2, max/4, ..., 1} in descending order (the
/// profiled batch sizes are powers of two).
std::vector<int> batch_set(int max_batch);

/// Every profiled (threads, gpu %) of batch b that the platform can run (gpu % > 0: a GPU
/// instance needs a positive SM share) with its predicted t_exec and eq. (1) bounds, ordered
/// threads descending, then GPU % descending (the public code's visiting order, so ties in
/// Algorithm 1's argmax go the same way).
std::vector<Configuration> configurations(const LatencyPredictor& predictor, int batch,
                                          double t_slo_s);

/// INFless Algorithm 1, AvailableConfig(b, R_k, t_slo): b = 1 needs t_exec <= t_slo; b > 1
/// needs t_exec <= t_slo / 2 and R_k > r_low (the batch fills before its waiting timeout).
std::vector<Configuration> available_configs(const LatencyPredictor& predictor, int batch,
                                             double residual_rps, double t_slo_s);
/// The same, from batch b's configurations() already computed.
std::vector<Configuration> available_configs(const std::vector<Configuration>& configs, int batch,
                                             double residual_rps, double t_slo_s);

}  // namespace sim::policy::infless
