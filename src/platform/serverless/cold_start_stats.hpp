#pragma once
/// Cold-start figures of a run under the definitions the Flashpoint thesis leaves open, each
/// computed from the cold-start log (ColdStarts::log) and the warm batches ColdStartFigures,
/// a statistics subscriber, saw:
///
/// - Fig. 8.5: completed cold starts by source (local host memory, a remote host, the store),
///   with their mean duration in multiples of the mean warm execution time of their function
///   (the thesis's "GPU warm start", §3.2.1: the inference without input/output transfers).
/// - Per replica: a partitioned replica's cold start is that of its slowest part (§4.1.2: "the
///   maximum of the longest cold start duration of any individual part"), counted once, where
///   `cold_starts.total_s` counts every part as an instance.
///
/// The per-request definitions (zeros included, only requests that waited) come from the
/// request records and are in the summary's `waits_s` (metrics/summary_builder.hpp).

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/platform/serverless_config.hpp"
#include "statistics.hpp"

namespace sim::platform::serverless {

/// Mean duration (s) of the batches each function ran on whole (not partitioned) instances,
/// by function id; a function without such a batch is absent.
using WarmExecution = std::map<std::uint32_t, double>;

/// `cold_starts.by_source`: per source kind that occurs in `log` ("local_memory",
/// "remote_host", "store"), `count` (begun), `completed`, `mean_s` (begin to ready, completed
/// ones), `by_stage` (mean download_s, load_s, copy_s) and `warm_multiple`: the mean over the
/// completed cold starts whose function ran warm of duration / that function's mean warm
/// execution (null when there is none; `warm_multiple_count` says over how many).
nlohmann::json cold_starts_by_source(const std::vector<ColdStartRecord>& log,
                                     const WarmExecution& warm);

/// `cold_starts.per_replica`: `count` (replicas whose cold start completed: a full instance
/// or a partitioned replica all of whose parts completed) and `mean_s`, a partitioned
/// replica's duration being from its first part's begin to its last part's ready.
nlohmann::json cold_starts_per_replica(const std::vector<ColdStartRecord>& log);

/// The subscriber that owns these figures: it keeps each function's warm batch times
/// (batch_finished) and adds cold_starts.by_source, cold_starts.per_replica and
/// cold_starts.warm_execution_s to the summary, after ColdStarts wrote the cold_starts block.
class ColdStartFigures final : public StatsSubscriber {
 public:
  void batch_finished(const Inst& inst, const gpu::JobResult& result,
                      std::size_t requests) override;
  void write_summary(nlohmann::json& out, const SummaryInputs& in) const override;
  /// Mean duration of each function's batches on whole instances (Flashpoint's "GPU warm
  /// start", the unit of Fig. 8.5), from the batches reported to batch_finished.
  [[nodiscard]] WarmExecution warm_execution() const;

 private:
  /// Batches on whole instances, indexed by function id: (seconds executing, batches). A
  /// vector, not a map: it is updated on every batch (a tree walk per batch was 2.5% of a
  /// large INFless run); functions without a batch have a count of 0.
  std::vector<std::pair<double, std::uint64_t>> warm_by_fn_;
};

}  // namespace sim::platform::serverless
