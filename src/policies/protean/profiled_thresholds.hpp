#pragma once
/// A profiled reading of Algorithm 2's calc_Lthresh / calc_Hthresh (Protean §4.4, lines 14-15).
///
/// The paper: T_low is "the number of BE requests below which consolidating both strict and BE
/// requests on a 3g is preferred since the performance offered by the 3g outweighs any
/// interference caused by BE requests", T_high "the number of BE requests above which the
/// slowdown (due to resource deficiency and interference) in (2g, 1g) would be too high
/// whenever strict and BE requests get co-located"; both are computed per chosen slice set,
/// predicted count and BE model "using profiling information, predicted occupancy, etc.". The
/// function is not published. This reading uses only what Protean profiles (§3, §4.3): the
/// strict and BE models' FBRs, the strict model's RDF per slice, the BE model's batch size and
/// footprint, and Protean's own slowdown estimator, eq. 2 through Algorithm 1
/// (job_distribution.hpp), not the device physics.
///
/// Derivation. Both thresholds compare the two geometries Algorithm 2 chooses between: the
/// chosen small set plus the large slice (e.g. (1g, 2g) + 4g) against the fallback (4g, 3g).
/// They share the large slice, on which strict requests go first; they differ in the slices
/// BE requests are packed onto and that strict requests share with them: the chosen set
/// against the fallback without the large slice (the 3g). For `n` predicted BE requests of
/// the BE model (per GPU; n / batch x the batch footprint, Algorithm 2 line 9), each side is
/// tagged as Algorithm 1 tags it (lines 2-8: the BE memory filled into its slices in
/// ascending order of memory), and its strict slowdown eta is the one Algorithm 1's
/// choose_strict_slice would give a strict batch there: the least eq. 2 eta = RDF_strict(slice)
/// x max{FBR_strict + tag x memory / footprint_BE x FBR_BE, 1} over its slices not fully
/// tagged (all of them when every one is). The chosen set is preferred at n when its eta is at
/// most the fallback's (ties to the chosen set, which Algorithm 2 keeps unless a threshold is
/// crossed). Then, counted in whole BE requests from 0 to the most the set's memory holds:
///   T_low  = the least n at which the chosen set is preferred: below it the 3g shared with BE
///            gives the strict batch a smaller eta than the chosen set's best slice (the 3g's
///            performance outweighs the BE interference);
///   T_high = the greatest n at which it is preferred: above it the chosen set's eta, once BE
///            spill onto the slice strict requests use, exceeds the 3g's.
/// No n preferred: T_low above every occupancy (the fallback always). Algorithm 2 compares the
/// predicted occupancy (BE memory / the set's memory) with them, so they are returned as
/// occupancies. Where the preferred counts are not one interval, [T_low, T_high] also keeps
/// the counts between its pieces (not met with the catalog's models; see protean.md).
/// Not used: the strict load (calc_Lthresh / calc_Hthresh take the set, the predicted BE count
/// and the BE model only; the probe is one strict batch, eq. 2's "current job"), and BE
/// throughput (BE requests have no latency target).

#include <map>
#include <string>
#include <vector>

#include "job_distribution.hpp"

namespace sim::policy::protean {

/// The profiling information the thresholds use: the strict model's eq. 2 inputs and the
/// BE model's FBR, batch size and batch footprint.
struct ThresholdProfile {
  double strict_fbr = 0.0;
  std::map<std::string, double> strict_rdf;  ///< MIG profile -> RDF (absent: 1)
  double best_effort_fbr = 0.0;
  double best_effort_batch_memory_gb = 0.0;
  int best_effort_batch = 1;
  /// Algorithm 1's ascending order for slices of equal memory, as the autoscaler's (the
  /// default sets and fallback hold no two such slices of different compute)
  SliceOrder slice_order = SliceOrder::kMemoryThenCompute;
};

/// The least eq. 2 eta a strict batch gets on `slices` (MIG profile names) once
/// `best_effort_memory_gb` of BE requests are tagged on them by Algorithm 1, as described
/// above. +infinity when `slices` is empty.
double strict_eta_on(const std::vector<std::string>& slices, double best_effort_memory_gb,
                     const ThresholdProfile& profile);

/// T_low and T_high in BE requests for the chosen set against `alternative` (the fallback
/// without the large slice); capacity = the most BE requests the chosen set's memory holds.
/// low > high when the chosen set is preferred at no count.
struct ThresholdCounts {
  int low = 0;
  int high = -1;
  int capacity = 0;
};
ThresholdCounts profiled_threshold_counts(const std::vector<std::string>& chosen,
                                          const std::vector<std::string>& alternative,
                                          const ThresholdProfile& profile);

/// The same as occupancies of the chosen set (BE memory of the count / the set's memory), as
/// Algorithm 2 line 19 compares them; low = +infinity when no count is preferred.
struct Thresholds {
  double low = 0.0;
  double high = 1.0;
};
Thresholds profiled_thresholds(const std::vector<std::string>& chosen,
                               const std::vector<std::string>& alternative,
                               const ThresholdProfile& profile);

}  // namespace sim::policy::protean
