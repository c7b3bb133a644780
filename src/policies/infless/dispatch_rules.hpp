#pragma once
/// INFless §3.2 dispatch rules (i)-(iii): how a function's total rate R is split over its
/// instances, each kept within its own [r_low, r_up] (eq. 1), and when to scale.

#include <cstddef>
#include <span>
#include <vector>

#include "rate_bounds.hpp"

namespace sim::policy::infless {

enum class DispatchCase {
  kOverload,      ///< (i) R > R_max: every instance at r_up, the residual R - R_max is scaled up
  kProportional,  ///< (ii) alpha R_min + (1 - alpha) R_max <= R <= R_max
  kRelease,       ///< (iii) R below that: release instances until (ii) holds again
  kIdle,          ///< R = 0: nothing to dispatch (keep-alive decides)
};

struct DispatchPlan {
  DispatchCase which = DispatchCase::kIdle;
  std::vector<double> rates;  ///< per instance, same order as the bounds
  double residual = 0.0;      ///< R - R_max in case (i), else 0
  double r_min = 0.0;         ///< sum of r_low
  double r_max = 0.0;         ///< sum of r_up
};

/// INFless §3.2: rule (i) gives every instance r_up; rules (ii) and (iii) give instance i
/// r_up_i - (R_max - R) / (R_max - R_min) * (r_up_i - r_low_i) (clamped at 0 in case iii).
DispatchPlan dispatch_rates(double rate, std::span<const RateBounds> instances, double alpha);

/// INFless §3.2 rule (iii): which instances to release (indices into `instances`, in release
/// order) so that the remaining ones satisfy rule (ii) again. Greedy: release the instance
/// with the smallest r_up (ties: the later one) whose removal still leaves R <= R_max, while
/// R < alpha R_min + (1 - alpha) R_max. At least one instance stays while R > 0.
std::vector<std::size_t> release_set(double rate, std::span<const RateBounds> instances,
                                     double alpha);

}  // namespace sim::policy::infless
