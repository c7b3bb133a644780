#pragma once
/// Calibration of the MPS interference term kappa of sharing_model.hpp
/// (`dcsim fit mps-interference MEASUREMENTS.csv`).
///
/// Each measurement is one batch co-located with others on a unit and its observed slowdown
/// (co-located latency / solo latency on that unit). The model predicts
///   S = s * (1 + kappa * D),  s = max{1, sum c, sum d} over the batch and its co-runners,
///                             D = sum of the co-runners' bandwidth demands d,
/// which is linear in kappa, so the least-squares kappa is closed-form:
///   kappa = sum_k s_k D_k (S_k - s_k) / sum_k (s_k D_k)^2, clamped at 0.
///
/// CSV columns (header required, any order, '#' lines ignored):
///   gpu, unit, job, batch, corunners, slowdown
/// unit = "whole" or a MIG profile name; corunners = "model:batch" items separated by ';'.

#include <filesystem>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/gpu_models/model_catalog.hpp"

namespace sim::gpu {

struct CoRunner {
  const ModelProfile* model = nullptr;
  int batch = 1;
};

struct InterferenceObservation {
  const GpuType* gpu = nullptr;
  const MigProfile* profile = nullptr;  ///< nullptr = whole GPU
  CoRunner job;
  std::vector<CoRunner> corunners;
  double slowdown = 1.0;  ///< observed co-located / solo latency on the unit
};

struct InterferenceFit {
  double kappa = 0.0;
  double rms = 0.0;               ///< of the slowdowns
  std::vector<double> predicted;  ///< per observation, with the fitted kappa
};

/// Predicted slowdown of `o.job` for a given kappa (the formula above).
[[nodiscard]] double predicted_slowdown(const InterferenceObservation& o, double kappa);

/// Least squares over the observations. Throws std::invalid_argument when no observation has
/// co-runner bandwidth (kappa undetermined).
[[nodiscard]] InterferenceFit fit_mps_interference(std::span<const InterferenceObservation> obs);

/// Reads the CSV (models and GPUs resolved in `catalog`), fits, writes the JSON fragment for
/// gpus.json (`mps_interference` with a source naming the file) to `out` and returns it.
/// Throws std::runtime_error naming the file and line for malformed input.
nlohmann::json fit_mps_interference_csv(const ModelCatalog& catalog,
                                        const std::filesystem::path& csv_path, std::ostream& out);

}  // namespace sim::gpu
