#pragma once
/// Protean Algorithm 1 (§4.3, job distribution) as pure functions over slice summaries.
///
/// Slices are the places batches run on: enabled MIG slices, or whole GPUs without MIG. The
/// caller builds one SliceLoad per candidate; the functions only compare numbers, so the unit
/// tests check them against the paper's formulas by hand.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace sim::policy::protean {

/// How Algorithm 1 breaks ties of memory in its "ascending order of resources" (§4.3:
/// "slices (in ascending order of resources) are associated with a tag_value"; BE requests go
/// "on the fewest, smallest slices whereas strict requests are scheduled on the larger
/// slices"). Slices of equal memory differ in compute: a 3g.20gb has 3 of the A100's 7 GPCs,
/// a 4g.20gb 4, so by resources the 3g is the smaller.
enum class SliceOrder : std::uint8_t {
  /// memory, then compute (fewer GPCs first), then location: the paper's "resources"
  kMemoryThenCompute,
  /// memory, then location (host, GPU, slice): the reading before session 12, which puts the
  /// 4g of a (4g, 3g) GPU first
  kMemoryThenLocation
};

/// One slice as Algorithm 1 sees it.
struct SliceLoad {
  double memory_gb = 0.0;        ///< slice.available_mem: the slice's memory
  double memory_free_gb = 0.0;   ///< memory not held by the jobs (or containers) already there
  double rdf = 1.0;              ///< RDF of the job being scheduled on this slice (§3)
  double strict_fbr = 0.0;       ///< sum of the FBRs of the strict jobs co-located there
  double best_effort_fbr = 0.0;  ///< sum of the FBRs of the best-effort jobs co-located there
  double tag = 0.0;              ///< tag_value: fraction of memory reserved for BE (Alg. 1 l. 4)
  /// FBR the tagged BE occupancy would bring: tag * memory_gb / BE batch memory * BE FBR.
  double tagged_best_effort_fbr = 0.0;
};

/// Algorithm 1 lines 2-8: the tag_value of each slice, the slices given in ascending order of
/// resources: tag = min(1, BE_mem / available_mem), BE_mem -= available_mem, until no BE
/// memory is left (the remaining slices keep tag 0).
std::vector<double> tag_slices(std::span<const double> available_memory_ascending_gb,
                               double best_effort_memory_gb);

/// Protean eq. (2) for a strict job on `slice`: RDF x max{fbr_k + sum fbr_i, 1}, where the
/// co-runners are the strict jobs there plus the larger of the BE jobs actually there and the
/// BE occupancy its tag predicts. This is Protean's *predictor* (eq. 1, after Prophet, inside
/// eq. 2): the scheduler's estimate of the slowdown, not the device physics, which is the
/// sharing model of sim/gpu_models/sharing_model.hpp (docs/gpu-models.md).
double strict_eta(const SliceLoad& slice, double job_fbr);

/// choose_strict_slice (Algorithm 1, marker 7): among slices not fully tagged (tag < 1), the
/// one with the least eta (eq. 2); equal eta to the slice with the least predicted co-runner
/// FBR (load balancing across slices, §3-4), then to the lower index. Falls back to the least
/// eta over all slices when every slice is fully tagged. nullopt only when `slices` is empty.
std::optional<std::size_t> choose_strict_slice(std::span<const SliceLoad> slices, double job_fbr);

/// choose_best_effort_slice (Algorithm 1, marker 8): first-fit bin packing over the slices in
/// the order given (ascending resources): the first whose free memory holds the batch. When
/// none does, the slice with the most free memory (the batch waits least there); ties to the
/// lower index. nullopt only when `slices` is empty.
std::optional<std::size_t> choose_best_effort_slice(std::span<const SliceLoad> slices,
                                                    double batch_memory_gb);

}  // namespace sim::policy::protean
