#pragma once
/// HarmonyBatch Algorithm 1: each application its own group, then two-stage merging of
/// groups adjacent in SLO order, stage 1 driven by the arrival-rate knee point r* (Fig. 7).

#include <span>

#include "plan_types.hpp"

namespace sim::policy::harmonybatch {

/// r*(s): the smallest rate at which a single application with SLO s is cheaper on a GPU
/// function, by bisection on [knee_min_rate, knee_max_rate] (implementations.md §1.10).
double knee_rate(const PlannerModel& m, double slo_s, const PlannerOptions& o);

/// Algorithm 1. Applications are sorted by SLO (stable). Throws std::invalid_argument if an
/// application cannot be served by any function.
Plan plan_harmonybatch(const PlannerModel& m, std::span<const Application> apps,
                       const PlannerOptions& o);

/// Σ η_X C_X with η_X = (Σ share·r over X) / R (eq. 7).
double plan_cost(std::span<const Group> groups);

}  // namespace sim::policy::harmonybatch
