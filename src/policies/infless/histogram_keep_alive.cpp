#include "histogram_keep_alive.hpp"

#include <algorithm>

namespace sim::policy::infless {

namespace {

Time scaled(Time t, double k) {
  return seconds(t.to_seconds() * k);
}

/// Instances that serve the function now or soon (a draining instance is on its way out).
bool serving(InstanceState s) {
  return s == InstanceState::kColdStarting || s == InstanceState::kIdle ||
         s == InstanceState::kBusy;
}

/// The configurations of each function's serving instances, in the view's order, indexed by
/// function id: one pass over the instances per tick instead of one per function (Fig. 16 runs
/// hundreds of functions).
std::vector<std::vector<InstanceConfig>> serving_configs(const PlatformView& view) {
  std::size_t n = 0;
  for (const FunctionView& f : view.functions)
    n = std::max<std::size_t>(n, f.id + 1);
  std::vector<std::vector<InstanceConfig>> out(n);
  for (const InstanceView& i : view.instances)
    if (i.function < n && serving(i.state)) out[i.function].push_back(i.config);
  return out;
}

}  // namespace

Windows HistogramKeepAlive::derive(const Track& t) const {
  const Windows conservative{Time::zero(), config_.fallback_keep_alive};
  if (!config_.lsth) {
    // HHP (Shahrad et al. §4.2, in the order of its decision flow): most idle times out of
    // the histogram's range -> forecast the next idle time IT with ARIMA and pre-warm at
    // IT (1 - m), keeping the instance for 2 m IT (m = 15%); otherwise a representative
    // histogram gives head - 10% and tail + 10%; otherwise (too few idle times, a flat
    // histogram) the standard keep-alive of the histogram range.
    const IdleHistogram& h = t.long_term;
    if (h.count() > 0 && 2 * h.out_of_bounds() > h.count()) {
      if (!config_.arima || t.idle_series.empty()) return conservative;
      const double next = arima_forecast(t.idle_series, config_.arima_order);
      if (!(next > 0.0)) return conservative;
      const double m = config_.arima_margin;
      return {seconds(next * (1.0 - m)), std::max(config_.bin, seconds(2.0 * m * next))};
    }
    if (h.count() < config_.min_samples || h.bin_count_cv() < config_.cv_threshold) {
      return conservative;
    }
    const Time head = scaled(*h.percentile(config_.head_percentile, false), 1.0 - config_.margin);
    const Time tail = scaled(*h.percentile(config_.tail_percentile, true), 1.0 + config_.margin);
    return {head, std::max(config_.bin, tail - head)};
  }
  // LSTH (INFless §3.5): heads and tails of the long- and short-term histograms, weighted by
  // gamma; a histogram without enough idle times defers to the other.
  const bool has_long = t.long_term.count() >= config_.min_samples &&
                        t.long_term.percentile(config_.head_percentile, false).has_value();
  const bool has_short = t.short_term.count() >= config_.min_samples &&
                         t.short_term.percentile(config_.head_percentile, false).has_value();
  if (!has_long && !has_short) return conservative;
  const IdleHistogram& l = has_long ? t.long_term : t.short_term;
  const IdleHistogram& s = has_short ? t.short_term : t.long_term;
  const double g = config_.gamma;
  const Time head = scaled(*l.percentile(config_.head_percentile, false), g) +
                    scaled(*s.percentile(config_.head_percentile, false), 1.0 - g);
  const Time tail = scaled(*l.percentile(config_.tail_percentile, true), g) +
                    scaled(*s.percentile(config_.tail_percentile, true), 1.0 - g);
  return {head, std::max(config_.bin, tail - head)};
}

Windows HistogramKeepAlive::windows(std::uint32_t function) const {
  auto it = tracks_.find(function);
  if (it == tracks_.end()) return {Time::zero(), config_.fallback_keep_alive};
  return it->second.windows;
}

std::vector<InstanceConfig> HistogramKeepAlive::capacity(std::uint32_t function) const {
  auto it = tracks_.find(function);
  return it == tracks_.end() ? std::vector<InstanceConfig>{} : it->second.capacity;
}

void HistogramKeepAlive::observe(const PlatformView& view) {
  std::vector<std::vector<InstanceConfig>> live_of;  // built at the first active function
  for (const FunctionView& f : view.functions) {
    auto it = tracks_.find(f.id);
    if (it == tracks_.end()) {
      const Time lw = config_.lsth ? config_.long_window : config_.hhp_window;
      it = tracks_
               .emplace(f.id, Track{0, std::nullopt, IdleHistogram(lw, config_.bin, config_.range),
                                    IdleHistogram(config_.short_window, config_.bin, config_.range),
                                    Windows{Time::zero(), config_.fallback_keep_alive}})
               .first;
    }
    Track& t = it->second;
    // The windows depend on the histograms (and HHP's idle series) only: derived again when
    // a sample came or went, not on every tick (the percentiles sort the samples).
    bool changed = t.long_term.expire(view.now);
    changed = t.short_term.expire(view.now) || changed;
    if (f.arrivals > t.arrivals) {
      // Invocations in the interval before this tick: the idle time since the last active
      // interval, at tick resolution (0 for back-to-back active intervals).
      if (t.last_active) {
        const Time idle = std::max(Time::zero(), view.now - *t.last_active - view.control_interval);
        changed = true;
        t.long_term.add(view.now, idle);
        t.short_term.add(view.now, idle);
        if (!config_.lsth && config_.arima) {
          t.idle_series.push_back(idle.to_seconds());
          if (t.idle_series.size() > config_.arima_history) {
            t.idle_series.erase(t.idle_series.begin());
          }
        }
        // A gap at least as long as the pre-warming window (any gap when there is none) ends
        // the activity: judged by the windows before this sample.
        if (idle > Time::zero() && idle >= t.windows.prewarm) t.capacity.clear();
      }
      t.last_active = view.now;
      t.arrivals = f.arrivals;
      if (live_of.empty()) live_of = serving_configs(view);
      std::vector<InstanceConfig>& live = live_of[f.id];
      if (live.size() >= t.capacity.size()) t.capacity = std::move(live);
    }
    if (changed) t.windows = derive(t);
  }
}

Time HistogramKeepAlive::idle_timeout(const InstanceView& instance, const FunctionView& function) {
  auto it = tracks_.find(function.id);
  if (it == tracks_.end()) return config_.fallback_keep_alive;
  const Track& t = it->second;
  const Windows w = t.windows;
  if (w.prewarm <= Time::zero()) return w.keep_alive;
  // A pre-warming window: unload right after execution, and keep a pre-warmed instance that
  // has not run anything until the end of its keep-alive window.
  if (instance.batches > 0 || !t.last_active) return Time::zero();
  const Time end = *t.last_active + w.prewarm + w.keep_alive;
  return std::max(Time::zero(), end - instance.state_since);
}

Decisions HistogramKeepAlive::prewarm(const PlatformView& view) {
  observe(view);
  Decisions d;
  std::vector<StartInstance>& out = d.start;
  std::vector<std::vector<InstanceConfig>> live_of;  // built at the first function to pre-warm
  for (const FunctionView& f : view.functions) {
    const Track& t = tracks_.at(f.id);
    const Windows w = t.windows;
    // A queued request is the autoscaler's to serve (scale from zero).
    if (w.prewarm <= Time::zero() || !t.last_active || f.queue_length > 0) continue;
    const Time load_at = *t.last_active + w.prewarm;
    if (view.now < load_at || view.now >= load_at + w.keep_alive) continue;
    if (!config_.prewarm_capacity || t.capacity.empty()) {
      if (f.live() == 0) out.push_back({f.id, 1, std::nullopt, std::nullopt});
      continue;
    }
    // Load what the last activity held and is not live now, configuration by configuration
    // (placement chooses the servers).
    std::vector<InstanceConfig> missing = t.capacity;
    if (live_of.empty()) live_of = serving_configs(view);
    for (const InstanceConfig& c : live_of[f.id]) {
      const auto m = std::find(missing.begin(), missing.end(), c);
      if (m != missing.end()) missing.erase(m);
    }
    for (const InstanceConfig& c : missing)
      out.push_back({f.id, 1, c, std::nullopt});
  }
  return d;
}

}  // namespace sim::policy::infless
