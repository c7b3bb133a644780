#pragma once
/// Dispatch (load balancing): which idle instance of a function takes the batch just formed.

#include <memory>
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

/// The idle instances of one queue, kept by a dispatcher that chooses among them without being
/// shown all of them on every dispatch (Dispatcher::idle_set). The platform reports every
/// change: insert() when an instance becomes dispatchable (again: its view may differ),
/// erase() when it stops being so, forget() when it terminates (after erase() if it was a
/// member). choose() returns what the dispatcher's choose() would
/// return, with the same effect on its state, were `view.idle` these instances by id.
class IdleSet {
 public:
  virtual ~IdleSet() = default;
  virtual void insert(const InstanceView& instance) = 0;
  virtual void erase(InstanceId id) = 0;
  /// The instance terminated: it will never be inserted again, so whatever the set keeps for
  /// it beyond membership (a credit) may be dropped. Also for instances never inserted.
  virtual void forget(InstanceId /*id*/) {}
  /// `view.idle` is empty: the instances are those inserted and not erased.
  virtual std::optional<InstanceId> choose(const DispatchView& view) = 0;
};

class Dispatcher : public Policy {
 public:
  /// The instance that takes the next batch (one of `idle`), or nullopt to hold the batch.
  virtual std::optional<InstanceId> choose(const DispatchView& view) = 0;
  /// True: every DispatchView carries the PlatformView (co-runners on each GPU and slice).
  [[nodiscard]] virtual bool wants_platform_view() const { return false; }
  /// An IdleSet for one queue, or null (the default): the platform then shows choose() every
  /// idle instance on every dispatch. A platform that uses idle sets uses them for all its
  /// queues and puts each instance in one set only; it calls choose() no more.
  [[nodiscard]] virtual std::unique_ptr<IdleSet> idle_set() { return nullptr; }
  /// The instance terminated: it will never be shown to choose() again, so whatever the
  /// dispatcher keeps for it (a credit) may be dropped. The platform calls it for every
  /// instance that terminates.
  virtual void forget(InstanceId /*id*/) {}
};

}  // namespace sim::policy
