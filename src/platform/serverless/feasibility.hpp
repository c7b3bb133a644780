#pragma once
/// Placement feasibility: whether an instance of a function with a given configuration may
/// start at a location, given the hosts and the instances already there. The one statement of
/// the platform's placement rules (docs/policy-authors.md "Placement"): the platform checks
/// every start with it.

#include <optional>
#include <span>

#include "model.hpp"

namespace sim::platform::serverless {

/// GPU memory an instance holds: for its lifetime, and on top of it while a batch runs.
struct MemoryCharge {
  double resident_gb = 0.0;
  double activation_gb = 0.0;
};

/// What an instance of `fn` with `config` holds under `mode`. kWeightsResident splits the
/// batch footprint into the weights (the model's bytes, at most the footprint) and the rest,
/// a batch's activations; time-sliced (cGPU pages its memory), operator-profile and CPU
/// instances keep the whole footprint (nothing per batch).
[[nodiscard]] MemoryCharge memory_charge(const Fn& fn, const policy::InstanceConfig& config,
                                         ContainerMemory mode);

/// True when `fn` with `config` fits at `loc`: the host is up with `bytes` of free memory and
/// the cores, the GPU (or MIG slice) is enabled with the memory, and the sharing rules hold
/// (exclusive GPUs, cGPU windows, INFless SM shares). `on_host`: the live instances on
/// loc.host in ascending id order (ControlPlane::on_host; a per-host list, because a scan of
/// every instance per start dominated large runs' start-up). Under kWeightsResident the place
/// must hold the weights of its instances and of this one plus the largest activations among
/// them, so that every instance there can run a batch once the others are idle. `freed_gb`:
/// GPU memory of the place counted as free besides what is free now (the memory of idle
/// instances left out of `on_host` to be evicted, EvictIdle).
[[nodiscard]] bool fits(const Fn& fn, const policy::InstanceConfig& config,
                        const policy::Location& loc, double bytes, const Hosts& hosts,
                        std::span<const Inst* const> on_host,
                        ContainerMemory mode = ContainerMemory::kBatchFootprint,
                        double freed_gb = 0.0);

/// Start (GB units of the cGPU cycle) of the first free window of m_gb on `loc`, if any.
[[nodiscard]] std::optional<double> time_slice_window(const Fn& fn, const policy::Location& loc,
                                                      double m_gb,
                                                      std::span<const Inst* const> on_host);

}  // namespace sim::platform::serverless
