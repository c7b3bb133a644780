#pragma once
/// The end-of-run summary (summary.json), built from a stream of request records.
///
/// `add()` folds each record into counters and quantile sketches (no record is kept), so the
/// memory is O(functions), not O(requests). `build()` renders the summary as JSON.
///
/// Warm-up: records whose arrival is before the warm-up cut-off given to the constructor are
/// counted in `requests.warmup_excluded` and take part in nothing else. The cut-off is a
/// constructor argument (not part of SummaryContext) because records are folded in as they
/// arrive and cannot be excluded afterwards.
///
/// Keys of the summary (all times in seconds; a statistic over an empty set is null):
///
///   schema                 "dcsim.summary/1"
///   duration_s             simulated duration of the run (SummaryContext::duration)
///   warmup_s               warm-up cut-off
///   measured_s             duration_s - warmup_s, the window throughput is computed over
///   quantile_relative_error  the sketches' relative-error bound alpha on every pNN below
///   <group fields>         for all measured records (below)
///   per_class.strict, per_class.best_effort   <group fields> for each class (always both)
///   per_function.<name>    <group fields> for each function with >= 1 measured record
///   <extra keys>           every key of SummaryContext::extra, copied to the top level
///
/// <group fields>:
///   requests.recorded      measured records (ok + slo_miss + dropped)
///   requests.ok / .slo_miss / .dropped     by outcome
///   requests.completed     ok + slo_miss
///   requests.warmup_excluded   (top level only) records arriving before the warm-up cut-off
///   slo.with_slo           measured records that carry an SLO (slo > 0)
///   slo.met                of those, finished with latency <= slo
///   slo.violated           with_slo - met (dropped requests with an SLO count here)
///   slo.compliance         met / with_slo, null when with_slo == 0
///   latency_s.count/.mean/.min/.max     end-to-end latency (finish - arrival) of completed
///                          requests; dropped requests have no latency
///   latency_s.p50/.p90/.p99/.p999       sketch quantiles, rank floor(q (n - 1)), within
///                          quantile_relative_error of the exact order statistic
///   waits_s.queue_mean / .batching_mean / .cold_start_mean / .execution_mean   means over
///                          completed requests of each latency component
///   waits_s.cold_start_affected   completed requests with a cold-start wait > 0
///   waits_s.cold_start_mean_waiting   mean cold-start wait over those requests only (the
///                          cold-start wait per request that waited on a cold start, where
///                          cold_start_mean is per completed request with the zeros)
///   batch_size_mean        mean batch size over completed requests
///   throughput_rps         completed requests per measured simulated second (null if
///                          measured_s <= 0)
///
/// Keys the platform is expected to put in `extra` (documented here so every writer agrees;
/// the builder copies whatever it is given and rejects a key that collides with its own):
///   gpu_utilisation, memory_utilisation   time-averaged fractions in [0, 1]
///   instance_seconds                      sum over instances of their lifetime, s
///   cold_starts                           {count, by_stage: {download_s, load_s, copy_s},
///                                         total_s (per instance), per_replica, by_source,
///                                         warm_execution_s, ...} (platform/serverless/
///                                         cold_start_stats.hpp)
///   fragmentation                         resource fragmentation metric(s)
///   cost_usd                              {on_demand, spot, function_pricing, total}
///   partial                               true when the run was interrupted (Ctrl-C)
///
/// Output is deterministic: nlohmann::json objects are sorted maps, statistics depend only on
/// the records and their order, and doubles are printed in shortest round-trip form.

#include <cstdint>
#include <map>

#include <nlohmann/json.hpp>

#include "sim/engine/time.hpp"
#include "sim/metrics/request_record.hpp"
#include "sim/metrics/streaming_quantile.hpp"

namespace sim::metrics {

struct SummaryContext {
  NameTables names;  ///< every function id in a record must index names.functions
  Time duration;     ///< simulated duration of the run
  nlohmann::json extra = nlohmann::json::object();  ///< platform figures, merged at top level
};

class SummaryBuilder {
 public:
  /// Records arriving before `warmup_end` are excluded from every statistic but counted.
  explicit SummaryBuilder(Time warmup_end = Time::zero(),
                          double relative_error = StreamingQuantile::kDefaultRelativeError);

  /// Folds one record in. Throws std::invalid_argument (naming the request id) if the record
  /// is inconsistent: a finished request with finish < arrival, or a negative wait component.
  void add(const RequestRecord& r);

  /// The summary; see the key list above. Throws std::invalid_argument if a function id has no
  /// name, if `extra` is not an object (null is taken as empty), or if one of its keys collides
  /// with a key of the summary.
  [[nodiscard]] nlohmann::json build(const SummaryContext& ctx) const;

  [[nodiscard]] std::uint64_t records_added() const { return added_; }
  [[nodiscard]] Time warmup_end() const { return warmup_end_; }

 private:
  struct Group {
    explicit Group(double alpha) : latency(alpha) {}
    std::uint64_t ok = 0;
    std::uint64_t slo_miss = 0;
    std::uint64_t dropped = 0;
    std::uint64_t with_slo = 0;
    std::uint64_t slo_met = 0;
    std::uint64_t cold_start_affected = 0;
    std::uint64_t batch_size_sum = 0;
    double queue_sum_s = 0.0;
    double batching_sum_s = 0.0;
    double cold_start_sum_s = 0.0;
    double execution_sum_s = 0.0;
    StreamingQuantile latency;  // seconds, completed requests only
    /// `latency`: the record's latency in seconds keyed by a sketch of this group's alpha
    /// (meaningful only for a finished record).
    void add(const RequestRecord& r, const StreamingQuantile::Keyed& latency_s);
    [[nodiscard]] nlohmann::json to_json(double measured_s) const;
  };

  Time warmup_end_;
  double alpha_;
  std::uint64_t added_ = 0;
  std::uint64_t warmup_excluded_ = 0;
  Group all_;
  Group strict_;
  Group best_effort_;
  std::map<std::uint32_t, Group> per_function_;  // ordered: deterministic and sparse
};

}  // namespace sim::metrics
