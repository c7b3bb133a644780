#pragma once
/// Protean Algorithm 2 (§4.4, GPU reconfigurator): the geometry one GPU should have for the
/// predicted best-effort load, and when a mismatch has lasted long enough to reconfigure.

#include <cstdint>
#include <string>
#include <vector>

#include "profiled_thresholds.hpp"

namespace sim::policy::protean {

/// EWMA predictor of the number of BE requests per monitor interval (Algorithm 2 line 8; the
/// paper cites a light-weight EWMA without its weight): p <- alpha x + (1 - alpha) p, the first
/// observation taken as is.
class EwmaPredictor {
 public:
  explicit EwmaPredictor(double alpha) : alpha_(alpha) {}
  double observe(double x);
  [[nodiscard]] double value() const { return value_; }
  [[nodiscard]] bool primed() const { return primed_; }

 private:
  double alpha_;
  double value_ = 0.0;
  bool primed_ = false;
};

/// How calc_Lthresh / calc_Hthresh (Algorithm 2 lines 14-15) are read.
enum class ThresholdMode : std::uint8_t {
  kFixed,    ///< T_low, T_high fixed occupancies of the chosen set (assumption: 0.1, 0.9)
  kProfiled  ///< per set, strict and BE model from profiles and eq. 2 (profiled_thresholds.hpp)
};

struct ReconfigurationConfig {
  /// small_slice_set (Algorithm 2 line 6), in order; a set's memory (sum_max_mem) is read
  /// from the profile names ("2g.10gb" holds 10 GB).
  std::vector<std::vector<std::string>> small_slice_sets{{"1g.5gb", "2g.10gb"}, {"3g.20gb"}};
  std::string large_slice = "4g.20gb";                      ///< appended when found (line 23)
  std::vector<std::string> fallback{"4g.20gb", "3g.20gb"};  ///< line 20
  /// Potential occupancy = predicted BE memory / the chosen set's memory. Below T_low the set
  /// is too empty to be worth isolating BE on it, above T_high too full (lines 14, 15, 19).
  double t_low = 0.1;
  double t_high = 0.9;
  /// kProfiled: T_low, T_high from profiled_thresholds for the chosen set against the fallback
  /// without the large slice, when choose_geometry gets a profile (else t_low, t_high).
  /// A scenario's default is kProfiled (register.cpp); this struct's stays kFixed, the plain
  /// planner the hand-computed planner tests use.
  ThresholdMode thresholds = ThresholdMode::kFixed;
  int wait_limit = 3;  ///< consecutive mismatches before reconfiguring (line 25)
};

/// How Algorithm 2's mem(BE_model, pred_BE_num) (line 9) turns a request count into memory.
enum class BestEffortMemory : std::uint8_t {
  /// pred_BE_num / batch_size x the batch footprint: the potential occupancy can fall below
  /// one batch, so T_low (a number of BE requests, §4.4) can be reached
  kRequests,
  /// rounded up to whole batches (containers): occupancy is at least one container's memory
  /// over the set's, so a T_low below that never triggers the fallback geometry
  kWholeBatches
};

/// mem(BE_model, pred_BE_num) of Algorithm 2 line 9: `predicted` BE requests of a model whose
/// batch of `batch` requests needs `batch_memory_gb`, per `mode`.
double best_effort_memory_gb(double predicted, int batch, double batch_memory_gb,
                             BestEffortMemory mode);

/// The geometry Algorithm 2 chooses for a predicted BE memory (lines 9-23), as a sorted list
/// of profile names (sorted so that geometries compare as multisets). `profile`: the strict and
/// BE models' profiling information, used by ThresholdMode::kProfiled (nullptr: fixed).
std::vector<std::string> choose_geometry(const ReconfigurationConfig& config,
                                         double predicted_best_effort_memory_gb,
                                         const ThresholdProfile* profile = nullptr);

/// The fallback geometry without (one of) the large slice: the slices the fallback packs BE
/// requests onto and strict requests share with them, the (3g) of (4g, 3g).
std::vector<std::string> fallback_without_large(const ReconfigurationConfig& config);

/// The per-GPU wait counter of Algorithm 2 (lines 24-30).
class MismatchCounter {
 public:
  /// True when the GPU should be reconfigured now: the geometries differ and wait_ctr has
  /// reached wait_limit (it stays there, so a GPU held back by the 30% cap is due at the next
  /// interval). Otherwise counts the mismatch, or resets the counter when they match.
  bool should_reconfigure(bool mismatch, int wait_limit);
  /// The GPU is being reconfigured to the decided geometry: wait_ctr <- 0. In Algorithm 2,
  /// reconfigure_GPU(final_geometry) (line 26) makes curr_geometry final_geometry, so line 29
  /// resets the counter in the same call; a later change of the decision waits wait_limit
  /// mismatches again rather than reconfiguring the GPU at once.
  void reconfigured() { count_ = 0; }
  [[nodiscard]] int count() const { return count_; }

 private:
  int count_ = 0;
};

/// The most GPUs that may reconfigure at once: floor(fraction x gpus), at least 1 (§4.4:
/// "only ~30% of GPUs (on average) are allowed to be reconfigured simultaneously").
int max_simultaneous_reconfigurations(int gpus, double fraction);

/// The memory (GB) in a MIG profile name: "3g.20gb" -> 20. Throws std::invalid_argument when
/// the name has no ".<n>gb" suffix.
double profile_memory_gb(const std::string& profile);

/// The compute slices (GPCs) in a MIG profile name: "3g.20gb" -> 3; an empty name (a whole
/// GPU, no MIG) -> kWholeGpuCompute, more than any slice has. Throws std::invalid_argument when
/// a name does not start with "<n>g.".
inline constexpr int kWholeGpuCompute = 1 << 20;
int profile_compute_slices(const std::string& profile);

/// Sorted copy of a geometry, for multiset comparison.
std::vector<std::string> sorted_geometry(std::vector<std::string> profiles);

}  // namespace sim::policy::protean
