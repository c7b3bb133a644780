#include "sim/sweep/plan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/config/diagnostics.hpp"

namespace sim::sweep {

namespace {

bool matches(const Filter& f, const std::vector<Axis>& axes,
             const std::vector<std::size_t>& choice) {
  for (const auto& [axis_name, labels] : f.labels) {
    const auto axis = std::find_if(axes.begin(), axes.end(),
                                   [&n = axis_name](const Axis& a) { return a.name == n; });
    if (axis == axes.end()) return false;
    const auto i = static_cast<std::size_t>(axis - axes.begin());
    const std::string& label = axis->variants[choice[i]].label;
    if (std::find(labels.begin(), labels.end(), label) == labels.end()) return false;
  }
  return true;
}

bool kept(const Experiment& e, const std::vector<std::size_t>& choice) {
  for (const auto& f : e.exclude) {
    if (matches(f, e.axes, choice)) return false;
  }
  if (e.only.empty()) return true;
  return std::any_of(e.only.begin(), e.only.end(),
                     [&](const Filter& f) { return matches(f, e.axes, choice); });
}

/// Advances a mixed-radix counter whose last digit varies fastest; false after the last.
bool next_choice(std::vector<std::size_t>& choice, const std::vector<Axis>& axes) {
  for (std::size_t i = axes.size(); i-- > 0;) {
    if (++choice[i] < axes[i].variants.size()) return true;
    choice[i] = 0;
  }
  return false;
}

}  // namespace

std::filesystem::path substitute_labels(const std::filesystem::path& file,
                                        const std::vector<Axis>& axes,
                                        const std::vector<std::string>& labels) {
  std::string text = file.string();
  for (std::size_t i = 0; i < axes.size() && i < labels.size(); ++i) {
    const std::string placeholder = "{" + axes[i].name + "}";
    for (auto at = text.find(placeholder); at != std::string::npos;
         at = text.find(placeholder, at + labels[i].size())) {
      text.replace(at, placeholder.size(), labels[i]);
    }
  }
  return text;
}

Plan expand(const Experiment& e) {
  // Counted in floating point before anything is built: the product may overflow 64 bits.
  double planned = static_cast<double>(e.seeds.size());
  for (const auto& a : e.axes)
    planned *= static_cast<double>(a.variants.size());
  if (planned > static_cast<double>(kMaxPlannedRuns)) {
    config::Diagnostics limit(e.file.string());
    limit.error("/axes", fmt::format("{:.3g} runs (combinations x seeds, before filters), more "
                                     "than the {} a sweep may plan; split the experiment",
                                     planned, kMaxPlannedRuns));
    limit.throw_if_errors();
  }
  Plan plan;
  for (const auto& a : e.axes)
    plan.axes.push_back(a.name);
  config::Diagnostics d(e.file.string());
  std::vector<std::size_t> choice(e.axes.size(), 0);
  do {
    if (!kept(e, choice)) {
      ++plan.excluded;
      continue;
    }
    std::string combination;
    std::vector<std::string> labels;
    std::filesystem::path scenario = e.scenario;
    std::string scenario_from;
    std::vector<scenario::Override> overrides = e.overrides;
    for (std::size_t i = 0; i < e.axes.size(); ++i) {
      const Variant& v = e.axes[i].variants[choice[i]];
      if (!combination.empty()) combination += ',';
      combination += e.axes[i].name + "=" + directory_safe(v.label);
      labels.push_back(v.label);
      if (v.scenario) {
        if (!scenario_from.empty() && *v.scenario != scenario) {
          d.error("/axes", fmt::format("combination {}: variants {} and {}={} both replace the "
                                       "base scenario",
                                       combination, scenario_from, e.axes[i].name, v.label));
        }
        scenario = *v.scenario;
        scenario_from = e.axes[i].name + "=" + v.label;
      }
      overrides.insert(overrides.end(), v.overrides.begin(), v.overrides.end());
    }
    overrides.insert(overrides.end(), e.final_overrides.begin(), e.final_overrides.end());
    scenario = substitute_labels(scenario, e.axes, labels);
    if (combination.empty()) combination = "base";
    for (std::size_t r = 0; r < e.seeds.size(); ++r) {
      PlannedRun run;
      run.index = plan.runs.size();
      run.combination = plan.combinations;
      run.combination_name = combination;
      run.name = fmt::format("{},seed={}", combination, e.seeds[r]);
      run.labels = labels;
      run.replication = r;
      run.seed = e.seeds[r];
      run.scenario = scenario;
      run.overrides = overrides;
      run.overrides.push_back(scenario::parse_override(fmt::format("seed={}", run.seed)));
      run.overrides.push_back(scenario::parse_override("name=" + nlohmann::json(run.name).dump()));
      plan.runs.push_back(std::move(run));
    }
    ++plan.combinations;
  } while (next_choice(choice, e.axes));
  d.throw_if_errors();
  return plan;
}

}  // namespace sim::sweep
