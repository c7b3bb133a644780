#pragma once
/// The largest constant load a system sustains (INFless Fig. 11, "stress testing … using a
/// constant request load … the maximum RPS achieved"): a bisection over the per-workload rate for
/// the largest rate whose SLO compliance after warm-up reaches a target. Runs are supplied by
/// the caller, so the search knows nothing of scenarios (`dcsim reproduce` runs a scenario with
/// every workload's rate set; tests use a function).

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sim::reproduce {

struct RateSearch {
  double low = 0.0;      ///< a rate assumed sustainable (never run)
  double high = 0.0;     ///< a rate assumed not sustainable (never run); > low
  int steps = 8;         ///< runs, each halving [low, high]
  double target = 0.95;  ///< SLO compliance a rate must reach
};

/// One run at a rate per workload: its SLO compliance in [0, 1], or nullopt when interrupted.
using RateRun = std::function<std::optional<double>(double rate)>;

struct RateProbe {
  double rate = 0.0;
  double compliance = 0.0;
};

struct RateSearchResult {
  bool interrupted = false;
  /// The largest probed rate that met the target; 0 when none did (nothing sustained).
  double rate = 0.0;
  double compliance = 0.0;        ///< at that rate (0 when none met it)
  std::vector<RateProbe> probes;  ///< every run, in order
};

/// Bisection with probes at whole rates: mid = round-half-to-even((low + high) / 2), so that
/// results match scenarios/infless/stress_search.py, which the INFless page's numbers come from.
/// A probe that meets the target raises `low`, one that misses lowers `high`. Compliance need
/// not be monotone in the rate; the search then finds a local boundary, as the script does.
RateSearchResult search_rate(const RateSearch& s, const RateRun& run);

/// SLO compliance of a run summary for the search: requests meeting their SLO over requests
/// with an SLO plus those still in the system at the end (a function no configuration can
/// serve leaves its requests queued; they are violations too). 0 when there are none.
double search_compliance(const nlohmann::json& summary);

/// The `search` block added to the summary of the best run: rate per workload, throughput
/// (rate x workloads x compliance, SLO-meeting requests per second) and every probe.
nlohmann::json search_block(const RateSearchResult& r, std::size_t workloads);

}  // namespace sim::reproduce
