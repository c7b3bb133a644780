#pragma once
// dcsim._core.load / run: a scenario loaded and run in memory, its records kept as columns.

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "sim/scenario/registry.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace sim::python {

/// Where a scenario comes from: a file path, or (when `document` is non-empty) JSON text that is
/// labelled `label` in messages, as if it were a file of that name.
struct ScenarioSource {
  std::string path;
  std::string document;
  std::string label;
  /// "KEY.PATH=VALUE" overrides, exactly as `dcsim run --set` takes them.
  std::vector<std::string> overrides;
};

scenario::LoadedScenario load(const ScenarioSource& source, const scenario::Registry& registry);

/// Builds and checks the scenario as `dcsim validate` does; returns the resolved JSON text.
std::string validate(const ScenarioSource& source, const scenario::Registry& registry);

/// Runs the scenario without writing files; returns a dict with "summary" and "scenario" (JSON
/// text), "requests" (column name -> NumPy array, the columns of requests.h5),
/// "function_names", "application_names", "timeseries" (timeseries.csv's text), "events",
/// "wall_seconds" and "partial".
pybind11::dict run(const ScenarioSource& source, const scenario::Registry& registry);

}  // namespace sim::python
