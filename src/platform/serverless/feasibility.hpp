#pragma once
/// Placement feasibility: whether an instance of a function with a given configuration may
/// start at a location, given the hosts and the instances already there. The one statement of
/// the platform's placement rules (docs/policy-authors.md "Placement"): the platform checks
/// every start with it.

#include <optional>

#include "model.hpp"

namespace sim::platform::serverless {

/// True when `fn` with `config` fits at `loc`: the host is up with `bytes` of free memory and
/// the cores, the GPU (or MIG slice) is enabled with the memory, and the sharing rules hold
/// (exclusive GPUs, cGPU windows, INFless SM shares).
[[nodiscard]] bool fits(const Fn& fn, const policy::InstanceConfig& config,
                        const policy::Location& loc, double bytes, const Hosts& hosts,
                        const Instances& instances);

/// Start (GB units of the cGPU cycle) of the first free window of m_gb on `loc`, if any.
[[nodiscard]] std::optional<double> time_slice_window(const Fn& fn, const policy::Location& loc,
                                                      double m_gb, const Instances& instances);

}  // namespace sim::platform::serverless
