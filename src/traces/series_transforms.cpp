#include "sim/traces/series_transforms.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/traces/trace_stats.hpp"

namespace sim::traces {

namespace {

/// Forwards labels, finiteness and the read report of the series it wraps.
class Wrapper : public CountSeries {
 public:
  explicit Wrapper(std::unique_ptr<CountSeries> in) : in_(std::move(in)) {}
  [[nodiscard]] const std::vector<SubstreamLabel>& substreams() const override {
    return in_->substreams();
  }
  [[nodiscard]] bool finite() const override { return in_->finite(); }
  [[nodiscard]] ReadReport report() const override { return in_->report(); }

 protected:
  std::unique_ptr<CountSeries> in_;
};

/// Per-sub-stream error diffusion, so that each function keeps its own total.
class Rounders {
 public:
  std::uint64_t round(std::uint32_t substream, double amount) {
    if (substream >= rounders_.size()) rounders_.resize(substream + 1);
    return rounders_[substream].round(amount);
  }

 private:
  std::vector<CarryRounder> rounders_;
};

void scale_counts(CountBin& bin, double factor, Rounders& rounders) {
  std::size_t out = 0;
  for (std::size_t i = 0; i < bin.counts.size(); ++i) {
    const auto [substream, count] = bin.counts[i];
    const std::uint64_t c = rounders.round(substream, static_cast<double>(count) * factor);
    if (c > 0) bin.counts[out++] = {substream, c};
  }
  bin.counts.resize(out);
}

class WindowSeries final : public Wrapper {
 public:
  WindowSeries(std::unique_ptr<CountSeries> in, Time start, std::optional<Time> duration,
               bool rebase)
      : Wrapper(std::move(in)),
        start_(start),
        end_(duration ? start + *duration : Time::max()),
        rebase_(rebase) {
    if (start < Time::zero() || (duration && *duration <= Time::zero())) {
      throw std::invalid_argument("window: start must be >= 0 and duration > 0");
    }
  }
  bool next(CountBin& bin) override {
    while (!done_ && in_->next(bin)) {
      if (bin.start >= end_) break;  // bins are in time order: nothing later can overlap
      const Time lo = std::max(bin.start, start_);
      const Time hi = std::min(bin.end(), end_);
      if (bin.length == Time::zero()) {
        if (bin.start < start_) continue;
      } else {
        if (hi <= lo) continue;
        if (lo != bin.start || hi != bin.end()) {
          // Cut interval: keep the share of its count that falls inside (uniform within it).
          scale_counts(bin, (hi - lo) / bin.length, rounders_);
          bin.start = lo;
          bin.length = hi - lo;
        }
      }
      if (rebase_) bin.start -= start_;
      return true;
    }
    done_ = true;
    return false;
  }
  [[nodiscard]] bool finite() const override { return end_ != Time::max() || in_->finite(); }

 private:
  Time start_;
  Time end_;
  bool rebase_;
  bool done_ = false;
  Rounders rounders_;
};

class RescaleSeries final : public Wrapper {
 public:
  RescaleSeries(std::unique_ptr<CountSeries> in, double factor)
      : Wrapper(std::move(in)), factor_(factor) {
    if (!(factor >= 0) || !std::isfinite(factor)) {
      throw std::invalid_argument("rescale: factor must be finite and >= 0");
    }
  }
  bool next(CountBin& bin) override {
    if (!in_->next(bin)) return false;
    scale_counts(bin, factor_, rounders_);
    return true;
  }

 private:
  double factor_;
  Rounders rounders_;
};

class CompressSeries final : public Wrapper {
 public:
  CompressSeries(std::unique_ptr<CountSeries> in, double factor)
      : Wrapper(std::move(in)), factor_(factor) {
    if (!(factor > 0) || !std::isfinite(factor)) {
      throw std::invalid_argument("compress: factor must be finite and > 0");
    }
  }
  bool next(CountBin& bin) override {
    if (!in_->next(bin)) return false;
    // Start and end are mapped separately, so consecutive bins stay back to back.
    const Time end = scale(bin.end());
    bin.start = scale(bin.start);
    bin.length = end - bin.start;
    return true;
  }

