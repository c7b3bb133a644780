#pragma once
// Hand-built GPU types and model profiles for tests whose expected values are computed by hand.

#include <string>

#include "sim/gpu_models/gpu_type.hpp"
#include "sim/gpu_models/model_catalog.hpp"
#include "sim/gpu_models/model_profile.hpp"

namespace sim::gpu::testing {

/// A100-40GB with Protean Table 2's profiles and NVIDIA's placements; speed 1.
inline GpuType a100() {
  GpuType g;
  g.name = "A100-40GB";
  g.memory_gb = 40;
  g.compute_slices = 7;
  g.memory_slices = 8;
  g.reconfigure_downtime_s = 2.0;
  auto add = [&](std::string n, int cs, int ms, double mem, int maxc, std::vector<int> starts) {
    MigProfile p;
    p.name = n;
    p.rdf_as = n;
    p.compute_slices = cs;
    p.memory_slices = ms;
    p.memory_gb = mem;
    p.compute_fraction = cs / 7.0;
    p.max_count = maxc;
    p.starts = std::move(starts);
    g.mig_profiles.push_back(p);
  };
  add("7g.40gb", 7, 8, 40, 1, {0});
  add("4g.20gb", 4, 4, 20, 1, {0});
  add("3g.20gb", 3, 4, 20, 2, {0, 4});
  add("2g.10gb", 2, 2, 10, 3, {0, 2, 4});
  add("1g.5gb", 1, 1, 5, 7, {0, 1, 2, 3, 4, 5, 6});
  return g;
}

/// A model whose solo latency on the reference GPU (speed 1) is `solo_s` for any batch.
inline ModelProfile gpu_model(std::string name, double solo_s, double fbr, double memory_gb = 1.0) {
  ModelProfile m;
  m.name = std::move(name);
  GpuProfile g;
  g.reference_gpu = "A100-40GB";
  g.xi1_s.value = 0.0;
  g.xi2_s.value = solo_s;
  g.fbr = Sourced<double>{fbr, {}};
  g.memory_gb = Sourced<double>{memory_gb, {}};
  g.rdf = {{"7g.40gb", 1.0}, {"4g.20gb", 1.2}, {"3g.20gb", 1.5}, {"2g.10gb", 2.0}, {"1g.5gb", 3.0}};
  m.gpu = g;
  return m;
}

/// A model with solo latency xi1 * b + xi2 on the reference GPU (speed 1) and the RDFs above.
inline ModelProfile linear_model(std::string name, double xi1_s, double xi2_s, double fbr,
                                 double memory_gb = 1.0) {
  ModelProfile m = gpu_model(std::move(name), xi2_s, fbr, memory_gb);
  m.gpu->xi1_s.value = xi1_s;
  return m;
}

inline std::string data_dir() {
  return std::string(SIM_SOURCE_DIR) + "/data/models";
}

/// The repository catalog, loaded once per test binary (read-only afterwards).
inline const ModelCatalog& repo_catalog() {
  static const ModelCatalog catalog = ModelCatalog::load(data_dir());
  return catalog;
}

}  // namespace sim::gpu::testing
