#include "sim/gpu_models/solo_latency.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace sim::gpu {

double SoloLatency::memory_capacity_gb() const {
  return std::numeric_limits<double>::infinity();
}

GpuSoloLatency::GpuSoloLatency(const GpuType& gpu, const MigProfile* profile)
    : gpu_(gpu), profile_(profile) {}

double GpuSoloLatency::predict_s(const ModelProfile& model, int batch) const {
  return model.gpu_solo_s(batch, gpu_, profile_);
}

double GpuSoloLatency::memory_capacity_gb() const {
  return profile_ != nullptr ? profile_->memory_gb : gpu_.memory_gb;
}

std::string GpuSoloLatency::describe() const {
  return profile_ != nullptr ? gpu_.name + " " + profile_->name : gpu_.name;
}

CpuFunctionLatency::CpuFunctionLatency(double cores, CpuLatencyMode mode,
                                       std::optional<RandomStream> rng)
    : cores_(cores), mode_(mode), rng_(std::move(rng)) {
  if (!(cores > 0.0)) throw std::invalid_argument("CPU function: cores must be > 0");
  if (mode == CpuLatencyMode::kSampled && !rng_) {
    throw std::invalid_argument("CPU function: sampled latency needs a random stream");
  }
}

double CpuFunctionLatency::predict_s(const ModelProfile& model, int batch) const {
  if (!model.cpu) {
    throw std::invalid_argument("model " + model.name +
                                " has no CPU latency coefficients (HarmonyBatch eq. 1)");
  }
  return model.cpu->latency_s(
      batch, cores_,
      mode_ == CpuLatencyMode::kMaximum ? LatencyStat::kMaximum : LatencyStat::kAverage);
}

double CpuFunctionLatency::sample_s(const ModelProfile& model, int batch) {
  if (mode_ != CpuLatencyMode::kSampled) return predict_s(model, batch);
  const double avg = predict_s(model, batch);
  const double max = model.cpu->latency_s(batch, cores_, LatencyStat::kMaximum);
  // L_max is read as the 99th percentile of a normal latency: z(0.99) = 2.33.
  const double sd = std::max(0.0, (max - avg) / 2.33);
  return std::max(0.0, rng_->normal(avg, sd));
}

std::string CpuFunctionLatency::describe() const {
  return fmt::format("CPU {} cores", cores_);
}

OperatorProfileLatency::OperatorProfileLatency(int threads, int gpu_percent)
    : threads_(threads), gpu_percent_(gpu_percent) {
  first_small_.fill(std::numeric_limits<double>::quiet_NaN());
  if (threads < 0 || gpu_percent < 0 || gpu_percent > 100 || (threads == 0 && gpu_percent == 0)) {
    throw std::invalid_argument(
        fmt::format("INFless share: need threads >= 0 and 0 <= gpu% <= 100, not both 0; found "
                    "{} threads, {}%",
                    threads, gpu_percent));
  }
}

double OperatorProfileLatency::predict_s(const ModelProfile& model, int batch) const {
  if (first_model_ == nullptr) first_model_ = &model;
  if (&model == first_model_ && batch >= 0 && batch < kIndexedBatches) {
    const auto b = static_cast<std::size_t>(batch);
    if (b >= kInlineBatches && b >= first_by_batch_.size()) {
      first_by_batch_.resize(b + 1, std::numeric_limits<double>::quiet_NaN());
    }
    double& known = b < kInlineBatches ? first_small_[b] : first_by_batch_[b];
    if (!std::isnan(known)) return known;
    known = compute_s(model, batch);  // throws (nothing remembered: NaN stays) if it cannot run
    return known;
  }
  for (const Known& k : known_)
    if (k.model == &model && k.batch == batch) return k.s;
  const double s = compute_s(model, batch);
  known_.push_back({&model, batch, s});
  return s;
}

double OperatorProfileLatency::compute_s(const ModelProfile& model, int batch) const {
  if (!model.operators) {
    throw std::invalid_argument("model " + model.name + " has no operator profiles (INFless)");
  }
  auto ms = model.operators->cop_ms(batch, threads_, gpu_percent_, /*with_offset=*/false);
  if (!ms) {
    // A partial batch between profiled sizes (a batch that timed out before it filled) runs
    // padded to the next profiled size, as TF-Serving pads to its allowed batch sizes.
    for (const int b : model.operators->batches()) {
      if (b <= batch) continue;
      ms = model.operators->cop_ms(b, threads_, gpu_percent_, /*with_offset=*/false);
      if (ms) break;
    }
  }
  if (!ms) {
    throw std::invalid_argument(
        fmt::format("model {} has no feasible profile for batch {} with {} threads and {}% GPU",
                    model.name, batch, threads_, gpu_percent_));
  }
  return *ms / 1000.0;
}

std::string OperatorProfileLatency::describe() const {
  return fmt::format("{} threads + {}% GPU", threads_, gpu_percent_);
}

}  // namespace sim::gpu