 private:
  [[nodiscard]] Time scale(Time t) const {
    return Time::from_ns(
        static_cast<std::int64_t>(std::llround(static_cast<double>(t.ns()) / factor_)));
  }
  double factor_;
};

class RampSeries final : public Wrapper {
 public:
  RampSeries(std::unique_ptr<CountSeries> in, Time duration)
      : Wrapper(std::move(in)), duration_(duration) {
    if (duration <= Time::zero()) throw std::invalid_argument("ramp: duration must be > 0");
  }
  bool next(CountBin& bin) override {
    if (!in_->next(bin)) return false;
    // The bin's midpoint stands for its requests (a point: its time).
    const Time mid = bin.start + bin.length / 2;
    if (mid < duration_) scale_counts(bin, std::max(0.0, mid / duration_), rounders_);
    return true;
  }

 private:
  Time duration_;
  Rounders rounders_;
};

class PrerunSeries final : public Wrapper {
 public:
  PrerunSeries(std::unique_ptr<CountSeries> head, std::unique_ptr<CountSeries> in, Time duration)
      : Wrapper(std::move(in)), duration_(duration) {
    if (duration <= Time::zero()) throw std::invalid_argument("prerun: duration must be > 0");
    head_ = make_window(std::move(head), Time::zero(), duration, false);
  }
  bool next(CountBin& bin) override {
    if (head_ && head_->next(bin)) return true;
    if (head_) {
      // The replay is over: its labels are the first ones the series itself discovers again.
      head_.reset();
    }
    if (!in_->next(bin)) return false;
    bin.start += duration_;
    return true;
  }
  [[nodiscard]] const std::vector<SubstreamLabel>& substreams() const override {
    return head_ ? head_->substreams() : in_->substreams();
  }

 private:
  std::unique_ptr<CountSeries> head_;  ///< the replay of [0, duration); null once it is over
  Time duration_;
};

}  // namespace

std::unique_ptr<CountSeries> make_window(std::unique_ptr<CountSeries> in, Time start,
                                         std::optional<Time> duration, bool rebase) {
  return std::make_unique<WindowSeries>(std::move(in), start, duration, rebase);
}

std::unique_ptr<CountSeries> make_rescale(std::unique_ptr<CountSeries> in, double factor) {
  return std::make_unique<RescaleSeries>(std::move(in), factor);
}

std::unique_ptr<CountSeries> make_compress(std::unique_ptr<CountSeries> in, double factor) {
  return std::make_unique<CompressSeries>(std::move(in), factor);
}

std::unique_ptr<CountSeries> make_ramp(std::unique_ptr<CountSeries> in, Time duration) {
  return std::make_unique<RampSeries>(std::move(in), duration);
}

std::unique_ptr<CountSeries> make_prerun(std::unique_ptr<CountSeries> head,
                                         std::unique_ptr<CountSeries> in, Time duration) {
  return std::make_unique<PrerunSeries>(std::move(head), std::move(in), duration);
}

double rescale_factor(CountSeries& series, const RescaleTarget& target) {
  if (target.mean_rate.has_value() == target.peak_rate.has_value()) {
    throw std::invalid_argument("rescale: give exactly one of \"mean\" and \"peak\"");
  }
  if (!series.finite()) {
    throw std::invalid_argument(
        "rescale: the series has no end; bound it with a duration or a window first");
  }
  const TraceStats stats = compute_series_stats(series, target.peak_bin);
  if (target.mean_rate) {
    if (!(stats.mean_rate > 0)) {
      throw std::invalid_argument("rescale: the series has no requests, it cannot reach a mean");
    }
    return *target.mean_rate / stats.mean_rate;
  }
  if (!(stats.peak_rate > 0)) {
    throw std::invalid_argument("rescale: the series has no requests, it cannot reach a peak");
  }
  return *target.peak_rate / stats.peak_rate;
}

}  // namespace sim::traces
