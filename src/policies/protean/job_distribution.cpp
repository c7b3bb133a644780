#include "job_distribution.hpp"

#include <algorithm>

namespace sim::policy::protean {

std::vector<double> tag_slices(std::span<const double> available_memory_ascending_gb,
                               double best_effort_memory_gb) {
  std::vector<double> tags(available_memory_ascending_gb.size(), 0.0);
  double be_mem = best_effort_memory_gb;
  for (std::size_t i = 0; i < tags.size(); ++i) {
    if (be_mem <= 0) break;  // Algorithm 1 line 8
    const double available = available_memory_ascending_gb[i];
    tags[i] = available > 0 ? std::min(1.0, be_mem / available) : 1.0;  // line 4
    be_mem = std::max(0.0, be_mem - available);                         // line 5
  }
  return tags;
}

double strict_eta(const SliceLoad& slice, double job_fbr) {
  // Protean eq. (2); the tag stands for BE batches that will come (Algorithm 1, marker 7:
  // "considers potential slowdown due to occupancy by BE requests using tag_values").
  const double be = std::max(slice.best_effort_fbr, slice.tagged_best_effort_fbr);
  return slice.rdf * std::max(job_fbr + slice.strict_fbr + be, 1.0);
}

namespace {

// The predicted co-runner FBR of eq. 2 on `slice` (the sum inside max{., 1}, without the job).
double co_runner_fbr(const SliceLoad& slice) {
  return slice.strict_fbr + std::max(slice.best_effort_fbr, slice.tagged_best_effort_fbr);
}

}  // namespace

std::optional<std::size_t> choose_strict_slice(std::span<const SliceLoad> slices, double job_fbr) {
  // Equal eta happens whenever the FBR sum stays below 1 (max{., 1} clamps): every empty 4g and
  // a 4g with one ResNet 50 batch give 1.4125 for another. The tie goes to the slice with the
  // least predicted co-runner FBR, because §3 weighs "load balancing jobs across slices to
  // reduce interference" and §4 has Job Distribution "distributing strict requests among the
  // large slices"; then to the lower index.
  constexpr double kEps = 1e-12;
  std::optional<std::size_t> best;
  double best_eta = 0.0;
  double best_co = 0.0;
  for (int pass = 0; pass < 2 && !best; ++pass) {
    for (std::size_t i = 0; i < slices.size(); ++i) {
      if (pass == 0 && slices[i].tag >= 1.0) continue;
      const double eta = strict_eta(slices[i], job_fbr);
      const double co = co_runner_fbr(slices[i]);
      if (!best || eta < best_eta - kEps || (eta <= best_eta + kEps && co < best_co - kEps)) {
        best = i;
        best_eta = eta;
        best_co = co;
      }
    }
  }
  return best;
}

std::optional<std::size_t> choose_best_effort_slice(std::span<const SliceLoad> slices,
                                                    double batch_memory_gb) {
  for (std::size_t i = 0; i < slices.size(); ++i) {
    if (slices[i].memory_free_gb + 1e-9 >= batch_memory_gb) return i;
  }
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < slices.size(); ++i) {
    if (!best || slices[i].memory_free_gb > slices[*best].memory_free_gb) best = i;
  }
  return best;
}

}  // namespace sim::policy::protean
