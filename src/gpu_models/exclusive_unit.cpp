#include "sim/gpu_models/exclusive_unit.hpp"

#include <stdexcept>

namespace sim::gpu {

// ExecutionUnit::prefetch() covers the whole unit, whatever its alignment: it requests the
// lines of the bytes at 0, 64, ... kPrefetchBytes - 64, which hold every byte up to that last
// one at least.
static_assert(sizeof(ExclusiveUnit) + 63 <= ExecutionUnit::kPrefetchBytes);

ExclusiveUnit::ExclusiveUnit(Simulation& sim, std::string name,
                             std::unique_ptr<SoloLatency> latency)
    : ExecutionUnit(sim, std::move(name)), latency_(std::move(latency)) {
  if (!latency_) throw std::invalid_argument("ExclusiveUnit needs a latency model");
}

ExclusiveUnit::~ExclusiveUnit() {
  handle_.cancel();
}

void ExclusiveUnit::submit(BatchJob job) {
  check_submittable(job);
  (void)latency_->predict_s(*job.model, job.batch);  // reject what can never run, now
  if (!current_ && queue_.empty()) {
    start({std::move(job), sim_.now()});  // the common case: no trip through the deque
    return;
  }
  queue_.push_back({std::move(job), sim_.now()});
  if (!current_) start_next();
}

double ExclusiveUnit::predict_solo_s(const ModelProfile& model, int batch) const {
  return latency_->predict_s(model, batch);
}

double ExclusiveUnit::memory_capacity_gb() const {
  return latency_->memory_capacity_gb();
}

double ExclusiveUnit::memory_used_gb() const {
  return current_ ? current_->memory_gb : 0.0;
}

Time ExclusiveUnit::predicted_backlog() const {
  Time t = Time::zero();
  if (current_) t += current_->result.finished - sim_.now();
  for (const auto& p : queue_)
    t += ceil_seconds(latency_->predict_s(*p.job.model, p.job.batch));
  return t;
}

void ExclusiveUnit::start_next() {
  if (queue_.empty()) return;
  Pending p = std::move(queue_.front());
  queue_.pop_front();
  start(std::move(p));
}

void ExclusiveUnit::start(Pending p) {
  // What may throw comes before current_ is set.
  const double solo_s = latency_->sample_s(*p.job.model, p.job.batch);
  const double memory_gb = p.job.model->memory_gb();
  // emplace(Current{}), not emplace(): clang 14 does not see the nested struct with default
  // member initialisers as default-constructible here (the fuzz preset builds with clang).
  Current& c = current_.emplace(Current{});
  c.result.id = p.job.id;
  c.result.submitted = p.submitted;
  c.result.started = sim_.now();
  c.result.solo_s = solo_s;
  c.result.finished = sim_.now() + ceil_seconds(c.result.solo_s);
  c.memory_gb = memory_gb;
  c.job = std::move(p.job);
  // `this` first: the event queue prefetches the line the first captured word points to.
  // The job's hint is in the event itself, so it is requested before any of the unit's lines
  // has arrived. 24 bytes: stored inline by the event.
  handle_ = sim_.schedule_at(current_->result.finished,
                             [this, hint = static_cast<const char*>(current_->job.hint),
                              bytes = current_->job.hint_bytes] {
                               for (std::uint32_t k = 0; k < bytes; k += 64)
                                 __builtin_prefetch(hint + k);
                               finish();
                             });
}

void ExclusiveUnit::finish() {
  // Only the callback and the result outlive the batch (not a move of the whole job).
  const auto on_complete = std::move(current_->job.on_complete);
  const JobResult result = current_->result;
  current_.reset();
  ++completed_;
  start_next();
  if (on_complete) on_complete(result);
}

}  // namespace sim::gpu
