#pragma once
/// Protean §4.5 cost-aware procurement: a spot VM replaces every spot VM under revocation
/// notice; when the spot request fails (spot capacity unavailable, probability P_rev, the
/// paper's measure of spot availability) an on-demand VM is requested instead. "Spot Only"
/// never falls back: it retries the spot request every retry interval until one succeeds
/// (or, with `retry` off, leaves the worker unreplaced).

#include <cstdint>
#include <deque>
#include <set>
#include <vector>

#include "sim/policy/procurement.hpp"

namespace sim::policy::protean {

struct SpotProcurementConfig {
  int spot_template = 0;        ///< host template of spot workers
  int on_demand_template = 1;   ///< host template of on-demand workers
  double spot_unavailable = 0;  ///< P_rev: probability that a spot request fails
  bool spot_only = false;
  Time retry_interval = seconds(60);
  bool retry = true;  ///< Spot Only: retry a failed spot request (false: never)
  /// Zero: each spot request fails independently with probability spot_unavailable. Longer:
  /// spot capacity is drawn once per interval of this length from time zero (missing with
  /// probability spot_unavailable), and every request of an interval where it is missing fails.
  Time availability_interval;
};

class SpotProcurement final : public Procurement {
 public:
  SpotProcurement(SpotProcurementConfig config, RandomStream rng)
      : config_(config), rng_(std::move(rng)) {}
  Decisions decide(const PlatformView& view) override;

 private:
  /// Whether a spot request made at `now` fails (see availability_interval).
  bool spot_fails(Time now);

  SpotProcurementConfig config_;
  RandomStream rng_;
  std::set<int> handled_;  ///< hosts whose revocation notice was answered
  std::deque<int> owed_;   ///< Spot Only: hosts whose replacement is still to obtain
  Time next_retry_;
  std::int64_t drawn_interval_ = -1;  ///< availability_interval: the interval last drawn
  bool missing_ = false;              ///< and whether spot capacity is missing in it
};

}  // namespace sim::policy::protean
