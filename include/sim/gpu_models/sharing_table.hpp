#pragma once
/// `dcsim model-info --sharing FAMILY [GPU]`: the sharing physics (sharing_model.hpp) applied to
/// every model of a catalog family at its reference batch, as a Markdown table: latency and
/// throughput exclusive, with 2/4/6 identical MPS co-runners started together, and exclusive on
/// each MIG slice. Generated so that docs/gpu-models.md can be regenerated.

#include <ostream>
#include <string_view>

#include "sim/gpu_models/model_catalog.hpp"

namespace sim::gpu {

/// Throws std::invalid_argument for an unknown GPU or a family without GPU models.
void render_sharing_table(const ModelCatalog& catalog, std::string_view family,
                          std::string_view gpu_name, std::ostream& out);

}  // namespace sim::gpu
