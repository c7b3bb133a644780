#pragma once
/// Ordering and batching: which queued requests of one function form the next batch.
///
/// Called when a function has queued requests and at least one idle instance. The policy
/// returns the indices (into `queue`) of the batch, in execution order, or an empty batch and
/// the time to ask again (the platform also asks again on every arrival and whenever an
/// instance becomes idle).

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sim/engine/request_class.hpp"
#include "sim/engine/time.hpp"
#include "sim/policy/policy.hpp"

namespace sim::policy {

struct QueuedRequest {
  std::uint64_t id = 0;
  Time arrival;
  RequestClass cls = RequestClass::kStrict;
  std::uint32_t application = 0;
  Time slo;            ///< zero: none
  Time batch_timeout;  ///< the function's timeout for this request's application
};

struct BatchQueueView {
  Time now;
  std::uint32_t function = 0;
  int max_batch = 1;  ///< the largest batch any idle instance of the function takes
  std::span<const QueuedRequest> queue;  ///< in arrival order
};

struct BatchDecision {
  std::vector<std::size_t> take;  ///< indices into queue; at most max_batch, no repeats
  std::optional<Time> retry_at;   ///< when take is empty: ask again then (> now)
};

class Batcher : public Policy {
 public:
  virtual BatchDecision select(const BatchQueueView& view) = 0;
};

}  // namespace sim::policy
