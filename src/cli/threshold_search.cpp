#include "threshold_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace sim::cli {

namespace {

/// The state of one search: every run goes through try_threshold(), which keeps the result.
class Search {
 public:
  Search(const ThresholdSearch& s, const ThresholdRun& run) : s_(s), run_(run) {
    result_.threshold = s.low;
    result_.error = std::numeric_limits<double>::infinity();
  }

  /// Thesis §8.5: a compared system's latency stays at or above Flashpoint's (it may use
  /// fewer resources, never more), within tolerance; replicas match either way (§8.4).
  [[nodiscard]] bool within(double measured) const {
    const double e = measured / s_.target - 1.0;
    return s_.by_latency ? e >= 0 && e <= s_.tolerance : std::abs(e) <= s_.tolerance;
  }

  /// Runs at exp(x); nullopt when interrupted.
  std::optional<double> try_log(double x) {
    // exp(log(high)) may come out a rounding above high, past a schema maximum.
    const double t = std::clamp(std::exp(x), s_.low, s_.high);
    const auto got = run_(t);
    ++runs_;
    if (!got) {
      result_.interrupted = true;
      return std::nullopt;
    }
    const auto [measured, replicas] = *got;
    const double e = std::abs(measured / s_.target - 1.0);
    auto& faster = result_.faster;
    auto& slower = result_.slower;
    if (measured < s_.target && (!faster || measured > faster->first)) {
      faster = {measured, replicas};
    }
    if (measured > s_.target && !within(measured) && (!slower || measured < slower->first)) {
      slower = {measured, replicas};
    }
    if (within(measured)) {
      if (!result_.matched || replicas < result_.replicas) keep(t, e, replicas);
      result_.matched = true;
    } else if (!result_.matched &&
               (e < result_.error || (e == result_.error && replicas < result_.replicas))) {
      // Equally close (a metric the threshold does not move): the fewest replicas.
      keep(t, e, replicas);
    }
    return measured;
  }

  [[nodiscard]] bool more() const {
    return !result_.matched && !result_.interrupted && runs_ < s_.iterations;
  }

  ThresholdResult run() {
    double a = std::log(s_.low), b = std::log(s_.high);
    if (!s_.by_latency) {
      // Replicas fall as the threshold grows: too many, raise it.
      while (more()) {
        const double x = (a + b) / 2.0;
        const auto m = try_log(x);
        if (!m) break;
        (*m > s_.target ? a : b) = x;
      }
      return result_;
    }
    if (latency_bracket(a, b)) {
      while (more()) {
        const double x = (a + b) / 2.0;
        const auto m = try_log(x);
        if (!m) break;
        // Below the target: more replicas than needed, raise the threshold.
        (*m < s_.target ? a : b) = x;
      }
    }
    return result_;
  }

 private:
  void keep(double t, double e, double replicas) {
    result_.threshold = t;
    result_.error = e;
    result_.replicas = replicas;
  }

  /// The grid, then (if needed) the narrowing in: sets [a, b] (log thresholds) to a crossing
  /// from below the target to above it, or returns false.
  bool latency_bracket(double& a, double& b) {
    const int grid = std::clamp(s_.iterations / 2, 1, 6);
    std::vector<std::pair<double, double>> points;  // (log threshold, latency)
    for (int g = 0; g < grid; ++g) {
      const double x = grid == 1 ? (a + b) / 2.0 : a + (b - a) * g / (grid - 1);
      const auto m = try_log(x);
      if (!m) return false;
      points.emplace_back(x, *m);
    }
    if (result_.matched) return false;
    for (std::size_t g = points.size(); g-- > 1;) {
      if (points[g - 1].second < s_.target && points[g].second > s_.target) {
        a = points[g - 1].first;
        b = points[g].first;
        return true;
      }
    }
    if (points.size() < 3) return false;
    // Every grid point is off target on the same side; when they are all slower, the latency
    // may still dip below the target near its minimum (U-shaped). Narrow in on the grid's
    // fastest point, halving the wider side around it, until a run is below the target: the
    // crossing then lies between that run and its slower neighbour on the right.
    const auto best = std::min_element(points.begin(), points.end(),
                                       [](auto& p, auto& q) { return p.second < q.second; });
    const auto i = static_cast<std::size_t>(best - points.begin());
    double l = points[i == 0 ? 0 : i - 1].first;
    double m = points[i].first;
    double r = points[std::min(i + 1, points.size() - 1)].first;
    double lm = points[i].second;
    while (more() && lm > s_.target && r - l > 1e-9) {
      const bool left = m - l > r - m;
      const double x = left ? (l + m) / 2.0 : (m + r) / 2.0;
      const auto lx = try_log(x);
      if (!lx) return false;
      if (*lx < s_.target) {
        a = x;
        b = left ? m : r;
        return true;
      }
      if (*lx < lm) {
        (left ? r : l) = m;
        m = x;
        lm = *lx;
      } else {
        (left ? l : r) = x;
      }
    }
    return false;
  }

  const ThresholdSearch& s_;
  const ThresholdRun& run_;
  ThresholdResult result_;
  int runs_ = 0;
};

}  // namespace

ThresholdResult search_threshold(const ThresholdSearch& s, const ThresholdRun& run) {
  return Search(s, run).run();
}

}  // namespace sim::cli
