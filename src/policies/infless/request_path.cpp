#include "request_path.hpp"

#include <algorithm>
#include <cmath>

#include "rate_bounds.hpp"

namespace sim::policy::infless {

BatchDecision SloBudgetBatcher::select(const BatchQueueView& view) {
  BatchDecision d;
  if (view.queue.empty() || view.max_batch < 1) return d;
  const auto cap = std::min(view.queue.size(), static_cast<std::size_t>(view.max_batch));
  const auto take_oldest = [&] {
    d.take.resize(cap);
    for (std::size_t i = 0; i < cap; ++i)
      d.take[i] = i;
  };
  // A full batch leaves at once; only a partial one (fewer than max_batch requests, so this
  // scan is short however long a backlog grows) waits for its earliest deadline.
  if (view.queue.size() >= static_cast<std::size_t>(view.max_batch)) {
    take_oldest();
    return d;
  }
  Time deadline = Time::max();
  for (const QueuedRequest& q : view.queue) {
    // INFless eq. (3)-(4): wait at most wait_fraction * t_slo for the batch to fill.
    const Time budget =
        q.slo > Time::zero() ? seconds(q.slo.to_seconds() * wait_fraction_) : q.batch_timeout;
    deadline = std::min(deadline, q.arrival + budget);
  }
  if (deadline <= view.now) {
    take_oldest();
  } else {
    d.retry_at = deadline;
  }
  return d;
}

std::optional<InstanceId> RateSplitDispatcher::choose(const DispatchView& view) {
  if (view.idle.empty()) return std::nullopt;
  // Smooth weighted round robin (each idle instance gains its weight, the richest is chosen
  // and pays the total) with weight r_up = floor(1 / t_exec) * b, INFless eq. (1).
  double total = 0.0;
  const InstanceView* pick = nullptr;
  double* pick_credit = nullptr;  // unordered_map references stay valid across rehashing
  for (const InstanceView& i : view.idle) {
    const double t = i.batch_latency_s * latency_factor_;
    Credit& k = current_[i.id];
    if (k.t_exec != t || k.batch != i.config.max_batch) {
      k.weight = t > 0 ? std::max(1.0, rate_bounds(t, 2.0 * t, i.config.max_batch).r_up) : 1.0;
      k.t_exec = t;
      k.batch = i.config.max_batch;
    }
    const double w = k.weight;
    total += w;
    double& c = k.credit;
    c += w;
    if (pick == nullptr || c > *pick_credit) {
      pick = &i;
      pick_credit = &c;
    }
  }
  *pick_credit -= total;
  return pick->id;
}

}  // namespace sim::policy::infless
