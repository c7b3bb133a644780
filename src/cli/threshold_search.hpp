#pragma once
// The threshold search behind `dcsim calibrate` (Flashpoint thesis §8.4, §8.5): which value of
// one autoscaler threshold brings a run's replicas per second, or its mean latency, to a
// target. Runs are supplied by the caller, so the search itself knows nothing of scenarios.

#include <functional>
#include <optional>
#include <utility>

namespace sim::cli {

struct ThresholdSearch {
  double low = 0.0;   ///< > 0: the search works on the threshold's logarithm
  double high = 0.0;  ///< > low; a larger threshold keeps fewer replicas
  double target = 0.0;
  double tolerance = 0.05;
  int iterations = 10;
  /// Match the mean latency (one-sided: in [target, target x (1 + tolerance)], §8.5) instead
  /// of the replicas per second (within tolerance either way, §8.4).
  bool by_latency = false;
};

/// One run at a threshold: (the measured metric, replicas per second); nullopt when the run was
/// interrupted.
using ThresholdRun = std::function<std::optional<std::pair<double, double>>(double threshold)>;

struct ThresholdResult {
  bool matched = false;
  bool interrupted = false;
  double threshold = 0.0;  ///< the match (latency: the one with fewest replicas), else closest
  double error = 0.0;      ///< |measured / target - 1| there
  double replicas = 0.0;
  /// Latency searches: the slowest run faster than the target and the fastest run slower than
  /// the band, (latency, replicas), which bound the resources the target needs.
  std::optional<std::pair<double, double>> faster, slower;
};

/// Replicas: bisection on log(threshold). Latency, which need not be monotone in the threshold
/// (too few replicas queue, too many share the store link): a geometric grid of
/// min(iterations / 2, 6) thresholds, then bisection in the crossing from below the target to
/// above it at the largest threshold; when the whole grid is slower, first a narrowing in on
/// its fastest point until a run is faster than the target.
ThresholdResult search_threshold(const ThresholdSearch& s, const ThresholdRun& run);

}  // namespace sim::cli
