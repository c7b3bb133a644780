#pragma once
/// Histogram keep-alive and pre-warming: INFless's LSTH (§3.5) and the hybrid histogram policy
/// HHP of "Serverless in the Wild" (Shahrad et al., ATC'20) it is compared with (Fig. 16).
///
/// Both track a function's idle times (time between invocations, observed at control ticks) and
/// derive a pre-warming window P (the head, 5th percentile) and a keep-alive window K (from the
/// head to the tail, 99th percentile): after the function's last invocation its instances are
/// unloaded at once when P > 0 and loaded again at P and kept until P + K; when P = 0 idle
/// instances are kept for K.
///
/// How many instances are loaded again: HHP's unit is one application image (Shahrad et al.),
/// so one. LSTH pre-warms the capacity of the function's last activity -- the configurations of
/// the instances live at its peak -- because INFless §3.5 says LSTH fails to "prepare
/// sufficient number of instances" only when a spike "exceeds the peak request arrival rate in
/// history": it prepares instances for the peak seen before, not one. The paper does not say
/// over which history; the last activity (active ticks with no gap of P or more between them)
/// follows the load as it changes, where the peak of the whole 24 h window would hold the day's
/// largest burst ready before every later one.

#include <map>
#include <vector>

#include "arima.hpp"
#include "idle_histogram.hpp"
#include "sim/policy/keep_alive.hpp"

namespace sim::policy::infless {

struct HistogramKeepAliveConfig {
  bool lsth = true;  ///< true: LSTH (two windows, weighted); false: HHP (one window, margins)
  Time long_window = seconds(24 * 3600.0);  ///< LSTH long-term (LTP) window
  Time short_window = seconds(3600.0);      ///< LSTH short-term (STB) window
  Time hhp_window = seconds(4 * 3600.0);    ///< HHP's tracked duration
  Time bin = seconds(60.0);
  Time range = seconds(4 * 3600.0);  ///< histogram range (HHP: 4 h)
  double head_percentile = 5.0;
  double tail_percentile = 99.0;
  double gamma = 0.5;           ///< LSTH weight of the long-term histogram
  double margin = 0.1;          ///< HHP: head -10%, tail +10%
  double cv_threshold = 2.0;    ///< HHP: below, the histogram is not representative
  std::size_t min_samples = 5;  ///< fewer idle times: no pattern yet
  Time fallback_keep_alive = seconds(4 * 3600.0);  ///< without a usable histogram
  /// true: pre-warm the instances live at the last activity's peak (LSTH); false: one (HHP).
  bool prewarm_capacity = true;
  /// HHP, when most idle times of the window are out of the histogram's range (Shahrad et al.
  /// §4.2): forecast the next idle time with ARIMA (true), or keep the standard keep-alive.
  bool arima = true;
  ArimaOrder arima_order{};
  double arima_margin = 0.15;      ///< pre-warm at forecast x (1 - m), keep alive 2 m x forecast
  std::size_t arima_history = 32;  ///< the last idle times the forecast is fitted to
};

struct Windows {
  Time prewarm;
  Time keep_alive;
};

class HistogramKeepAlive final : public KeepAlive {
 public:
  explicit HistogramKeepAlive(HistogramKeepAliveConfig config) : config_(config) {}
  Time idle_timeout(const InstanceView& instance, const FunctionView& function) override;
  Decisions prewarm(const PlatformView& view) override;

  /// The current windows of a function (what idle_timeout and prewarm use).
  [[nodiscard]] Windows windows(std::uint32_t function) const;
  /// The configurations pre-warming restores (the last activity's peak), for tests.
  [[nodiscard]] std::vector<InstanceConfig> capacity(std::uint32_t function) const;
  /// Records the idle times seen in `view` (prewarm calls it): tests may call it directly.
  void observe(const PlatformView& view);

 private:
  struct Track {
    std::uint64_t arrivals = 0;
    std::optional<Time> last_active;  ///< last tick with arrivals in the interval before it
    IdleHistogram long_term;
    IdleHistogram short_term;
    Windows windows;
    /// HHP: the function's last idle times in seconds, oldest first (not expired with the
    /// window: the ARIMA branch needs the history of a function idle for longer than it).
    std::vector<double> idle_series{};
    /// Configurations of the function's live instances at the active tick with the most of
    /// them in the current (after it ends: the last) activity.
    std::vector<InstanceConfig> capacity{};
  };
  [[nodiscard]] Windows derive(const Track& t) const;
  HistogramKeepAliveConfig config_;
  std::map<std::uint32_t, Track> tracks_;
};

}  // namespace sim::policy::infless
