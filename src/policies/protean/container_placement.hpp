#pragma once
/// Placement policies for autoscalers that leave the location to the platform: Protean's
/// Algorithm 1 slice choice for a new container, or the baselines' load balancing by free
/// memory (Naive Slicing: "load-balanced according to slice memory", Protean §5).

#include "protean_autoscaler.hpp"
#include "sim/policy/placement.hpp"

namespace sim::policy::protean {

class ContainerPlacementPolicy final : public Placement {
 public:
  explicit ContainerPlacementPolicy(ContainerPlacement mode,
                                    AdmissionMemory memory = AdmissionMemory::kPlatform,
                                    SliceOrder by = SliceOrder::kMemoryThenCompute)
      : mode_(mode), memory_(memory), by_(by) {}
  std::optional<Location> place(const PlacementRequest& request, const PlatformView& view) override;

 private:
  ContainerPlacement mode_;
  AdmissionMemory memory_;  ///< as ProteanAutoscalerConfig::admission_memory
  SliceOrder by_;           ///< as ProteanAutoscalerConfig::slice_order
};

}  // namespace sim::policy::protean
