#pragma once
/// Idle-time histograms over a sliding observation window (Shahrad et al., ATC'20 §4.2; INFless
/// §3.5): an idle time is the time between two invocations of a function, binned in minutes.

#include <cstddef>
#include <deque>
#include <optional>

#include "sim/engine/time.hpp"

namespace sim::policy::infless {

class IdleHistogram {
 public:
  /// `window`: idle times observed longer ago than this are forgotten (INFless: 24 h and 1 h);
  /// `bin`: the bin width (1 minute); `range`: longer idle times are out of bounds.
  IdleHistogram(Time window, Time bin, Time range);
  void add(Time observed_at, Time idle);
  /// Drops what was observed before now - window; true when anything was dropped.
  bool expire(Time now);
  [[nodiscard]] std::size_t count() const { return samples_.size(); }
  [[nodiscard]] std::size_t out_of_bounds() const;
  /// The p-th percentile (0..100) of the in-range idle times at bin resolution: the lower edge
  /// of its bin for a head (`upper` false), the upper edge for a tail. nullopt when empty.
  [[nodiscard]] std::optional<Time> percentile(double p, bool upper) const;
  /// Coefficient of variation of the bin counts (Shahrad et al.: < 2 = not representative).
  [[nodiscard]] double bin_count_cv() const;

 private:
  struct Sample {
    Time at;
    Time idle;
  };
  Time window_;
  Time bin_;
  Time range_;
  std::deque<Sample> samples_;
};

}  // namespace sim::policy::infless
