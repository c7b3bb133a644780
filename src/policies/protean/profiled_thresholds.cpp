#include "profiled_thresholds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "job_distribution.hpp"
#include "reconfiguration_planner.hpp"

namespace sim::policy::protean {

namespace {

double set_memory_gb(const std::vector<std::string>& slices) {
  double memory = 0.0;
  for (const auto& p : slices)
    memory += profile_memory_gb(p);
  return memory;
}

}  // namespace

double strict_eta_on(const std::vector<std::string>& slices, double best_effort_memory_gb,
                     const ThresholdProfile& profile) {
  if (slices.empty()) return std::numeric_limits<double>::infinity();
  // Algorithm 1 lines 2-8: BE memory tagged onto the slices in ascending order of resources
  // (memory, then compute under kMemoryThenCompute; stable: otherwise equal slices keep their
  // order, as ascending_order does for places).
  std::vector<std::string> ascending = slices;
  const bool compute = profile.slice_order == SliceOrder::kMemoryThenCompute;
  std::stable_sort(ascending.begin(), ascending.end(), [&](const auto& a, const auto& b) {
    const double ma = profile_memory_gb(a);
    const double mb = profile_memory_gb(b);
    if (ma < mb || mb < ma) return ma < mb;
    return compute && profile_compute_slices(a) < profile_compute_slices(b);
  });
  std::vector<double> memory;
  for (const auto& p : ascending)
    memory.push_back(profile_memory_gb(p));
  const auto tags = tag_slices(memory, best_effort_memory_gb);
  // Each slice as choose_strict_slice sees it: the strict model's RDF there, and the FBR of the
  // BE batches its tag stands for (tag x memory / footprint x FBR_BE, as tag_places computes).
  std::vector<SliceLoad> loads(ascending.size());
  for (std::size_t i = 0; i < ascending.size(); ++i) {
    SliceLoad& l = loads[i];
    l.memory_gb = memory[i];
    const auto it = profile.strict_rdf.find(ascending[i]);
    l.rdf = it != profile.strict_rdf.end() ? it->second : 1.0;
    l.tag = tags[i];
    l.tagged_best_effort_fbr =
        profile.best_effort_batch_memory_gb > 0
            ? tags[i] * memory[i] / profile.best_effort_batch_memory_gb * profile.best_effort_fbr
            : 0.0;
  }
  const auto k = choose_strict_slice(loads, profile.strict_fbr);
  return strict_eta(loads[k.value_or(0)], profile.strict_fbr);
}

ThresholdCounts profiled_threshold_counts(const std::vector<std::string>& chosen,
                                          const std::vector<std::string>& alternative,
                                          const ThresholdProfile& profile) {
  ThresholdCounts t;
  const double footprint = profile.best_effort_batch_memory_gb;
  const int batch = std::max(1, profile.best_effort_batch);
  if (footprint <= 0) return t;
  // The most whole BE requests whose memory (n / batch x footprint) the chosen set holds
  // (Algorithm 2 line 11).
  t.capacity = static_cast<int>(std::floor(set_memory_gb(chosen) / footprint * batch + 1e-9));
  t.low = t.capacity + 1;
  for (int n = 0; n <= t.capacity; ++n) {
    const double memory = static_cast<double>(n) / batch * footprint;
    const bool preferred = strict_eta_on(chosen, memory, profile) <=
                           strict_eta_on(alternative, memory, profile) + 1e-12;
    if (!preferred) continue;
    t.low = std::min(t.low, n);
    t.high = n;
  }
  return t;
}

Thresholds profiled_thresholds(const std::vector<std::string>& chosen,
                               const std::vector<std::string>& alternative,
                               const ThresholdProfile& profile) {
  const ThresholdCounts c = profiled_threshold_counts(chosen, alternative, profile);
  const double memory = set_memory_gb(chosen);
  if (c.low > c.high || memory <= 0) return {std::numeric_limits<double>::infinity(), 0.0};
  // Occupancy of n requests: n / batch x footprint / the set's memory (Algorithm 2 line 13).
  const double per_request =
      profile.best_effort_batch_memory_gb / std::max(1, profile.best_effort_batch) / memory;
  // Preferred up to the most the set holds: up to its whole memory.
  return {c.low * per_request, c.high == c.capacity ? 1.0 : c.high * per_request};
}

}  // namespace sim::policy::protean
