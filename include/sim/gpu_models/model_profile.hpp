#pragma once
/// One model of the catalog (data/models/*.json) and the latency functions over it.
///
/// A profile carries whichever parts its paper defines:
///  - `gpu`: solo latency on a reference GPU, linear in the batch (HarmonyBatch eq. 2 form),
///    plus Protean's memory footprint, FBR (eq. 1), interference class and RDF per MIG profile;
///  - `cpu`: HarmonyBatch eq. 1 coefficients for CPU functions;
///  - `cgpu`: HarmonyBatch's cGPU time-slicing parameters (eq. 3-4);
///  - `cold_start`: Flashpoint's cold-start breakdown and per-layer profiles;
///  - `operators`: INFless's measured latency table and operator DAG (combined profiling).

#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "sim/gpu_models/gpu_type.hpp"
#include "sim/gpu_models/latency_formulas.hpp"
#include "sim/gpu_models/operator_dag.hpp"
#include "sim/gpu_models/provenance.hpp"

namespace sim::gpu {

enum class LatencyStat { kAverage, kMaximum };

/// Solo GPU latency L(b) = xi1 * b + xi2 on `reference_gpu` (HarmonyBatch eq. 2; for the
/// Protean and Flashpoint models derived from a solo time at a reference batch).
struct GpuProfile {
  std::string reference_gpu;
  double reference_speed = 1.0;  ///< relative_speed of reference_gpu, resolved at load
  Sourced<double> xi1_s;         ///< seconds per sample
  Sourced<double> xi2_s;         ///< seconds
  std::optional<Sourced<int>> reference_batch;
  std::optional<Sourced<double>> memory_gb;  ///< footprint of one batch (any size)
  std::optional<Sourced<double>> fbr;        ///< fractional bandwidth requirement (Protean eq. 1)
  std::string interference_class;            ///< "LI", "HI", "VHI" or empty
  std::map<std::string, double> rdf;         ///< MIG profile -> resource deficiency factor
  Provenance rdf_provenance;

  /// xi1 * b + xi2 on the reference GPU. Throws if batch < 1.
  [[nodiscard]] double latency_s(int batch) const;
};

/// HarmonyBatch eq. (1) coefficients, index b-1.
struct CpuProfile {
  std::vector<ExpCoefficients> avg;
  std::vector<ExpCoefficients> max;
  Provenance provenance;
  std::optional<Sourced<std::vector<double>>> memory_mb;  ///< [a_m, b_m]: MB = a_m*b + b_m

  [[nodiscard]] int max_batch() const { return static_cast<int>(avg.size()); }
  /// Throws std::invalid_argument if batch is outside 1..max_batch() or cores <= 0.
  [[nodiscard]] double latency_s(int batch, double cores, LatencyStat stat) const;
};

/// HarmonyBatch cGPU parameters (Alibaba Function Compute on an A10).
struct CgpuProfile {
  Sourced<double> tau_s;     ///< unit time slice
  Sourced<double> m_max_gb;  ///< GPU memory of the whole device = number of slice units
  /// Fractions of L0 spent on the GPU (a) and on the CPU (b) (HarmonyBatch code, §1.4 of
  /// implementations.md; the paper's eq. 3-4 is a = 1, b = 0).
  Sourced<double> gpu_fraction;
  Sourced<double> cpu_fraction;
  /// gpu_mem thresholds: the minimum GPU memory for batch b is the smallest i (1-based) with
  /// b <= t_i, else size+1 (implementations.md §1.5).
  Sourced<std::vector<double>> min_memory_thresholds;
  /// Host memory of a GPU function (MB), billed by the code's price table (optional).
  std::optional<Sourced<double>> function_memory_mb;

