#include "cold_start_stats.hpp"

#include <algorithm>
#include <string>

namespace sim::platform::serverless {

using nlohmann::json;

namespace {

json mean_or_null(double sum, std::uint64_t n) {
  return n > 0 ? json(sum / static_cast<double>(n)) : json(nullptr);
}

double duration_s(const ColdStartRecord& c) {
  return (c.download + c.runtime + c.load + c.copy).to_seconds();
}

}  // namespace

json cold_starts_by_source(const std::vector<ColdStartRecord>& log, const WarmExecution& warm) {
  struct Tally {
    std::uint64_t count = 0, completed = 0, multiples = 0;
    double download = 0, runtime = 0, load = 0, copy = 0, multiple_sum = 0;
  };
  std::map<std::string, Tally> by;
  for (const auto& c : log) {
    Tally& t = by[policy::to_string(c.source)];
    ++t.count;
    if (!c.completed) continue;
    ++t.completed;
    t.download += c.download.to_seconds();
    t.runtime += c.runtime.to_seconds();
    t.load += c.load.to_seconds();
    t.copy += c.copy.to_seconds();
    // Fig. 8.5 is "relative duration ... compared to warm starts (mean across DL models)": each
    // cold start against its own model's warm start, then averaged.
    const auto w = warm.find(c.function);
    if (w == warm.end() || w->second <= 0.0) continue;
    t.multiple_sum += duration_s(c) / w->second;
    ++t.multiples;
  }
  json out = json::object();
  for (const auto& [source, t] : by) {
    out[source] = {{"count", t.count},
                   {"completed", t.completed},
                   {"mean_s", mean_or_null(t.download + t.runtime + t.load + t.copy, t.completed)},
                   {"by_stage",
                    {{"download_s", mean_or_null(t.download, t.completed)},
                     {"runtime_s", mean_or_null(t.runtime, t.completed)},
                     {"load_s", mean_or_null(t.load, t.completed)},
                     {"copy_s", mean_or_null(t.copy, t.completed)}}},
                   {"warm_multiple", mean_or_null(t.multiple_sum, t.multiples)},
                   {"warm_multiple_count", t.multiples}};
  }
  return out;
}

json cold_starts_per_replica(const std::vector<ColdStartRecord>& log) {
  // A partitioned replica: from its first part's begin to its last part's ready, and only
  // when every part completed (a replica stopped while cold-starting never became ready).
  struct Span {
    Time begin, ready;
    bool completed = true;
  };
  std::map<policy::InstanceId, Span> replicas;
  std::uint64_t n = 0;
  double sum = 0.0;
  for (const auto& c : log) {
    const Time ready = c.started + c.download + c.runtime + c.load + c.copy;
    if (c.replica == 0) {
      if (!c.completed) continue;
      ++n;
      sum += duration_s(c);
      continue;
    }
    auto [it, fresh] = replicas.try_emplace(c.replica, Span{c.started, ready, c.completed});
    if (fresh) continue;
    it->second.begin = std::min(it->second.begin, c.started);
    it->second.ready = std::max(it->second.ready, ready);
    it->second.completed = it->second.completed && c.completed;
  }
  std::uint64_t partitioned = 0;
  for (const auto& [head, s] : replicas) {
    if (!s.completed) continue;
    ++n;
    ++partitioned;
    sum += (s.ready - s.begin).to_seconds();
  }
  return {{"count", n}, {"partitioned", partitioned}, {"mean_s", mean_or_null(sum, n)}};
}

void ColdStartFigures::batch_finished(const Inst& inst, const gpu::JobResult& result,
                                      std::size_t /*requests*/) {
  const std::uint32_t fn = inst.fn->id;
  if (fn >= warm_by_fn_.size()) warm_by_fn_.resize(fn + 1);
  auto& warm = warm_by_fn_[fn];
  warm.first += (result.finished - result.started).to_seconds();
  ++warm.second;
}

WarmExecution ColdStartFigures::warm_execution() const {
  WarmExecution out;
  for (std::size_t fn = 0; fn < warm_by_fn_.size(); ++fn) {
    const auto& w = warm_by_fn_[fn];
    if (w.second > 0) out[static_cast<std::uint32_t>(fn)] = w.first / static_cast<double>(w.second);
  }
  return out;
}

void ColdStartFigures::write_summary(json& out, const SummaryInputs& in) const {
  const auto warm = warm_execution();
  out["cold_starts"]["by_source"] = cold_starts_by_source(in.cold_starts, warm);
  out["cold_starts"]["per_replica"] = cold_starts_per_replica(in.cold_starts);
  // The unit of Fig. 8.5's multiples: the mean over functions of their mean warm batch.
  double warm_sum = 0.0;
  for (const auto& [fn, w] : warm)
    warm_sum += w;
  out["cold_starts"]["warm_execution_s"] =
      warm.empty() ? json(nullptr) : json(warm_sum / static_cast<double>(warm.size()));
}

}  // namespace sim::platform::serverless
