#pragma once
/// The baselines' uniform scaling (INFless §5.1, Table 3): every instance of a function has the
/// same configuration and the instance count follows the rate, n = ceil(R / r_up).
/// OpenFaaS+: batch 1, 2 CPU threads and 10% of the SMs. BATCH (Ali et al., SC'20) on top of
/// the platform: one (batch, threads, GPU %) per function. INFless describes BATCH as
/// "always prefers a larger batch" over "only three configurations" built from memory-only
/// profiles (§5.2, Fig. 13): rule kLargestBatch. kEfficiency (the best r_up per unified
/// resource over INFless's whole space) is kept as a stronger variant for comparison.

#include <map>
#include <optional>
#include <vector>

#include "configuration_space.hpp"
#include "sim/policy/autoscaler.hpp"
#include "slo_map.hpp"

namespace sim::policy::infless {

/// One resource configuration BATCH may give an instance (threads, SM %).
struct ResourceTier {
  int threads = 2;
  int gpu_percent = 10;
};

enum class BatchRule {
  kLargestBatch,  ///< BATCH as INFless §5.2 describes it
  kEfficiency,    ///< best r_up per unified resource over Algorithm 1's AvailableConfig
};

struct UniformAutoscalerConfig {
  SloMap slo;
  std::size_t rate_window = 0;
  /// > 0: this fixed configuration (OpenFaaS+). 0: BATCH's adaptive choice.
  int batch = 0;
  int threads = 2;
  int gpu_percent = 10;
  int max_batch = 0;  ///< BATCH: largest batch considered; 0 = the function's default
  BatchRule rule = BatchRule::kLargestBatch;
  /// kLargestBatch: the resource tiers, cheapest first (Lambda-style memory tiers extended with
  /// CPU threads and SMs in proportion, INFless §5.1).
  std::vector<ResourceTier> tiers{{2, 10}, {4, 20}, {8, 40}};
  double cpu_gflops_per_thread = 64.0;
  double gpu_gflops = 14200.0;
  bool scale_down = false;  ///< stop surplus idle instances (off: the keep-alive reclaims them)
};

class UniformAutoscaler final : public Autoscaler {
 public:
  explicit UniformAutoscaler(UniformAutoscalerConfig config) : config_(std::move(config)) {}
  Decisions decide(const PlatformView& view) override;

 private:
  UniformAutoscalerConfig config_;
  std::map<std::uint32_t, Configuration> chosen_;  ///< BATCH: per function, while it lives
};

/// BATCH's configuration for rate R: among the batch sizes' available configurations
/// (Algorithm 1's AvailableConfig), the one with the largest r_up / (beta c + g); ties: the
/// larger batch, then the visiting order. nullopt when none is feasible.
std::optional<Configuration> uniform_choice(const LatencyPredictor& predictor, int max_batch,
                                            double rate, double t_slo_s, double beta);

/// BATCH's rule: the largest batch b (of B, descending) that some tier runs within the SLO
/// after the batching timeout -- t_exec <= t_slo / 2 for b > 1 (the other half is the
/// timeout), t_exec <= t_slo for b = 1 -- on the cheapest such tier (unified resource
/// beta * threads + SM %, ties: the earlier tier). Unlike AvailableConfig it does not ask the
/// rate to fill the batch (R >= r_low): BATCH's latency model is the deterministic bound
/// timeout + t_exec, so at a low rate it keeps the large batch and its batches time out.
std::optional<Configuration> largest_batch_choice(const LatencyPredictor& predictor, int max_batch,
                                                  const std::vector<ResourceTier>& tiers,
                                                  double t_slo_s, double beta);

}  // namespace sim::policy::infless
