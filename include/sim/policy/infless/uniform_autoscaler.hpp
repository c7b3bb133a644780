#pragma once
/// The baselines' uniform scaling (INFless §5.1, Table 3): every instance of a function has the
/// same configuration and the instance count follows the rate, n = ceil(R / r_up).
/// OpenFaaS+: batch 1, 2 CPU threads and 10% of the SMs. BATCH (Ali et al., SC'20) on top of
/// the platform: one (batch, threads, GPU %) per function, chosen for throughput per unified
/// resource when the function scales from zero and kept while it has instances.

#include <map>

#include "sim/policy/autoscaler.hpp"
#include "sim/policy/infless/configuration_space.hpp"
#include "sim/policy/infless/slo_map.hpp"

namespace sim::policy::infless {

struct UniformAutoscalerConfig {
  SloMap slo;
  std::size_t rate_window = 0;
  /// > 0: this fixed configuration (OpenFaaS+). 0: BATCH's adaptive choice.
  int batch = 0;
  int threads = 2;
  int gpu_percent = 10;
  int max_batch = 0;  ///< BATCH: largest batch considered; 0 = the function's default
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

}  // namespace sim::policy::infless
