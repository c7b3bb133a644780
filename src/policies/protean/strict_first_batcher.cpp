#include "strict_first_batcher.hpp"

#include <algorithm>
#include <numeric>

namespace sim::policy::protean {

BatchDecision StrictFirstBatcher::select(const BatchQueueView& view) {
  BatchDecision d;
  if (view.queue.empty() || view.max_batch < 1) return d;
  std::vector<std::size_t> order(view.queue.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_partition(order.begin(), order.end(),
                        [&](std::size_t i) { return view.queue[i].cls == RequestClass::kStrict; });
  const auto cap = static_cast<std::size_t>(view.max_batch);
  if (order.size() >= cap) {
    order.resize(cap);
    d.take = std::move(order);
    return d;
  }
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

}  // namespace sim::policy::protean
