#include "request_path.hpp"

#include <algorithm>
#include <numeric>

namespace sim::policy::reference {

BatchDecision FifoBatcher::select(const BatchQueueView& view) {
  BatchDecision d;
  if (view.queue.empty() || view.max_batch < 1) return d;
  const auto cap = static_cast<std::size_t>(view.max_batch);
  if (view.queue.size() >= cap) {
    // A full batch: the oldest cap requests, strict ones first when asked (the first cap of
    // a stable partition by class), found without ordering the whole queue.
    if (!strict_first_) {
      d.take.resize(cap);
      std::iota(d.take.begin(), d.take.end(), std::size_t{0});
      return d;
    }
    for (std::size_t i = 0; i < view.queue.size() && d.take.size() < cap; ++i)
      if (view.queue[i].cls == RequestClass::kStrict) d.take.push_back(i);
    for (std::size_t i = 0; i < view.queue.size() && d.take.size() < cap; ++i)
      if (view.queue[i].cls != RequestClass::kStrict) d.take.push_back(i);
    return d;
  }
  std::vector<std::size_t> order(view.queue.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (strict_first_) {
    std::stable_partition(order.begin(), order.end(), [&](std::size_t i) {
      return view.queue[i].cls == RequestClass::kStrict;
    });
  }
  // Not full: dispatch once the earliest deadline has passed, else wait for it.
  Time deadline = Time::max();
  for (const auto& q : view.queue)
    deadline = std::min(deadline, q.arrival + q.batch_timeout);
  if (deadline <= view.now) {
    d.take = std::move(order);
  } else {
    d.retry_at = deadline;
  }
  return d;
}

std::optional<InstanceId> PullDispatcher::choose(const DispatchView& view) {
  const InstanceView* best = nullptr;
  for (const auto& i : view.idle) {
    if (best == nullptr || i.state_since < best->state_since) best = &i;
  }
  if (best == nullptr) return std::nullopt;
  return best->id;
}

std::optional<InstanceId> RoundRobinDispatcher::choose(const DispatchView& view) {
  if (view.idle.empty()) return std::nullopt;
  // `idle` is ordered by id: the first id after the last choice, else wrap around.
  const InstanceView* pick = &view.idle.front();
  if (last_) {
    for (const auto& i : view.idle) {
      if (i.id > *last_) {
        pick = &i;
        break;
      }
    }
  }
  last_ = pick->id;
  return pick->id;
}

}  // namespace sim::policy::reference

namespace sim::policy::reference {

double WeightedDispatcher::weight_of(const InstanceView& i) const {
  switch (weight_) {
    case Weight::kThroughput:
      // Requests per second the instance serves at full batches (INFless §4: capacity of a
      // configuration = batch / latency).
      return i.batch_latency_s > 0 ? static_cast<double>(i.config.max_batch) / i.batch_latency_s
                                   : 0.0;
    case Weight::kBatch:
      return static_cast<double>(i.config.max_batch);
    case Weight::kEqual:
      return 1.0;
  }
  return 0.0;
}

std::optional<InstanceId> WeightedDispatcher::choose(const DispatchView& view) {
  if (view.idle.empty()) return std::nullopt;
  // Smooth weighted round robin over the idle instances.
  double total = 0.0;
  const InstanceView* best = nullptr;
  double best_credit = 0.0;
  for (const auto& i : view.idle) {
    const double w = weight_of(i);
    total += w;
    double& c = credit_[i.id];
    c += w;
    if (best == nullptr || c > best_credit) {
      best = &i;
      best_credit = c;
    }
  }
  credit_[best->id] -= total;
  // Forget instances that no longer exist (ids only grow): drop credits below the smallest
  // idle id once the map is much larger than the idle set.
  if (credit_.size() > 4 * view.idle.size() + 64) {
    credit_.erase(credit_.begin(), credit_.lower_bound(view.idle.front().id));
  }
  return best->id;
}

}  // namespace sim::policy::reference
