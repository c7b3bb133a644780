#pragma once
/// INFless's built-in batching on the platform's request path: a batcher that fills a batch
/// within the SLO budget and a dispatcher that splits batches by each instance's rate bound.

#include <memory>
#include <unordered_map>

#include "dense_id_index.hpp"
#include "sim/policy/batcher.hpp"
#include "sim/policy/dispatcher.hpp"

namespace sim::policy::infless {

/// INFless §3.2: a request waits until its batch is full or its waiting budget ends. Eq. (3)-(4)
/// with t_exec <= t_slo / 2 make t_slo / 2 a waiting budget every INFless configuration meets
/// (wait_fraction = 0.5); requests without an SLO use their function's batch timeout.
class SloBudgetBatcher final : public Batcher {
 public:
  explicit SloBudgetBatcher(double wait_fraction) : wait_fraction_(wait_fraction) {}
  BatchDecision select(const BatchQueueView& view) override;

 private:
  double wait_fraction_;
};

/// INFless §3.2 dispatch: instance i receives requests in proportion to its rate r_i, which
/// under rule (i) is r_up_i = floor(1 / t_exec_i) * b_i (eq. 1). Smooth weighted round robin
/// over the idle instances with weight r_up (t_exec = the instance's batch latency times
/// `latency_factor`).
class RateSplitDispatcher final : public Dispatcher {
 public:
  explicit RateSplitDispatcher(double latency_factor) : latency_factor_(latency_factor) {}
  std::optional<InstanceId> choose(const DispatchView& view) override;
  /// The same choices, incrementally (SmoothWrrSet): O(distinct weights) per dispatch instead
  /// of O(idle instances).
  [[nodiscard]] std::unique_ptr<IdleSet> idle_set() override;
  /// Drops the instance's credit: the credits kept follow the live instances.
  void forget(InstanceId id) override { current_.erase(id); }
  /// Instances whose credit is kept.
  [[nodiscard]] std::size_t kept() const { return current_.size(); }

 private:
  double latency_factor_;
  /// The id index of every idle set this dispatcher made (each instance is in one).
  std::shared_ptr<DenseIdIndex> idle_index_ = std::make_shared<DenseIdIndex>();
  /// An instance's smooth WRR credit, with its weight for the (t_exec, batch) it was computed
  /// from: choose() weighs every idle instance on every dispatch, and an instance's weight
  /// changes only if its latency or batch size does.
  struct Credit {
    double credit = 0.0;
    double weight = 0.0;
    double t_exec = -1.0;  ///< < 0: weight not computed yet
    int batch = 0;
  };
  /// Per instance. Hashed: nothing iterates it, so its order cannot reach the output.
  std::unordered_map<InstanceId, Credit> current_;
};

}  // namespace sim::policy::infless
