#include "container_placement.hpp"

namespace sim::policy::protean {

std::optional<Location> ContainerPlacementPolicy::place(const PlacementRequest& request,
                                                        const PlatformView& view) {
  if (request.function == nullptr || !request.function->gpu) return std::nullopt;
  auto places = cluster_places(view, LoadScope::kLive);
  if (mode_ == ContainerPlacement::kJobDistribution) tag_places(places, view);
  const auto p = ProteanAutoscaler::place_container(*request.function, places, mode_);
  if (!p) return std::nullopt;
  return places[*p].location;
}

}  // namespace sim::policy::protean
