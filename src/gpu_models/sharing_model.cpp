#include "sim/gpu_models/sharing_model.hpp"

#include <algorithm>
#include <stdexcept>

namespace sim::gpu {

double bandwidth_share(const GpuType& gpu, const MigProfile* profile) {
  if (profile == nullptr || gpu.memory_slices <= 0) return 1.0;
  // NVIDIA MIG User Guide: a GPU instance owns whole memory slices (memory controllers and
  // their L2), so its bandwidth is its share of them (Protean Table 2's memory fractions).
  return static_cast<double>(profile->memory_slices) / gpu.memory_slices;
}

double compute_demand(const ModelProfile& model, int batch) {
  if (!model.gpu) throw std::invalid_argument("model " + model.name + " has no GPU profile");
  const double latency = model.gpu->latency_s(batch);
  if (!(latency > 0.0)) return 1.0;
  // Solo throughput over the supremum over batch sizes: (b / L(b)) / (1 / xi1) = xi1 b / L(b).
  return std::clamp(model.gpu->xi1_s.value * batch / latency, 0.0, 1.0);
}

Demand demand_on(const ModelProfile& model, int batch, const GpuType& gpu,
                 const MigProfile* profile, double sm_cap, double slowdown_solo) {
  Demand d;
  d.compute = std::min(compute_demand(model, batch), sm_cap);
  const double rdf = model.rdf(gpu, profile);
  d.bandwidth = std::min(1.0, model.fbr() / (rdf * bandwidth_share(gpu, profile)));
  d.bandwidth /= std::max(1.0, slowdown_solo);
  return d;
}

std::vector<double> co_run_rates(std::span<const Demand> demands, const SharingParams& params) {
  std::vector<double> rates(demands.size(), 0.0);
  if (demands.empty()) return rates;
  if (params.mode == SharingMode::kTimeSlice) {
    std::fill(rates.begin(), rates.end(), 1.0 / static_cast<double>(demands.size()));
    return rates;
  }
  double compute = 0.0;
  double bandwidth = 0.0;
  for (const auto& d : demands) {
    compute += d.compute;
    bandwidth += d.bandwidth;
  }
  const double s = std::max({1.0, compute, bandwidth});
  for (std::size_t j = 0; j < demands.size(); ++j) {
    const double others = bandwidth - demands[j].bandwidth;
    rates[j] = 1.0 / (s * (1.0 + params.interference * std::max(0.0, others)));
  }
  return rates;
}

}  // namespace sim::gpu
