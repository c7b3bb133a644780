#include "warm_pool.hpp"

namespace sim::policy::flashpoint {

Decisions WarmPoolPlanner::plan(const PlatformView& view) {
  Decisions d;
  for (const auto& f : view.functions) {
    if (!f.gpu || instances_ <= 0) continue;
    StartInstance s;
    s.function = f.id;
    s.count = instances_;
    s.warm = true;
    d.start.push_back(s);
  }
  return d;
}

}  // namespace sim::policy::flashpoint
