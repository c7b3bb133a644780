#pragma once
/// Cold-start figures of a run under the definitions the Flashpoint thesis leaves open, each
/// computed from the cold-start log (ColdStarts::log) and the warm batches Accounting saw:
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
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/platform/serverless_config.hpp"

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

}  // namespace sim::platform::serverless
