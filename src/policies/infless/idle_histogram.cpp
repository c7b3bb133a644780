#include "idle_histogram.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace sim::policy::infless {

IdleHistogram::IdleHistogram(Time window, Time bin, Time range)
    : window_(window), bin_(bin), range_(range) {}

void IdleHistogram::add(Time observed_at, Time idle) {
  samples_.push_back({observed_at, idle});
}

bool IdleHistogram::expire(Time now) {
  bool dropped = false;
  while (!samples_.empty() && samples_.front().at < now - window_) {
    samples_.pop_front();
    dropped = true;
  }
  return dropped;
}

std::size_t IdleHistogram::out_of_bounds() const {
  return static_cast<std::size_t>(std::count_if(samples_.begin(), samples_.end(),
                                                [&](const Sample& s) { return s.idle >= range_; }));
}

std::optional<Time> IdleHistogram::percentile(double p, bool upper) const {
  std::vector<std::int64_t> bins;
  for (const Sample& s : samples_)
    if (s.idle < range_) bins.push_back(s.idle.ns() / bin_.ns());
  if (bins.empty()) return std::nullopt;
  std::sort(bins.begin(), bins.end());
  // Nearest rank: the smallest bin holding at least p% of the idle times.
  const auto n = static_cast<double>(bins.size());
  const auto rank = static_cast<std::size_t>(std::max(1.0, std::ceil(p / 100.0 * n - 1e-9)));
  const std::int64_t b = bins[std::min(rank, bins.size()) - 1];
  return bin_ * (upper ? b + 1 : b);
}

double IdleHistogram::bin_count_cv() const {
  const auto bins = static_cast<std::size_t>(range_.ns() / bin_.ns());
  if (bins == 0) return 0.0;
  std::vector<double> counts(bins, 0.0);
  for (const Sample& s : samples_)
    if (s.idle < range_) counts[static_cast<std::size_t>(s.idle.ns() / bin_.ns())] += 1.0;
  double mean = 0.0;
  for (double c : counts)
    mean += c;
  mean /= static_cast<double>(bins);
  if (mean <= 0.0) return 0.0;
  double var = 0.0;
  for (double c : counts)
    var += (c - mean) * (c - mean);
  var /= static_cast<double>(bins);
  return std::sqrt(var) / mean;
}

}  // namespace sim::policy::infless
