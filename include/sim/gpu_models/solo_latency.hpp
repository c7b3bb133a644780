#pragma once
/// What a batch costs on one kind of resource when it runs alone: the per-resource latency
/// models that exclusive (FIFO) units are built from.

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/random.hpp"
#include "sim/gpu_models/gpu_type.hpp"
#include "sim/gpu_models/model_profile.hpp"

namespace sim::gpu {

class SoloLatency {
 public:
  virtual ~SoloLatency() = default;
  /// Expected solo latency in seconds. Throws std::invalid_argument if the model cannot run
  /// on this resource.
  [[nodiscard]] virtual double predict_s(const ModelProfile& model, int batch) const = 0;
  /// The duration of one execution; defaults to predict_s, may draw randomness.
  virtual double sample_s(const ModelProfile& model, int batch) { return predict_s(model, batch); }
  /// GB; infinity when unbounded.
  [[nodiscard]] virtual double memory_capacity_gb() const;
  [[nodiscard]] virtual std::string describe() const = 0;
};

/// A whole GPU or one MIG slice of it (solo time scaled by RDF, memory bounded by the slice).
class GpuSoloLatency final : public SoloLatency {
 public:
  /// `profile` nullptr = the whole GPU. Both must outlive this object.
  GpuSoloLatency(const GpuType& gpu, const MigProfile* profile = nullptr);
  [[nodiscard]] double predict_s(const ModelProfile& model, int batch) const override;
  [[nodiscard]] double memory_capacity_gb() const override;
  [[nodiscard]] std::string describe() const override;
  [[nodiscard]] const GpuType& gpu() const { return gpu_; }
  [[nodiscard]] const MigProfile* profile() const { return profile_; }

 private:
  const GpuType& gpu_;
  const MigProfile* profile_;
};

/// How a CPU function draws its batch latency from HarmonyBatch eq. (1).
enum class CpuLatencyMode {
  kAverage,  ///< always L_avg
  kMaximum,  ///< always L_max
  /// Normal(L_avg, (L_max - L_avg) / 2.33) clipped at 0: L_max as the 99th percentile, as
  /// HarmonyBatch's experiment harness does (implementations.md §1.16).
  kSampled,
};

/// A CPU function instance with `cores` vCPUs (HarmonyBatch eq. 1).
class CpuFunctionLatency final : public SoloLatency {
 public:
  /// `rng` is required for kSampled.
  CpuFunctionLatency(double cores, CpuLatencyMode mode,
                     std::optional<RandomStream> rng = std::nullopt);
  [[nodiscard]] double predict_s(const ModelProfile& model, int batch) const override;
  double sample_s(const ModelProfile& model, int batch) override;
  [[nodiscard]] std::string describe() const override;

 private:
  double cores_;
  CpuLatencyMode mode_;
  std::optional<RandomStream> rng_;
};

/// An INFless instance with `threads` CPU threads and `gpu_percent` % of the GPU's SMs
/// (0 = CPU only); latency from combined operator profiling (INFless §3.3), without the
/// prediction offset (the offset is a scheduler's safety margin, not execution time).
class OperatorProfileLatency final : public SoloLatency {
 public:
  OperatorProfileLatency(int threads, int gpu_percent);
  [[nodiscard]] double predict_s(const ModelProfile& model, int batch) const override;
  [[nodiscard]] std::string describe() const override;

 private:
  [[nodiscard]] double compute_s(const ModelProfile& model, int batch) const;
  int threads_;
  int gpu_percent_;
  /// Latencies computed so far (an instance's unit sees one model and a few batch sizes; each
  /// batch asked for its latency three times, each time walking the operator DAG with a table
  /// lookup per operator). The remembered value is the one computed. The first model's are
  /// indexed by batch (NaN = not computed; a scan of them was ~3% of a large INFless run),
  /// other models' and batches above kIndexedBatches are scanned. The first kInlineBatches
  /// live in the object itself: an INFless batch (~1.4 requests in the §5.3 run) then reads
  /// no separately allocated vector, whose line was out of cache for nearly every batch.
  static constexpr int kIndexedBatches = 1024;
  static constexpr std::size_t kInlineBatches = 8;
  mutable const ModelProfile* first_model_ = nullptr;
  mutable std::array<double, kInlineBatches> first_small_;
  mutable std::vector<double> first_by_batch_;  ///< batches kInlineBatches and up
  struct Known {
    const ModelProfile* model;
    int batch;
    double s;
  };
  mutable std::vector<Known> known_;
};

}  // namespace sim::gpu
