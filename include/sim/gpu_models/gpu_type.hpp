#pragma once
/// GPU types and their MIG profiles, as loaded from data/models/gpus.json.

#include <string>
#include <string_view>
#include <vector>

#include "sim/gpu_models/provenance.hpp"

namespace sim::gpu {

/// One MIG instance profile (Protean Table 2; NVIDIA MIG User Guide for placements).
struct MigProfile {
  std::string name;             ///< e.g. "3g.20gb"
  int compute_slices = 0;       ///< out of GpuType::compute_slices (7 on A100/H100)
  int memory_slices = 0;        ///< out of GpuType::memory_slices (8 on A100/H100)
  double memory_gb = 0.0;       ///< memory bound of a slice
  double compute_fraction = 0;  ///< fraction of the SMs (Protean Table 2)
  double cache_fraction = 0;    ///< fraction of the L2 cache (Protean Table 2)
  int max_count = 0;            ///< most instances of this profile on one GPU
  std::vector<int> starts;      ///< memory-slice indices where an instance may start
  /// The profile name under which a model's RDF is looked up when the model has no entry for
  /// this profile itself (e.g. H100 "1g.10gb" -> A100 "1g.5gb"). Equal to `name` by default.
  std::string rdf_as;
  Provenance provenance;
};

struct GpuType {
  std::string name;  ///< e.g. "A100-40GB"
  double memory_gb = 0.0;
  /// Solo-speed relative to the catalog's reference GPU (A100-40GB = 1): a model profiled on
  /// GPU R runs on GPU G in time * speed(R) / speed(G).
  double relative_speed = 1.0;
  int compute_slices = 0;  ///< 0 when the GPU has no MIG
  int memory_slices = 0;
  double reconfigure_downtime_s = 0.0;   ///< MIG geometry change (Protean §4.4: ~2 s)
  std::vector<MigProfile> mig_profiles;  ///< in file order, largest first
  /// kappa of the MPS sharing model (sharing_model.hpp), fitted with `dcsim fit
  /// mps-interference`; 0 when the catalog gives none.
  double mps_interference = 0.0;
  Provenance mps_interference_provenance;
  Provenance provenance;

  [[nodiscard]] bool supports_mig() const { return !mig_profiles.empty(); }
  /// nullptr if the GPU has no such profile.
  [[nodiscard]] const MigProfile* find_profile(std::string_view profile) const;
  /// Throws std::invalid_argument naming the GPU and listing its profiles.
  [[nodiscard]] const MigProfile& profile(std::string_view profile) const;
};

}  // namespace sim::gpu
