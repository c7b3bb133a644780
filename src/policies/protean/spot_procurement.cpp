#include "spot_procurement.hpp"

namespace sim::policy::protean {

bool SpotProcurement::spot_fails(Time now) {
  if (config_.availability_interval <= Time::zero()) {
    return rng_.uniform01() < config_.spot_unavailable;
  }
  // The availability of the interval holding `now`, drawn at its first request.
  const auto k =
      static_cast<std::int64_t>(now.to_seconds() / config_.availability_interval.to_seconds());
  if (k != drawn_interval_) {
    drawn_interval_ = k;
    missing_ = rng_.uniform01() < config_.spot_unavailable;
  }
  return missing_;
}

Decisions SpotProcurement::decide(const PlatformView& view) {
  Decisions d;
  std::vector<int> noticed;
  for (const auto& h : view.hosts) {
    if (h.revocation_at && handled_.insert(h.index).second) noticed.push_back(h.index);
  }
  // §4.5: "On receipt of the eviction notification, we retry for another spot VM and only
  // issue an on-demand VM request if the spot request fails." Each request names the host it
  // replaces, to which the platform redirects the traffic once it is up (spot_drain).
  for (const int h : noticed) {
    if (!spot_fails(view.now)) {
      d.request_vms.push_back({config_.spot_template, Market::kSpot, h});
    } else if (!config_.spot_only) {
      d.request_vms.push_back({config_.on_demand_template, Market::kOnDemand, h});
    } else if (config_.retry) {
      if (owed_.empty()) next_retry_ = view.now + config_.retry_interval;
      owed_.push_back(h);
    }
  }
  // Spot Only: retry the failed requests.
  while (!owed_.empty() && noticed.empty() && view.now >= next_retry_) {
    if (!spot_fails(view.now)) {
      d.request_vms.push_back({config_.spot_template, Market::kSpot, owed_.front()});
      owed_.pop_front();
    } else {
      next_retry_ = view.now + config_.retry_interval;
      break;
    }
  }
  return d;
}

}  // namespace sim::policy::protean
