#pragma once
/// Reference batcher and dispatchers.

#include <map>
#include <optional>

#include "sim/policy/batcher.hpp"
#include "sim/policy/dispatcher.hpp"

namespace sim::policy::reference {

/// "fifo": arrival order (strict-class requests first when strict_first), a full batch as
/// soon as max_batch requests wait, else everything waiting once the oldest deadline
/// (arrival + its application's batch timeout) has passed; until then it asks to be woken at
/// that deadline. A timeout of 0 dispatches greedily.
class FifoBatcher final : public Batcher {
 public:
  explicit FifoBatcher(bool strict_first = false) : strict_first_(strict_first) {}
  BatchDecision select(const BatchQueueView& view) override;

 private:
  bool strict_first_;
};

/// "pull": one global queue that idle instances pull from: the instance idle the longest
/// takes the batch (ties: lowest id).
class PullDispatcher final : public Dispatcher {
 public:
  std::optional<InstanceId> choose(const DispatchView& view) override;
};

/// "round-robin": instances in id order, each batch to the next idle instance after the one
/// that took the previous batch.
class RoundRobinDispatcher final : public Dispatcher {
 public:
  std::optional<InstanceId> choose(const DispatchView& view) override;

 private:
  std::optional<InstanceId> last_;
};

/// "weighted": a rate split. Each instance has a weight (kThroughput: max_batch /
/// batch_latency_s, its request capacity, as INFless's non-uniform dispatch splits a
/// function's rate in proportion to each instance's throughput; kBatch: max_batch; kEqual: 1)
/// and batches go to instances by smooth weighted round robin: every idle instance's credit
/// grows by its weight, the one with the most credit (ties: lowest id) takes the batch and
/// loses the sum of the idle instances' weights. With all instances idle at every batch, an
/// instance of weight w takes exactly w / W of every W consecutive batches (integer weights),
/// interleaved rather than in runs. Busy instances earn no credit, so the split follows the
/// instances that are actually free. Deterministic.
class WeightedDispatcher final : public Dispatcher {
 public:
  enum class Weight : std::uint8_t { kThroughput, kBatch, kEqual };
  explicit WeightedDispatcher(Weight weight = Weight::kThroughput) : weight_(weight) {}
  std::optional<InstanceId> choose(const DispatchView& view) override;
  /// The weight this dispatcher gives an instance (>= 0; 0 when its latency is unknown).
  [[nodiscard]] double weight_of(const InstanceView& instance) const;
  /// Drops the instance's credit: the credits kept follow the live instances.
  void forget(InstanceId id) override { credit_.erase(id); }

 private:
  Weight weight_;
  std::map<InstanceId, double> credit_;
};

}  // namespace sim::policy::reference
