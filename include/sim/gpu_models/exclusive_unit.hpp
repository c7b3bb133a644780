#pragma once
/// Exclusive execution: one batch at a time, FIFO (time-sharing of a whole device, as
/// Molecule does; also a MIG slice without MPS, a CPU function instance, an INFless share).
/// A batch's duration is its solo latency on the resource, drawn when it starts.

#include <deque>
#include <memory>
#include <optional>

#include "sim/gpu_models/execution_unit.hpp"
#include "sim/gpu_models/solo_latency.hpp"

namespace sim::gpu {

class ExclusiveUnit final : public ExecutionUnit {
 public:
  ExclusiveUnit(Simulation& sim, std::string name, std::unique_ptr<SoloLatency> latency);
  ~ExclusiveUnit() override;

  void submit(BatchJob job) override;
  [[nodiscard]] double predict_solo_s(const ModelProfile& model, int batch) const override;
  [[nodiscard]] std::size_t running() const override { return current_ ? 1 : 0; }
  [[nodiscard]] std::size_t queued() const override { return queue_.size(); }
  [[nodiscard]] double memory_capacity_gb() const override;
  [[nodiscard]] double memory_used_gb() const override;
  /// Time a batch submitted now would wait before it starts (remaining time of the running
  /// batch plus the predicted solo times of the queued ones).
  [[nodiscard]] Time predicted_backlog() const;
  [[nodiscard]] const SoloLatency& latency() const { return *latency_; }

 private:
  struct Pending {
    BatchJob job;
    Time submitted;
  };
  void start_next();
  void start(Pending p);
  void finish();

  // The running batch first: a completion (finish) reads it and the object's first line,
  // which the event queue prefetches (EventCallback::prefetch_target), and with ~10,500
  // units in a large INFless run the rest is out of cache by then.
  struct Current {
    BatchJob job;
    JobResult result;
    double memory_gb = 0.0;
  };
  std::optional<Current> current_;
  EventHandle handle_;
  std::unique_ptr<SoloLatency> latency_;
  std::deque<Pending> queue_;
};

}  // namespace sim::gpu
