#pragma once
/// Transformations of a CountSeries, composed in the order a scenario lists them.
///
/// - window(start, duration): keeps [start, start + duration). An interval cut by a window edge
///   keeps the share of its count proportional to the overlap (error diffusion keeps the total).
///   With `rebase` the window start becomes time zero.
/// - rescale(factor): multiplies every count by `factor` (error diffusion: per-bin counts are
///   floor or ceil of the exact product and the running total is exact to one request). A point
///   with count 1 and factor 2.5 becomes points of 2 or 3 requests at the same time.
/// - compress(factor): divides all times by `factor` (2 = twice as fast; counts unchanged, so
///   rates double).
/// - ramp(duration): multiplies the count of a bin (or point) whose midpoint is at t < duration
///   by t / duration, so the load rises linearly from zero over [0, duration) on the series'
///   time axis (after a rebasing window, zero is the window start); later bins are unchanged.
///   A run's warm-up can thus bring a platform up to its operating point instead of starting a
///   cold cluster under the full load at once (docs/traces.md).
/// - prerun(duration): plays the series' own [0, duration) first, then the whole series shifted
///   by `duration`: a pre-run that leaves the platform in the state the experiment's own load
///   builds (containers, geometries) before the experiment starts. The caller lengthens the run
///   and its warm-up by `duration`, so the pre-run's requests are not measured and the measured
///   part sees the same counts at the same offsets from the (shifted) start.
/// Rescaling "to a target mean or peak" needs the statistics of the series it applies to: the
/// caller makes a first pass over a fresh copy of the upstream series (rescale_factor below),
/// which for a rate trace costs one extra read of the file.

#include <memory>
#include <optional>

#include "sim/engine/time.hpp"
#include "sim/traces/count_series.hpp"

namespace sim::traces {

std::unique_ptr<CountSeries> make_window(std::unique_ptr<CountSeries> in, Time start,
                                         std::optional<Time> duration, bool rebase);
std::unique_ptr<CountSeries> make_rescale(std::unique_ptr<CountSeries> in, double factor);
std::unique_ptr<CountSeries> make_compress(std::unique_ptr<CountSeries> in, double factor);
std::unique_ptr<CountSeries> make_ramp(std::unique_ptr<CountSeries> in, Time duration);
/// `head` and `in` are two fresh copies of the same series (the replay reads one, the shifted
/// series the other). Throws std::invalid_argument unless duration > 0.
std::unique_ptr<CountSeries> make_prerun(std::unique_ptr<CountSeries> head,
                                         std::unique_ptr<CountSeries> in, Time duration);

struct RescaleTarget {
  std::optional<double> mean_rate;  ///< requests per second
  std::optional<double> peak_rate;  ///< requests per second, measured over `peak_bin` bins
  Time peak_bin = seconds(1);
};

/// The factor that takes `series` (consumed) to the target. Throws std::invalid_argument if the
/// series is endless or empty, or if the target is not exactly one of mean / peak.
double rescale_factor(CountSeries& series, const RescaleTarget& target);

}  // namespace sim::traces
