#include "dispatch_rules.hpp"

#include <algorithm>
#include <optional>

namespace sim::policy::infless {

namespace {

struct Sums {
  double r_min = 0.0;
  double r_max = 0.0;
};

Sums sums(std::span<const RateBounds> instances, const std::vector<bool>* removed = nullptr) {
  Sums s;
  for (std::size_t i = 0; i < instances.size(); ++i) {
    if (removed != nullptr && (*removed)[i]) continue;
    s.r_min += instances[i].r_low;
    s.r_max += instances[i].r_up;
  }
  return s;
}

// INFless §3.2 rule (ii)'s lower edge: alpha R_min + (1 - alpha) R_max.
double band_floor(const Sums& s, double alpha) {
  return alpha * s.r_min + (1.0 - alpha) * s.r_max;
}

}  // namespace

DispatchPlan dispatch_rates(double rate, std::span<const RateBounds> instances, double alpha) {
  DispatchPlan p;
  const Sums s = sums(instances);
  p.r_min = s.r_min;
  p.r_max = s.r_max;
  p.rates.assign(instances.size(), 0.0);
  if (rate <= 0.0) {
    p.which = DispatchCase::kIdle;
    return p;
  }
  if (rate > s.r_max) {
    // Rule (i): every instance at its upper bound, the rest is left to the scaling engine.
    p.which = DispatchCase::kOverload;
    for (std::size_t i = 0; i < instances.size(); ++i)
      p.rates[i] = instances[i].r_up;
    p.residual = rate - s.r_max;
    return p;
  }
  p.which = rate >= band_floor(s, alpha) ? DispatchCase::kProportional : DispatchCase::kRelease;
  const double span = s.r_max - s.r_min;
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const RateBounds& b = instances[i];
    // Rule (ii): r_i = r_up_i - (R_max - R) / (R_max - R_min) (r_up_i - r_low_i).
    const double cut = span > 0.0 ? (s.r_max - rate) / span * (b.r_up - b.r_low) : 0.0;
    p.rates[i] = std::max(0.0, b.r_up - cut);
  }
  return p;
}

std::vector<std::size_t> release_set(double rate, std::span<const RateBounds> instances,
                                     double alpha) {
  std::vector<std::size_t> out;
  if (rate <= 0.0) return out;
  std::vector<bool> removed(instances.size(), false);
  for (;;) {
    const Sums s = sums(instances, &removed);
    if (rate > s.r_max || rate >= band_floor(s, alpha)) break;
    std::optional<std::size_t> pick;
    for (std::size_t i = 0; i < instances.size(); ++i) {
      if (removed[i]) continue;
      if (rate > s.r_max - instances[i].r_up) continue;  // the rest could not serve R
      if (!pick || instances[i].r_up <= instances[*pick].r_up) pick = i;
    }
    if (!pick) break;
    removed[*pick] = true;
    out.push_back(*pick);
  }
  return out;
}

}  // namespace sim::policy::infless