  [[nodiscard]] int min_memory_gb(int batch) const;
};

struct LayerProfile {
  double cold_start_s = 0.0;  ///< load + copy of this layer alone
  double exec_s = 0.0;        ///< warm execution time of the layer (batch 1)
  double output_bytes = 0.0;  ///< size of the output tensor sent to the next partition
};

/// Result of running a model split into partitions (Flashpoint §4.1.3).
struct PartitionEstimate {
  int partitions = 1;
  double cold_start_s = 0.0;  ///< the longest partition's cold start (parts load in parallel)
  double inference_s = 0.0;   ///< sum of layer execution times + transfers at each cut
};

/// Flashpoint cold-start breakdown (§3.4.1) and per-layer profile (§4.1.3).
struct ColdStartProfile {
  Sourced<double> size_mb;
  Sourced<double> download_s;
  Sourced<double> download_bandwidth_mbps;
  Sourced<double> load_s;
  Sourced<double> copy_s;
  std::vector<LayerProfile> layers;
  Provenance layers_provenance;

  /// Sum of the layers' cold starts (= the unpartitioned model's process initialisation).
  [[nodiscard]] double layer_cold_start_total_s() const;
  /// Splits after each layer index in `cut_after` (ascending, each in [0, layers-2]).
  /// Transfers cost output_bytes * 8 / link_bps at every cut. Throws on bad cuts.
  [[nodiscard]] PartitionEstimate partition(std::span<const int> cut_after, double link_bps) const;
};

/// INFless measured latency table plus operator DAG.
struct OperatorModel {
  /// (cpu threads, gpu percent, batch) -> milliseconds.
  std::map<std::tuple<int, int, int>, double> table_ms;
  Provenance table_provenance;
  double infeasible_ms = 20000.0;  ///< table entries at or above this did not run
  OperatorDag dag;
  std::vector<double> shares;  ///< operator i takes shares[i] of the end-to-end latency
  Provenance shares_provenance;
  Sourced<double> prediction_offset;  ///< INFless §3.3: +10%

  /// The measured end-to-end latency, or nullopt if the configuration is absent or infeasible.
  [[nodiscard]] std::optional<double> table_lookup_ms(int batch, int threads,
                                                      int gpu_percent) const;
  /// Operator i's profile at (batch, threads, gpu percent).
  [[nodiscard]] std::optional<double> operator_ms(int op, int batch, int threads,
                                                  int gpu_percent) const;
  /// Combined operator profiling (INFless §3.3): the critical path over operator profiles,
  /// times (1 + prediction_offset) when with_offset. nullopt if infeasible.
  [[nodiscard]] std::optional<double> cop_ms(int batch, int threads, int gpu_percent,
                                             bool with_offset) const;
  [[nodiscard]] std::vector<int> batches() const;
  [[nodiscard]] std::vector<std::pair<int, int>> configurations() const;  ///< (threads, gpu%)
};

struct ModelProfile {
  std::string name;          ///< catalog key, "<family>/<model>", e.g. "protean/resnet-50"
  std::string family;        ///< "protean", "flashpoint", "harmonybatch", "infless"
  std::string display_name;  ///< as the paper writes it
  std::string domain;        ///< "vision", "language", ...
  std::string source_file;
  std::optional<Sourced<double>> gflops;
  std::optional<Sourced<double>> weights_mb;
  std::optional<GpuProfile> gpu;
  std::optional<CpuProfile> cpu;
  std::optional<CgpuProfile> cgpu;
  std::optional<ColdStartProfile> cold_start;
  std::optional<OperatorModel> operators;

  /// RDF of this model on `profile` of `gpu` (1 for the whole GPU). Falls back to the
  /// profile's rdf_as name. Throws std::invalid_argument if neither is known.
  [[nodiscard]] double rdf(const GpuType& gpu, const MigProfile* profile) const;
  /// Solo latency of a batch on a whole GPU or a MIG slice:
  /// L_ref(b) * speed(ref) / speed(gpu) * RDF (Protean §3). Throws if the model has no GPU
  /// profile.
  [[nodiscard]] double gpu_solo_s(int batch, const GpuType& gpu,
                                  const MigProfile* profile = nullptr) const;
  /// Memory footprint of a batch in GB; 0 when the catalog gives none.
  [[nodiscard]] double memory_gb() const;
  /// FBR; throws std::invalid_argument naming the model if absent.
  [[nodiscard]] double fbr() const;
};

}  // namespace sim::gpu
