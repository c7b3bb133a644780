#pragma once
/// The INFless auto-scaling engine (§3.2, §3.4): per function, the measured rate R against the
/// instances' [r_low, r_up] bounds (eq. 1); rule (i) calls Schedule (Algorithm 1) for R - R_max,
/// rule (iii) releases instances until rule (ii) holds again. Instances of a quiet function are
/// left to the keep-alive policy (rule (iii) has nothing to release at R = 0), and after a quiet
/// gap rule (iii) waits a whole hold before judging them (hold_after_quiet).

#include <deque>
#include <map>
#include <optional>
#include <utility>

#include "configuration_space.hpp"
#include "sim/policy/autoscaler.hpp"
#include "slo_map.hpp"

namespace sim::policy::infless {

struct InflessAutoscalerConfig {
  SloMap slo;
  double alpha = 0.8;                    ///< §3.2, "set to 0.8 in our implementation"
  std::size_t rate_window = 0;           ///< index into PlatformView::rate_windows
  std::optional<double> latency_factor;  ///< nullopt: 1 + prediction_offset (10%)
  bool batching = true;                  ///< false: the BB ablation (every batch size 1)
  bool resource_scheduling = true;       ///< false: the RS ablation
  bool rs_off_per_resource = true;       ///< the RS ablation's "maximum throughput" per resource
  bool release = true;                   ///< rule (iii)
  /// Rule (iii) uses the largest R of this long a history, so one quiet rate sample does not
  /// release instances (the public code drains an instance after 3 idle 10 s checks).
  Time release_hold = seconds(30.0);
  /// After the function was quiet for a whole hold (no request), rule (iii) waits for a whole
  /// hold of renewed activity before it releases: the instances the keep-alive policy kept
  /// through the gap (LSTH's keep-alive, or its pre-warmed capacity) are the capacity of the
  /// last activity, not surplus to be judged from the first rate samples of the next one.
  /// false: rule (iii) judges them at once, by the largest R since the gap.
  bool hold_after_quiet = true;
  double cpu_gflops_per_thread = 64.0;  ///< beta's numerator
  double gpu_gflops = 14200.0;          ///< beta's denominator (x 1/100 per SM percent)
  int max_batch = 0;                    ///< 0: the function's default max_batch
};

class InflessAutoscaler final : public Autoscaler {
 public:
  explicit InflessAutoscaler(InflessAutoscalerConfig config) : config_(std::move(config)) {}
  Decisions decide(const PlatformView& view) override;

 private:
  InflessAutoscalerConfig config_;
  std::map<std::uint32_t, std::deque<std::pair<Time, double>>> history_;  ///< (tick, R)
  struct Activity {
    std::optional<Time> last;  ///< last tick with R > 0
    Time since;                ///< first tick with R > 0 after a quiet hold
  };
  std::map<std::uint32_t, Activity> activity_;
  std::vector<CopMemo> memo_;  ///< by function id: the predicted latencies of its profile
};

}  // namespace sim::policy::infless
