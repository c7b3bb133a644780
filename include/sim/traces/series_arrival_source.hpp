#pragma once
/// Turns a CountSeries into arrivals, one bin at a time (memory: the sub-streams of one bin).
///
/// Placement of an interval's n arrivals inside [start, start + length) — the count is always
/// preserved exactly:
///   - kPoisson (default): n independent uniform positions, sorted. This is exactly a Poisson
///     process conditioned on n arrivals in the interval. The sorted positions are drawn one at a
///     time (the minimum of the k remaining uniforms on [u, 1) is 1 - (1 - u) * V^(1/k)), so
///     nothing is buffered.
///   - kUniform: stratified; the interval is cut into n equal slots with one arrival uniformly
///     inside each: the count of every sub-interval is as even as possible, times still random.
///   - kEven: arrival i at start + (i + 1/2) * length / n: deterministic, evenly spaced.
/// Arrivals of different sub-streams in one bin are merged by time, ties by sub-stream index.
/// A point bin (length 0) yields all its arrivals at `start`.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/random.hpp"
#include "sim/traces/arrival_source.hpp"
#include "sim/traces/count_series.hpp"

namespace sim::traces {

enum class Placement { kPoisson, kUniform, kEven };
/// "poisson", "uniform", "even"; throws std::invalid_argument otherwise.
Placement parse_placement(const std::string& text);

/// Attributes of the arrivals of a workload entry before any split.
struct RequestAttributes {
  std::string function = "default";
  std::string application = "default";
  RequestClass cls = RequestClass::kStrict;
  Time slo = Time::zero();
};

class SeriesArrivalSource final : public ArrivalSource {
 public:
  /// `labels` must outlive the source. Arrivals after `horizon` are not produced.
  SeriesArrivalSource(std::unique_ptr<CountSeries> series, Placement placement, RandomStream rng,
                      RequestAttributes attributes, WorkloadLabels& labels,
                      Time horizon = Time::max());
  std::optional<Arrival> next() override;
  [[nodiscard]] const CountSeries& series() const { return *series_; }
  /// Called once at the end of the series when the reader skipped or merged rows.
  void set_warn(std::function<void(const std::string&)> warn) { warn_ = std::move(warn); }

 private:
  struct Cursor {
    std::uint32_t substream = 0;
    std::uint64_t total = 0;  ///< arrivals of this sub-stream in the bin
    std::uint64_t index = 0;  ///< next arrival's 0-based index
    double u = 0.0;           ///< last position in [0, 1) (Poisson)
    Time time;                ///< the position of arrival `index`
  };
  bool load_bin();
  /// A point bin (length 0) is served from its counts, without cursors or placement.
  void load_point();
  /// Moves point_sub_ to the next sub-stream with arrivals and sets point_left_.
  void skip_empty_substreams();
  void advance(Cursor& c);
  void label(std::uint32_t substream, Arrival& a);

  std::unique_ptr<CountSeries> series_;
  Placement placement_;
  RandomStream rng_;
  RequestAttributes attributes_;
  WorkloadLabels& labels_;
  Time horizon_;
  CountBin bin_;
  std::vector<Cursor>
      cursors_;  ///< live cursors of the current bin, a min-heap on (time, substream)
  std::vector<std::pair<std::uint32_t, std::uint32_t>>
      label_ids_;                 ///< per sub-stream (function, application)
  std::size_t point_sub_ = 0;     ///< the point bin's entry of bin_.counts being served
  std::uint64_t point_left_ = 0;  ///< its arrivals still to serve; 0: no point bin open
  Time last_end_ = Time::zero();
  bool done_ = false;
  std::function<void(const std::string&)> warn_;
};

}  // namespace sim::traces
