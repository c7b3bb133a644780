#pragma once
/// funcProvision (HarmonyBatch §IV-B): the cheapest CPU function (Theorem 1: the cost
/// minimiser or a bound of the cores) and the cheapest GPU function (Theorem 2: for each GPU
/// memory, the largest batch with floor(r T) + 1 >= b, by binary search) for one group.

#include <optional>
#include <span>

#include "plan_types.hpp"

namespace sim::policy::harmonybatch {

enum class AllowedTypes { kBoth, kCpuOnly, kGpuOnly };

/// Theorem 1: the cores in [lo, hi] on the step grid that minimise c * L_avg(c) (root of
/// eq. 14 by bisection), or nullopt when the minimum is at a bound.
std::optional<double> cpu_cost_minimiser(const PlannerModel& m, int batch, double lo, double hi,
                                         double step);

std::optional<FunctionConfig> provision_cpu(const PlannerModel& m,
                                            std::span<const Application> apps,
                                            const PlannerOptions& o);
std::optional<FunctionConfig> provision_gpu(const PlannerModel& m,
                                            std::span<const Application> apps,
                                            const PlannerOptions& o);
/// The cheaper of the two; ties go to the CPU function (the code's rule).
std::optional<FunctionConfig> provision(const PlannerModel& m, std::span<const Application> apps,
                                        const PlannerOptions& o,
                                        AllowedTypes allowed = AllowedTypes::kBoth);

}  // namespace sim::policy::harmonybatch
