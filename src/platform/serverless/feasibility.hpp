#pragma once
/// Placement feasibility: whether an instance of a function with a given configuration may
/// start at a location, given the hosts and the instances already there. The one statement of
/// the platform's placement rules (docs/policy-authors.md "Placement"): the platform checks
/// every start with it.

#include <optional>
#include <span>

#include "model.hpp"

namespace sim::platform::serverless {

/// True when `fn` with `config` fits at `loc`: the host is up with `bytes` of free memory and
/// the cores, the GPU (or MIG slice) is enabled with the memory, and the sharing rules hold
/// (exclusive GPUs, cGPU windows, INFless SM shares). `on_host`: the live instances on
/// loc.host in ascending id order (ControlPlane::on_host; a per-host list, because a scan of
/// every instance per start dominated large runs' start-up).
[[nodiscard]] bool fits(const Fn& fn, const policy::InstanceConfig& config,
                        const policy::Location& loc, double bytes, const Hosts& hosts,
                        std::span<const Inst* const> on_host);

/// Start (GB units of the cGPU cycle) of the first free window of m_gb on `loc`, if any.
[[nodiscard]] std::optional<double> time_slice_window(const Fn& fn, const policy::Location& loc,
                                                      double m_gb,
                                                      std::span<const Inst* const> on_host);

}  // namespace sim::platform::serverless
