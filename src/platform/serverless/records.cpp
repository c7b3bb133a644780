#include "records.hpp"

#include <algorithm>

namespace sim::platform::serverless {
namespace {

metrics::RequestRecord base_record(const traces::Arrival& a, std::uint64_t id) {
  metrics::RequestRecord r;
  r.id = id;
  r.function = a.function;
  r.application = a.application;
  r.cls = a.cls;
  r.arrival = a.time;
  r.slo = a.slo;
  return r;
}

}  // namespace

metrics::RequestRecord dropped_record(const traces::Arrival& arrival, std::uint64_t id, Time now) {
  auto r = base_record(arrival, id);
  r.dispatch = r.start = r.finish = now;
  r.outcome = metrics::Outcome::kDropped;
  return r;
}

metrics::RequestRecord served_record(const Request& q, const BatchTimes& t) {
  auto r = base_record(q.arrival, q.id);
  const Time a = q.arrival.time;
  r.dispatch = t.dispatch;
  r.start = t.start;
  r.finish = t.finish;
  // See docs/policy-authors.md "Latency decomposition".
  r.cold_start_wait = std::max(Time::zero(), std::min(t.ready_at, t.dispatch) - a);
  r.batching_wait = t.dispatch - std::max(a, t.avail);
  r.execution = r.finish - r.start;
  r.queue_wait = (r.finish - a) - r.cold_start_wait - r.batching_wait - r.execution;
  r.batch_size = t.batch_size;
  r.device = t.device;
  r.slice = t.slice;
  const bool missed = r.has_slo() && r.latency() > r.slo;
  r.outcome = missed ? metrics::Outcome::kSloMiss : metrics::Outcome::kOk;
  return r;
}

}  // namespace sim::platform::serverless
