#include "strict_first_batcher.hpp"

#include <algorithm>

namespace sim::policy::protean {

namespace {

// The first `cap` indices of the queue with the strict requests first, each class in queue
// order (a stable partition of 0..n-1, cut at cap), without the partition's buffers.
std::vector<std::size_t> strict_first(const BatchQueueView& view, std::size_t cap) {
  std::vector<std::size_t> take;
  const std::size_t n = view.queue.size();
  take.reserve(std::min(n, cap));
  for (std::size_t i = 0; i < n && take.size() < cap; ++i)
    if (view.queue[i].cls == RequestClass::kStrict) take.push_back(i);
  for (std::size_t i = 0; i < n && take.size() < cap; ++i)
    if (view.queue[i].cls != RequestClass::kStrict) take.push_back(i);
  return take;
}

}  // namespace

BatchDecision StrictFirstBatcher::select(const BatchQueueView& view) {
  BatchDecision d;
  if (view.queue.empty() || view.max_batch < 1) return d;
  const auto cap = static_cast<std::size_t>(view.max_batch);
  if (view.queue.size() >= cap) {
    d.take = strict_first(view, cap);
    return d;
  }
  // A partial batch (most arrivals): nothing built unless its timeout has passed.
  Time deadline = Time::max();
  for (const auto& q : view.queue)
    deadline = std::min(deadline, q.arrival + q.batch_timeout);
  if (deadline <= view.now) {
    d.take = strict_first(view, cap);
  } else {
    d.retry_at = deadline;
  }
  return d;
}

}  // namespace sim::policy::protean
