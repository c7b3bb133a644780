#include "planners.hpp"

namespace sim::policy::reference {

Decisions InitialPoolPlanner::plan(const PlatformView& view) {
  Decisions d;
  if (instances_ <= 0) return d;
  for (const auto& f : view.functions)
    d.start.push_back({f.id, instances_, std::nullopt, std::nullopt});
  return d;
}

}  // namespace sim::policy::reference
