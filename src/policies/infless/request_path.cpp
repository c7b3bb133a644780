#include "request_path.hpp"

#include <algorithm>
#include <cmath>

#include "rate_bounds.hpp"
#include "smooth_wrr.hpp"

namespace sim::policy::infless {

namespace {

// The weight r_up = floor(1 / t_exec) * b (INFless eq. 1) of an instance whose t_exec is t,
// at least 1. An integer: floor() times an integer.
double rate_split_weight(double t, int max_batch) {
  return t > 0 ? std::max(1.0, rate_bounds(t, 2.0 * t, max_batch).r_up) : 1.0;
}

class RateSplitIdleSet final : public IdleSet {
 public:
  RateSplitIdleSet(double latency_factor, std::shared_ptr<DenseIdIndex> index)
      : latency_factor_(latency_factor), set_(SmoothWrrSet::kRebaseEvery, std::move(index)) {}
  void insert(const InstanceView& i) override {
    const double w = rate_split_weight(i.batch_latency_s * latency_factor_, i.config.max_batch);
    // Beyond kMaxWeight (t_exec below ~1 ps) the cast is bounded and insert() rejects it.
    set_.insert(i.id, w > static_cast<double>(SmoothWrrSet::kMaxWeight)
                          ? SmoothWrrSet::kMaxWeight + 1
                          : static_cast<std::int64_t>(w));
  }
  void erase(InstanceId id) override { set_.erase(id); }
  void forget(InstanceId id) override { set_.forget(id); }
  std::optional<InstanceId> choose(const DispatchView& /*view*/) override { return set_.choose(); }

 private:
  double latency_factor_;
  SmoothWrrSet set_;
};

}  // namespace

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
      k.weight = rate_split_weight(t, i.config.max_batch);
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

std::unique_ptr<IdleSet> RateSplitDispatcher::idle_set() {
  return std::make_unique<RateSplitIdleSet>(latency_factor_, idle_index_);
}

}  // namespace sim::policy::infless
