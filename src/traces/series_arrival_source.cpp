#include "sim/traces/series_arrival_source.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sim::traces {

Placement parse_placement(const std::string& text) {
  if (text == "poisson") return Placement::kPoisson;
  if (text == "uniform") return Placement::kUniform;
  if (text == "even") return Placement::kEven;
  throw std::invalid_argument("unknown placement \"" + text +
                              "\" (expected poisson, uniform or even)");
}

namespace {
// Min-heap order on (time, sub-stream): std::push_heap keeps the largest first, so invert.
struct Later {
  template <class C>
  bool operator()(const C& a, const C& b) const {
    return a.time != b.time ? a.time > b.time : a.substream > b.substream;
  }
};
}  // namespace

SeriesArrivalSource::SeriesArrivalSource(std::unique_ptr<CountSeries> series, Placement placement,
                                         RandomStream rng, RequestAttributes attributes,
                                         WorkloadLabels& labels, Time horizon)
    : series_(std::move(series)),
      placement_(placement),
      rng_(rng),
      attributes_(std::move(attributes)),
      labels_(labels),
      horizon_(horizon) {}

void SeriesArrivalSource::advance(Cursor& c) {
  const double n = static_cast<double>(c.total);
  const double i = static_cast<double>(c.index);
  double u = 0.0;
  switch (placement_) {
    case Placement::kPoisson: {
      // The smallest of the k = total - index uniforms still to place, on [u, 1): its
      // complement is (1 - u) times the largest of k uniforms on (0, 1], which is V^(1/k).
      const double v = 1.0 - rng_.uniform01();  // (0, 1]
      const double k = n - i;
      u = 1.0 - (1.0 - c.u) * std::pow(v, 1.0 / k);
      c.u = u;
      break;
    }
    case Placement::kUniform:
      u = (i + rng_.uniform01()) / n;
      break;
    case Placement::kEven:
      u = (i + 0.5) / n;
      break;
  }
  const double len = static_cast<double>(bin_.length.ns());
  auto offset = static_cast<std::int64_t>(std::floor(u * len));
  offset = std::clamp<std::int64_t>(offset, 0, std::max<std::int64_t>(bin_.length.ns() - 1, 0));
  c.time = bin_.start + Time::from_ns(offset);
}

void SeriesArrivalSource::load_point() {
  // Every arrival of a point bin is at its start, whatever was drawn: the draws only advance
  // the stream, as advance() would have (one per arrival, none for kEven), so that the bins
  // after this one draw the same numbers.
  point_sub_ = 0;
  point_left_ = 0;
  std::uint64_t total = 0;
  for (const auto& entry : bin_.counts)
    total += entry.second;
  if (placement_ != Placement::kEven) {
    for (std::uint64_t i = 0; i < total; ++i)
      (void)rng_.uniform01();
  }
  skip_empty_substreams();
}

void SeriesArrivalSource::skip_empty_substreams() {
  while (point_sub_ < bin_.counts.size() && bin_.counts[point_sub_].second == 0)
    ++point_sub_;
  point_left_ = point_sub_ < bin_.counts.size() ? bin_.counts[point_sub_].second : 0;
}

bool SeriesArrivalSource::load_bin() {
  while (series_->next(bin_)) {
    if (bin_.start < last_end_ || bin_.length < Time::zero()) {
      throw std::runtime_error("workload series out of order: a bin at " + to_string(bin_.start) +
                               " follows one ending at " + to_string(last_end_));
    }
    last_end_ = bin_.end();
    if (bin_.start > horizon_) return false;
    cursors_.clear();
    if (bin_.length == Time::zero()) {
      load_point();
      if (point_left_ == 0) continue;
      return true;
    }
    for (const auto& [substream, count] : bin_.counts) {
      if (count == 0) continue;
      Cursor c;
      c.substream = substream;
      c.total = count;
      advance(c);
      cursors_.push_back(c);
    }
    if (cursors_.empty()) continue;
    std::make_heap(cursors_.begin(), cursors_.end(), Later{});
    return true;
  }
  return false;
}

void SeriesArrivalSource::label(std::uint32_t substream, Arrival& a) {
  while (label_ids_.size() <= substream) {
    const auto& all = series_->substreams();
    const std::size_t i = label_ids_.size();
    const SubstreamLabel empty;
    const SubstreamLabel& l = i < all.size() ? all[i] : empty;
    label_ids_.emplace_back(
        labels_.function_id(l.function.empty() ? attributes_.function : l.function),
        labels_.application_id(l.application.empty() ? attributes_.application : l.application));
  }
  a.function = label_ids_[substream].first;
  a.application = label_ids_[substream].second;
}

std::optional<Arrival> SeriesArrivalSource::next() {
  while (!done_) {
    if (point_left_ > 0) {
      // A point bin: sub-streams in index order, which is the (time, sub-stream) order.
      Arrival a;
      a.time = bin_.start;
      a.cls = attributes_.cls;
      a.slo = attributes_.slo;
      label(bin_.counts[point_sub_].first, a);
      if (--point_left_ == 0) {
        ++point_sub_;
        skip_empty_substreams();
      }
      return a;  // load_bin() opened the bin only if its start is within the horizon
    }
    if (cursors_.empty()) {
      if (!load_bin()) {
        done_ = true;
        const ReadReport r = series_->report();
        if (warn_ && (r.skipped_rows > 0 || r.duplicates > 0)) {
          // fmt rather than operator+ chains: GCC 12 reports a false -Wrestrict on the latter.
          std::string note = fmt::format("{}:", r.file);
          if (r.skipped_rows > 0) {
            note += fmt::format(" skipped {} of {} rows (lenient mode; first: {})", r.skipped_rows,
                                r.rows, r.first_problem);
          }
          if (r.duplicates > 0) {
            note += fmt::format(" {} duplicated time stamps merged or dropped", r.duplicates);
          }
          warn_(note);
        }
        break;
      }
      continue;
    }
    std::pop_heap(cursors_.begin(), cursors_.end(), Later{});
    Cursor& c = cursors_.back();
    Arrival a;
    a.time = c.time;
    a.cls = attributes_.cls;
    a.slo = attributes_.slo;
    label(c.substream, a);
    ++c.index;
    if (c.index < c.total) {
      advance(c);
      std::push_heap(cursors_.begin(), cursors_.end(), Later{});
    } else {
      cursors_.pop_back();
    }
    if (a.time > horizon_) {
      done_ = true;
      break;
    }
    return a;
  }
  return std::nullopt;
}

}  // namespace sim::traces
