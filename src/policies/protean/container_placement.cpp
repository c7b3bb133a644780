#include "container_placement.hpp"

namespace sim::policy::protean {

std::optional<Location> ContainerPlacementPolicy::place(const PlacementRequest& request,
                                                        const PlatformView& view) {
  if (request.function == nullptr || !request.function->gpu) return std::nullopt;
  auto places = cluster_places(view, LoadScope::kLive, {}, memory_);
  if (mode_ == ContainerPlacement::kJobDistribution) {
    tag_places(places, view, ContainerCount::kInFlight, 1.0, ContainerScope::kCluster, by_);
  }
  const auto p = ProteanAutoscaler::place_container(*request.function, places, mode_, by_);
  if (!p) return std::nullopt;
  return places[*p].location;
}

}  // namespace sim::policy::protean
