#pragma once
/// The platform's GPU-memory rule for placing a container, as one numeric function: the
/// serverless platform checks every start with it (src/platform/serverless/feasibility.cpp
/// `fits`), and placement policies ask it through policy::container_fits (platform_view.hpp),
/// so a policy cannot guess the rule differently from what the platform enforces.

namespace sim::policy {

/// Sums of GB fractions drift; both sides of the rule allow this much.
inline constexpr double kMemoryToleranceGb = 1e-9;

/// True when a container holding `container_resident_gb` for its lifetime fits a GPU or MIG
/// slice of `capacity_gb` with `free_gb` free: its resident memory fits what is free now, and
/// `place_resident_gb` (the place's resident memory including this container's, summed in the
/// caller's order) plus `largest_activation_gb` (the largest per-batch activations among the
/// place's containers and this one) fits the place, so that a batch of every container there
/// can start once the others are idle (docs/policy-authors.md "Placement"). Without
/// activations (container_memory batch-footprint) this is free_gb >= container_resident_gb.
[[nodiscard]] bool memory_fits(double free_gb, double container_resident_gb,
                               double place_resident_gb, double largest_activation_gb,
                               double capacity_gb);

}  // namespace sim::policy
