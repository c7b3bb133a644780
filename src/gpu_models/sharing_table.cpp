#include "sim/gpu_models/sharing_table.hpp"

#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "sim/gpu_models/sharing_model.hpp"

namespace sim::gpu {

namespace {

int batch_of(const ModelProfile& m) {
  return m.gpu->reference_batch ? m.gpu->reference_batch->value : 1;
}

/// "latency ms / requests per s" of n identical batches started together on a unit.
std::string cell(const ModelProfile& m, const GpuType& gpu, const MigProfile* profile, int n,
                 const SharingParams& params) {
  const double capacity = profile ? profile->memory_gb : gpu.memory_gb;
  if (n * m.memory_gb() > capacity) return "(memory)";
  const int b = batch_of(m);
  const double solo = m.gpu_solo_s(b, gpu, profile);
  // Identical co-runners have identical rates, so all finish together at solo / rate.
  const std::vector<Demand> d(static_cast<std::size_t>(n), demand_on(m, b, gpu, profile));
  const double rate = co_run_rates(d, params).front();
  const double latency = solo / rate;
  return fmt::format("{:.0f} / {:.0f}", latency * 1e3, n * b / latency);
}

}  // namespace

void render_sharing_table(const ModelCatalog& catalog, std::string_view family,
                          std::string_view gpu_name, std::ostream& out) {
  const GpuType& gpu = catalog.gpu(gpu_name);
  SharingParams params;
  params.interference = gpu.mps_interference;
  std::vector<const ModelProfile*> models;
  for (const auto& [name, m] : catalog.models()) {
    if (m.family == family && m.gpu && m.gpu->fbr) models.push_back(&m);
  }
  if (models.empty()) {
    throw std::invalid_argument("family '" + std::string(family) +
                                "' has no model with a GPU profile and an FBR");
  }
  fmt::print(out,
             "GPU {}, MPS interference kappa = {:.4g} [{}]. Cells: batch latency ms / "
             "requests per s, all batches started together (sharing model of "
             "docs/gpu-models.md).\n\n",
             gpu.name, gpu.mps_interference, gpu.mps_interference_provenance.describe());
  std::string head = "| model | batch | compute c | FBR | exclusive | MPS x2 | MPS x4 | MPS x6 |";
  std::string rule = "|---|---|---|---|---|---|---|---|";
  for (const auto& p : gpu.mig_profiles) {
    if (p.compute_slices == gpu.compute_slices) continue;  // the whole GPU, as "exclusive"
    head += " " + p.name + " |";
    rule += "---|";
  }
  fmt::print(out, "{}\n{}\n", head, rule);
  for (const ModelProfile* m : models) {
    std::string row = fmt::format("| {} | {} | {:.2f} | {:.2f} |", m->name, batch_of(*m),
                                  compute_demand(*m, batch_of(*m)), m->fbr());
    for (int n : {1, 2, 4, 6})
      row += fmt::format(" {} |", cell(*m, gpu, nullptr, n, params));
    for (const auto& p : gpu.mig_profiles) {
      if (p.compute_slices == gpu.compute_slices) continue;
      row += fmt::format(" {} |", cell(*m, gpu, &p, 1, params));
    }
    fmt::print(out, "{}\n", row);
  }
}

}  // namespace sim::gpu
