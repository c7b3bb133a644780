#pragma once
/// The baselines of HarmonyBatch §V: BATCH (Ali et al. SC'20: one CPU function per
/// application, exhaustive search, deterministic latency L_max := L_avg) and MBS+ (Ali et al.
/// VLDB'22 extended with heterogeneous functions: the total rate split evenly into n groups,
/// our performance model). Semantics: implementations.md §1.14-1.15.

#include <span>

#include "plan_types.hpp"

namespace sim::policy::harmonybatch {

Plan plan_batch(const PlannerModel& m, std::span<const Application> apps, const PlannerOptions& o);

/// MBS+. Each group's function is searched, per function type, by Bayesian optimisation with
/// the original's budget (5 random + 10 guided evaluations; `mbs_bayesian`), or exhaustively
/// over the same grids (`mbs_bayesian = false`), which can only make MBS+ cheaper.
Plan plan_mbs_plus(const PlannerModel& m, std::span<const Application> apps,
                   const PlannerOptions& o);

/// "harmonybatch", "batch" or "mbs+"; throws std::invalid_argument otherwise.
Plan plan_with(const std::string& algorithm, const PlannerModel& m,
               std::span<const Application> apps, const PlannerOptions& o);

}  // namespace sim::policy::harmonybatch
