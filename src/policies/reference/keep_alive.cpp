#include "keep_alive.hpp"

namespace sim::policy::reference {

Time FixedKeepAlive::idle_timeout(const InstanceView&, const FunctionView&) {
  return keep_alive_;
}

Decisions FixedKeepAlive::prewarm(const PlatformView& view) {
  Decisions out;
  for (const auto& f : view.functions) {
    const int missing = min_warm_ - f.live();
    if (missing > 0) out.start.push_back({f.id, missing, std::nullopt, std::nullopt});
  }
  return out;
}

}  // namespace sim::policy::reference
