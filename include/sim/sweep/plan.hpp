#pragma once
/// The runs of an experiment: the cartesian product of its axes (the first axis varies
/// slowest), minus filtered combinations, times its seeds. The order is fixed by the file, so
/// every executor (threads or MPI ranks) numbers the runs the same way.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/scenario/overrides.hpp"
#include "sim/sweep/experiment.hpp"

namespace sim::sweep {

struct PlannedRun {
  std::size_t index = 0;            ///< position in the plan
  std::size_t combination = 0;      ///< index of its combination among the kept ones
  std::string combination_name;     ///< "load=100_s,keepalive=short" ("base" without axes)
  std::string name;                 ///< combination_name + ",seed=N": the run's directory
  std::vector<std::string> labels;  ///< one per axis, as written in the experiment
  std::size_t replication = 0;
  std::uint64_t seed = 0;
  std::filesystem::path scenario;  ///< the base scenario file of this run
  /// Experiment "set", then each axis's overrides in axis order, then the final (command
  /// line) overrides, then seed and name.
  std::vector<scenario::Override> overrides;
};

struct Plan {
  std::vector<std::string> axes;  ///< axis names, in order
  std::vector<PlannedRun> runs;
  std::size_t combinations = 0;  ///< kept combinations
  std::size_t excluded = 0;      ///< combinations dropped by the filters
};

/// The scenario path with every "{AXIS}" replaced by the combination's label on that axis
/// (labels[i] belongs to axes[i]), so that one experiment can pick among generated files:
/// "../protean/tight-slo-{model}/{scheme}.json".
std::filesystem::path substitute_labels(const std::filesystem::path& file,
                                        const std::vector<Axis>& axes,
                                        const std::vector<std::string>& labels);

/// Expands an experiment. Throws config::ConfigError naming the experiment file when two
/// variants of one combination each name a different base scenario.
Plan expand(const Experiment& experiment);

}  // namespace sim::sweep
