#pragma once
// dcsim._core.sweep: an experiment run on threads by the sweep library, as `dcsim sweep` runs it.

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace sim::python {

/// Runs every run of the experiment on `jobs` threads into OUT/NAME/ and writes results.csv
/// and aggregate.csv there, exactly as `dcsim sweep EXPERIMENT --out OUT --jobs JOBS` does.
/// Returns a dict: "directory" (OUT/NAME), "runs", "failed". Python policies do
/// not apply (the runs happen on threads without the interpreter).
pybind11::dict sweep(const std::string& experiment, const std::vector<std::string>& overrides,
                     std::size_t jobs, const std::string& out_dir);

}  // namespace sim::python
