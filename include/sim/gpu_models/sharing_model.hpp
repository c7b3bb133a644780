#pragma once
/// The device physics of co-located batches on one execution unit (a whole GPU or a MIG slice):
/// a work-conserving, progress-based sharing model that never creates capacity.
///
/// Each running batch j has a solo time T_j on the unit and demands on the unit's two shared
/// resources while it runs alone at full speed:
///  - compute (SM occupancy) c_j in [0, 1]. Derived from the solo profile L(b) = xi1 b + xi2:
///    the batch's solo throughput b / L(b) over the model's peak solo throughput on the unit over
///    all batch sizes, sup_b b / L(b) = 1 / xi1, i.e. c_j = xi1 b / L(b). The per-launch part xi2
///    is time the SMs are not filled by this batch; only that gap can be filled by co-runners.
///  - memory bandwidth d_j in [0, 1]: the FBR (the fraction of the whole GPU's bandwidth the
///    batch uses solo on 7g, Protean eq. 1) rescaled to the unit: on a slice the batch is RDF
///    times slower, so it moves the same bytes in RDF x the time, against the slice's share
///    beta = memory_slices / 8 of the bandwidth: d_j = min(1, fbr / (RDF * beta)).
///
/// Progress rates (fractions of solo speed), re-evaluated whenever a co-runner starts or ends:
///   s   = max{1, sum_i c_i, sum_i d_i}             (no resource over-committed)
///   r_j = 1 / (s * (1 + kappa * sum_{i != j} d_i)) (interference: cache and scheduling overhead,
///                                                  growing with the co-runners' memory traffic)
/// so sum_j c_j r_j <= 1 and sum_j d_j r_j <= 1 always. kappa is fitted (`dcsim fit
/// mps-interference`), not assumed. A batch finishes when its integrated rate reaches T_j.
///
/// Time-slicing (several containers' contexts on one GPU, no MPS; Molecule (beta) as Protean §2.2
/// describes it): contexts run one at a time, so each batch demands the whole unit (c_j = 1) and
/// r_j = 1 / n; context switches are taken as free (no seed paper measures them).

#include <span>
#include <vector>

#include "sim/gpu_models/gpu_type.hpp"
#include "sim/gpu_models/model_profile.hpp"

namespace sim::gpu {

enum class SharingMode { kMps, kTimeSlice };

struct SharingParams {
  SharingMode mode = SharingMode::kMps;
  /// kappa: slowdown per unit of co-runners' bandwidth demand (fitted; 0 = none).
  double interference = 0.0;
};

/// One running batch's solo demands on its unit.
struct Demand {
  double compute = 1.0;    ///< c_j
  double bandwidth = 0.0;  ///< d_j
};

/// Share of the GPU's memory bandwidth a unit has: memory_slices / total (1 for a whole GPU).
[[nodiscard]] double bandwidth_share(const GpuType& gpu, const MigProfile* profile);

/// c_j = xi1 b / L(b) for `batch` of `model` (the formula above). Throws if the model has no
/// GPU profile or batch < 1.
[[nodiscard]] double compute_demand(const ModelProfile& model, int batch);

/// The demands of a batch on a unit, with an optional MPS SM cap f (strategic MPS, GPUlet): the
/// capped batch uses at most f of the SMs and is `slowdown_solo` times slower alone, so its
/// compute is min(c, f) and its bandwidth d / slowdown_solo. Throws (naming the model) when the
/// model has no FBR.
[[nodiscard]] Demand demand_on(const ModelProfile& model, int batch, const GpuType& gpu,
                               const MigProfile* profile, double sm_cap = 1.0,
                               double slowdown_solo = 1.0);

/// Progress rates r_j for co-runners with `demands` (same order). Empty in, empty out.
[[nodiscard]] std::vector<double> co_run_rates(std::span<const Demand> demands,
                                               const SharingParams& params);

}  // namespace sim::gpu
