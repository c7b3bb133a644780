#include "configuration_space.hpp"

#include <algorithm>

namespace sim::policy::infless {

std::optional<double> CopMemo::cop_ms(const gpu::OperatorModel& model, int batch, int threads,
                                      int gpu_percent) {
  constexpr int kRange = 1 << 20;  // each part of the key in [0, 2^20)
  const auto in_range = [](int v) { return v >= 0 && v < kRange; };
  if (!in_range(batch) || !in_range(threads) || !in_range(gpu_percent)) {
    return model.cop_ms(batch, threads, gpu_percent, /*with_offset=*/false);
  }
  if (model_ != &model) {
    ms_.clear();
    model_ = &model;
  }
  const std::uint64_t key = (static_cast<std::uint64_t>(batch) << 40) |
                            (static_cast<std::uint64_t>(threads) << 20) |
                            static_cast<std::uint64_t>(gpu_percent);
  const auto it = ms_.find(key);
  if (it != ms_.end()) return it->second;
  const auto ms = model.cop_ms(batch, threads, gpu_percent, /*with_offset=*/false);
  ms_.emplace(key, ms);
  return ms;
}

LatencyPredictor::LatencyPredictor(const gpu::OperatorModel& model, std::optional<double> factor,
                                   CopMemo* memo)
    : model_(&model), factor_(factor.value_or(1.0 + model.prediction_offset.value)), memo_(memo) {}

std::optional<double> LatencyPredictor::t_exec_s(int batch, int threads, int gpu_percent) const {
  // INFless §3.3: combined operator profiling, then the safety factor (+10% in the paper).
  const auto ms = memo_ != nullptr
                      ? memo_->cop_ms(*model_, batch, threads, gpu_percent)
                      : model_->cop_ms(batch, threads, gpu_percent, /*with_offset=*/false);
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
