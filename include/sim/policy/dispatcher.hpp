#pragma once
/// Dispatch (load balancing): which idle instance of a function takes the batch just formed.

#include <optional>
#include <span>

#include "sim/policy/batcher.hpp"
#include "sim/policy/platform_view.hpp"
#include "sim/policy/policy.hpp"

namespace sim::policy {

struct DispatchView {
  Time now;
  std::uint32_t function = 0;
  std::span<const InstanceView> idle;  ///< idle instances of the function, ordered by id
  /// The batch being dispatched: `take` indexes `queue` (the batcher's view), in execution
  /// order, so a dispatcher can see the batch's classes (Protean Algorithm 1 treats strict and
  /// best-effort batches differently).
  std::span<const QueuedRequest> queue{};
  std::span<const std::size_t> take{};
  /// The whole platform, only for a dispatcher whose wants_platform_view() is true (building
  /// it costs O(instances + hosts) per batch); nullptr otherwise.
  const PlatformView* platform = nullptr;
};

class Dispatcher : public Policy {
 public:
  /// The instance that takes the next batch (one of `idle`), or nullopt to hold the batch.
  virtual std::optional<InstanceId> choose(const DispatchView& view) = 0;
  /// True: every DispatchView carries the PlatformView (co-runners on each GPU and slice).
  [[nodiscard]] virtual bool wants_platform_view() const { return false; }
};

}  // namespace sim::policy
