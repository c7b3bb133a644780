#pragma once
/// Flashpoint's partitioned replicas (§4.2): what cutting a model after given layers makes of
/// its parts (each part's bytes and load stage) and of the pipeline they form (Table 4.1's E,
/// N and I; model completion, §4.2.5). Pure arithmetic on the function's layer profile.

#include <optional>
#include <vector>

#include "model.hpp"

namespace sim::platform::serverless {

struct PartitionPlan {
  std::vector<PartSetup> parts;  ///< head: 0 (filled in as the parts start)
  double interval_s = 0.0;       ///< max(E, N): the pipeline takes a batch every this long
  double latency_s = 0.0;        ///< I = sum E_k + sum N_k
  double completion_s = -1.0;    ///< model completion after the replica is ready; < 0: none
};

/// Nullopt when `spec` does not cut `fn`'s layers (cuts not increasing, or not between two
/// layers). Transfers between parts take the layers' output at host_bps; model completion
/// moves the rest of the model at host_bps, loads it and copies it at pcie_bps.
[[nodiscard]] std::optional<PartitionPlan> plan_partition(const Fn& fn,
                                                          const policy::PartitionSpec& spec,
                                                          double host_bps, double pcie_bps);

}  // namespace sim::platform::serverless
