#include "sim/traces/trace_stats.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <limits>
#include <map>
#include <optional>
#include <stdexcept>

namespace sim::traces {

namespace {

/// Most rows `--rate-csv` writes; ~20 bytes a row, so ~2 GB.
constexpr std::int64_t kMaxRateCsvRows = 100'000'000;

/// Median of a histogram {value: occurrences} with `n` entries; the mean of the two middle
/// values when n is even (as Python's statistics.median, used for the SOURCE.md figures).
double histogram_median(const std::map<std::uint64_t, std::uint64_t>& hist, std::uint64_t n) {
  if (n == 0) return 0.0;
  const std::uint64_t lo_rank = (n - 1) / 2;  // 0-based ranks of the middle values
  const std::uint64_t hi_rank = n / 2;
  std::uint64_t seen = 0;
  std::optional<double> lo;
  for (const auto& [value, count] : hist) {
    if (!lo && lo_rank < seen + count) lo = static_cast<double>(value);
    if (hi_rank < seen + count) return 0.5 * (*lo + static_cast<double>(value));
    seen += count;
  }
  return lo.value_or(0.0);
}

}  // namespace

TraceStats compute_series_stats(CountSeries& series, std::optional<Time> bin,
                                std::ostream* rate_csv) {
  if (!series.finite()) {
    throw std::invalid_argument("trace statistics need a series with an end (set a duration)");
  }
  TraceStats s;
  CountBin b;
  bool first = true;
  Time width;
  std::int64_t current = 0;  // index of the stats bin being filled
  std::uint64_t current_count = 0;
  std::map<std::uint64_t, std::uint64_t> hist;
  std::uint64_t peak = 0;
  std::uint64_t low = std::numeric_limits<std::uint64_t>::max();
  if (rate_csv != nullptr) *rate_csv << "time_s,rate_per_s,requests\n";

  auto close_bin = [&](std::int64_t k, std::uint64_t count) {
    ++hist[count];
    ++s.full_bins;
    if (s.full_bins == 1 || count > peak) {
      peak = count;
      s.peak_at = s.start + width * k;
    }
    low = std::min(low, count);
    if (rate_csv != nullptr) {
      fmt::print(*rate_csv, "{},{},{}\n", (s.start + width * k).to_seconds(),
                 static_cast<double>(count) / width.to_seconds(), count);
    }
  };

  while (series.next(b)) {
    if (first) {
      first = false;
      s.start = b.start;
      width = std::max(bin.value_or(seconds(1)), b.length);
      if (width <= Time::zero()) throw std::invalid_argument("statistics bin must be positive");
      s.end = b.end();
    }
    const std::int64_t k = (b.start - s.start).ns() / width.ns();
    if (k > current) {
      close_bin(current, current_count);
      const std::int64_t empty_bins = k - current - 1;
      if (rate_csv != nullptr) {
        // One CSV row per bin: the output, not the data, would grow without bound.
        if (k >= kMaxRateCsvRows) {
          throw std::invalid_argument(fmt::format(
              "the rate CSV would have more than {} rows with a {} bin; choose a wider bin",
              kMaxRateCsvRows, to_string(width)));
        }
        for (std::int64_t z = current + 1; z < k; ++z)
          close_bin(z, 0);
      } else if (empty_bins > 0) {
        // Empty bins in bulk: the cost follows the data, not the time span over the bin width
        // (a 1 ns bin over an hour used to walk 3.6e12 bins).
        hist[0] += static_cast<std::uint64_t>(empty_bins);
        s.full_bins += static_cast<std::uint64_t>(empty_bins);
        low = 0;
      }
      current = k;
      current_count = 0;
    }
    const std::uint64_t n = b.total();
    current_count += n;
    s.requests += n;
    s.end = std::max(s.end, b.end());
  }
  s.report = series.report();
  s.substreams = series.substreams().size();
  if (first) return s;  // empty series
  s.bin = width;
  // The last stats bin counts only if the trace covers all of it.
  if (s.start + width * (current + 1) <= s.end) close_bin(current, current_count);
  s.duration_s = (s.end - s.start).to_seconds();
  s.mean_rate = s.duration_s > 0 ? static_cast<double>(s.requests) / s.duration_s : 0.0;
  const double w = width.to_seconds();
  s.median_rate = histogram_median(hist, s.full_bins) / w;
  s.peak_rate = static_cast<double>(peak) / w;
  s.min_rate = s.full_bins > 0 ? static_cast<double>(low) / w : 0.0;
  s.peak_to_mean = s.mean_rate > 0 ? s.peak_rate / s.mean_rate : 0.0;
  s.peak_to_median = s.median_rate > 0 ? s.peak_rate / s.median_rate : 0.0;
  return s;
}

void print_trace_info(const TraceStats& s, std::ostream& out) {
  fmt::print(out, "file:            {}\n", s.file);
  fmt::print(out, "reader:          {}\n", s.reader);
  fmt::print(out, "requests:        {}\n", s.requests);
  fmt::print(out, "start:           {:.3f} s\n", s.start.to_seconds());
  fmt::print(out, "duration:        {:.3f} s ({:.2f} h)\n", s.duration_s, s.duration_s / 3600.0);
  fmt::print(out, "bin:             {} ({} full bins)\n", to_string(s.bin), s.full_bins);
  fmt::print(out, "mean rate:       {:.3f} /s\n", s.mean_rate);
  fmt::print(out, "median rate:     {:.3f} /s\n", s.median_rate);
  fmt::print(out, "min rate:        {:.3f} /s\n", s.min_rate);
  fmt::print(out, "peak rate:       {:.3f} /s (bin starting at {:.3f} s)\n", s.peak_rate,
             s.peak_at.to_seconds());
  fmt::print(out, "peak-to-mean:    {:.3f}\n", s.peak_to_mean);
  fmt::print(out, "peak-to-median:  {:.3f}\n", s.peak_to_median);
  fmt::print(out, "functions:       {}\n", s.substreams);
  fmt::print(out, "rows read:       {}\n", s.report.rows);
  if (s.report.skipped_rows > 0) {
    fmt::print(out, "skipped rows:    {} (lenient mode; first: {})\n", s.report.skipped_rows,
               s.report.first_problem);
  }
  if (s.report.duplicates > 0) {
    fmt::print(out, "duplicate times: {}\n", s.report.duplicates);
  }
}

}  // namespace sim::traces
