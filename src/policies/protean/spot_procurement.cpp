#include "spot_procurement.hpp"

namespace sim::policy::protean {

Decisions SpotProcurement::decide(const PlatformView& view) {
  Decisions d;
  int noticed = 0;
  for (const auto& h : view.hosts) {
    if (h.revocation_at && handled_.insert(h.index).second) ++noticed;
  }
  // One spot request per notice (retry spot first, §4.5).
  for (int k = 0; k < noticed; ++k) {
    if (rng_.uniform01() >= config_.spot_unavailable) {
      d.request_vms.push_back({config_.spot_template, Market::kSpot});
    } else if (!config_.spot_only) {
      d.request_vms.push_back({config_.on_demand_template, Market::kOnDemand});
    } else {
      if (owed_ == 0) next_retry_ = view.now + config_.retry_interval;
      ++owed_;
    }
  }
  // Spot Only: retry the failed requests.
  while (owed_ > 0 && noticed == 0 && view.now >= next_retry_) {
    if (rng_.uniform01() >= config_.spot_unavailable) {
      d.request_vms.push_back({config_.spot_template, Market::kSpot});
      --owed_;
    } else {
      next_retry_ = view.now + config_.retry_interval;
      break;
    }
  }
  return d;
}

}  // namespace sim::policy::protean
