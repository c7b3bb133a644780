#include "reconfiguration_planner.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sim::policy::protean {

double EwmaPredictor::observe(double x) {
  value_ = primed_ ? alpha_ * x + (1.0 - alpha_) * value_ : x;
  primed_ = true;
  return value_;
}

double profile_memory_gb(const std::string& profile) {
  const auto dot = profile.find('.');
  const auto gb = profile.rfind("gb");
  if (dot == std::string::npos || gb == std::string::npos || gb <= dot + 1) {
    throw std::invalid_argument("MIG profile \"" + profile +
                                "\": expected a name like \"3g.20gb\" (memory before \"gb\")");
  }
  return std::stod(profile.substr(dot + 1, gb - dot - 1));
}

int profile_compute_slices(const std::string& profile) {
  if (profile.empty()) return kWholeGpuCompute;
  const auto g = profile.find('g');
  if (g == 0 || g == std::string::npos || profile.find_first_not_of("0123456789") != g ||
      g + 1 >= profile.size() || profile[g + 1] != '.') {
    throw std::invalid_argument("MIG profile \"" + profile +
                                "\": expected a name like \"3g.20gb\" (compute before \"g\")");
  }
  return std::stoi(profile.substr(0, g));
}

std::vector<std::string> sorted_geometry(std::vector<std::string> profiles) {
  std::sort(profiles.begin(), profiles.end());
  return profiles;
}

std::vector<std::string> fallback_without_large(const ReconfigurationConfig& config) {
  std::vector<std::string> rest = config.fallback;
  const auto it = std::find(rest.begin(), rest.end(), config.large_slice);
  if (it != rest.end()) rest.erase(it);
  return rest;
}

std::vector<std::string> choose_geometry(const ReconfigurationConfig& config,
                                         double predicted_best_effort_memory_gb,
                                         const ThresholdProfile* profile) {
  // Algorithm 2 lines 10-18: the first (smallest) set whose memory holds the predicted BE
  // memory; its potential occupancy is that memory over the set's.
  for (const auto& set : config.small_slice_sets) {
    double memory = 0.0;
    for (const auto& p : set)
      memory += profile_memory_gb(p);
    if (memory < predicted_best_effort_memory_gb) continue;
    const double occupancy = memory > 0 ? predicted_best_effort_memory_gb / memory : 0.0;
    // Lines 14-15: calc_Lthresh, calc_Hthresh for this set and BE model.
    Thresholds t{config.t_low, config.t_high};
    if (config.thresholds == ThresholdMode::kProfiled && profile != nullptr) {
      t = profiled_thresholds(set, fallback_without_large(config), *profile);
    }
    if (occupancy < t.low || occupancy > t.high) break;  // line 19
    std::vector<std::string> g = set;                    // line 16
    g.push_back(config.large_slice);                     // line 23
    return sorted_geometry(std::move(g));
  }
  return sorted_geometry(config.fallback);  // line 20
}

double best_effort_memory_gb(double predicted, int batch, double batch_memory_gb,
                             BestEffortMemory mode) {
  if (predicted <= 0) return 0.0;
  const double batches = predicted / std::max(1, batch);
  return (mode == BestEffortMemory::kWholeBatches ? std::ceil(batches - 1e-9) : batches) *
         batch_memory_gb;
}

bool MismatchCounter::should_reconfigure(bool mismatch, int wait_limit) {
  if (!mismatch) {  // lines 29-30
    count_ = 0;
    return false;
  }
  if (count_ >= wait_limit) return true;  // lines 25-26 (reset once the geometry matches)
  ++count_;                               // line 28
  return false;
}

int max_simultaneous_reconfigurations(int gpus, double fraction) {
  return std::max(1, static_cast<int>(std::floor(fraction * gpus + 1e-9)));
}

}  // namespace sim::policy::protean
