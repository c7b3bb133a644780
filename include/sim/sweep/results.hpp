#pragma once
/// The tables a sweep writes beside its runs:
///
///   results.csv    one row per planned run: run, combination, one column per axis, seed,
///                  status (ok / failed / interrupted / not_run), error, then every numeric
///                  summary metric as a column named by its dotted path (booleans as 0/1).
///   aggregate.csv  one row per combination and metric over the replications that finished:
///                  combination, the axis columns, metric, n, mean, sd, ci95_low, ci95_high
///                  (sd and the interval are empty with a single replication).
///
/// Rows and columns follow the plan's order, so the files are byte-identical whatever
/// executor ran the sweep.

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/sweep/plan.hpp"
#include "sim/sweep/sweep_run.hpp"

namespace sim::sweep {

/// The numeric leaves of a summary as (dotted path, value), objects in key order, list items
/// by index. Strings are left out; null stays (a metric without samples).
std::vector<std::pair<std::string, nlohmann::json>> flatten_metrics(const nlohmann::json& summary);

/// `reports` is indexed like `plan.runs`.
void write_results_csv(const std::filesystem::path& path, const Plan& plan,
                       const std::vector<RunReport>& reports);
void write_aggregate_csv(const std::filesystem::path& path, const Plan& plan,
                         const std::vector<RunReport>& reports);

}  // namespace sim::sweep
