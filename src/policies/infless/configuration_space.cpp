#include "configuration_space.hpp"

#include <algorithm>

namespace sim::policy::infless {

LatencyPredictor::LatencyPredictor(const gpu::OperatorModel& model, std::optional<double> factor)
    : model_(&model), factor_(factor.value_or(1.0 + model.prediction_offset.value)) {}

std::optional<double> LatencyPredictor::t_exec_s(int batch, int threads, int gpu_percent) const {
  // INFless §3.3: combined operator profiling, then the safety factor (+10% in the paper).
  const auto ms = model_->cop_ms(batch, threads, gpu_percent, /*with_offset=*/false);
  if (!ms) return std::nullopt;
  return *ms * factor_ / 1000.0;
}

std::vector<int> batch_set(int max_batch) {
  std::vector<int> out;
  int b = 1;
  while (b * 2 <= max_batch)
    b *= 2;
  for (; b >= 1; b /= 2)
    out.push_back(b);
  return out;
}

std::vector<Configuration> configurations(const LatencyPredictor& predictor, int batch,
                                          double t_slo_s) {
  auto configs = predictor.model().configurations();
  std::sort(configs.begin(), configs.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second > b.second;
  });
  std::vector<Configuration> out;
  for (const auto& [threads, gpu] : configs) {
    if (gpu <= 0) continue;  // CPU-only instances: not a GPU instance on this platform
    const auto t = predictor.t_exec_s(batch, threads, gpu);
    if (!t) continue;
    out.push_back({batch, threads, gpu, *t, rate_bounds(*t, t_slo_s, batch)});
  }
  return out;
}

std::vector<Configuration> available_configs(const LatencyPredictor& predictor, int batch,
                                             double residual_rps, double t_slo_s) {
  return available_configs(configurations(predictor, batch, t_slo_s), batch, residual_rps, t_slo_s);
}

std::vector<Configuration> available_configs(const std::vector<Configuration>& configs, int batch,
                                             double residual_rps, double t_slo_s) {
  std::vector<Configuration> out;
  for (const Configuration& c : configs) {
    // INFless Algorithm 1, lines 20-26.
    if (batch == 1) {
      if (c.t_exec_s <= t_slo_s) out.push_back(c);
    } else if (c.t_exec_s <= t_slo_s / 2.0 && residual_rps > c.bounds.r_low) {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace sim::policy::infless
