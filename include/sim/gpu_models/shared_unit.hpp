#pragma once
/// Several batches sharing one whole GPU or MIG slice: MPS (spatial sharing) or time-slicing of
/// several containers' contexts, with the work-conserving physics of sharing_model.hpp.
///
/// Each running job carries its solo work (solo-seconds) and its demands; rates are recomputed
/// from scratch whenever a job starts or ends (progress-based, like the network), and a job's
/// completion event is re-issued only when its own rate changed. A job finishes when its
/// integrated progress reaches its solo work; finish times are rounded up to the next
/// nanosecond (sim::ceil_seconds).
///
/// Strategic MPS (GPUlet, Protean §6.2): a job may carry an SM cap f < 1. It then runs alone in
/// solo * max(1, knee / f), where `knee` is the SM fraction beyond which more SMs stop helping
/// (~60-65% in §6.2), and demands at most f of the compute.
///
/// Jobs start in FIFO order while their batch memory fits the unit's free memory and the
/// client limit is not reached; otherwise they wait (head of line blocks).

#include <deque>
#include <vector>

#include "sim/gpu_models/execution_unit.hpp"
#include "sim/gpu_models/gpu_type.hpp"
#include "sim/gpu_models/sharing_model.hpp"

namespace sim::gpu {

struct SharedUnitOptions {
  /// SM fraction of diminishing returns (Protean §6.2: "~60-65%"); used only for capped jobs.
  double sm_knee = 0.6;
  /// Most concurrent clients (NVIDIA MPS allows 48 per device); further jobs queue.
  std::size_t max_clients = 48;
  SharingParams sharing;
};

class SharedUnit final : public ExecutionUnit {
 public:
  /// `profile` nullptr = the whole GPU. `gpu` and `profile` must outlive the unit.
  SharedUnit(Simulation& sim, std::string name, const GpuType& gpu,
             const MigProfile* profile = nullptr, SharedUnitOptions options = {});
  ~SharedUnit() override;

  void submit(BatchJob job) override;
  [[nodiscard]] double predict_solo_s(const ModelProfile& model, int batch) const override;
  [[nodiscard]] std::size_t running() const override { return running_.size(); }
  [[nodiscard]] std::size_t queued() const override { return queue_.size(); }
  [[nodiscard]] double memory_capacity_gb() const override;
  [[nodiscard]] double memory_used_gb() const override;

  /// Current progress rates of the running jobs, in start order (fractions of solo speed).
  [[nodiscard]] std::vector<double> rates() const;
  /// Current demands of the running jobs, in start order.
  [[nodiscard]] std::vector<Demand> demands() const;
  [[nodiscard]] const SharingParams& sharing() const { return options_.sharing; }
  /// Completion events issued so far (initial + re-issued); for benchmarks and tests.
  [[nodiscard]] std::uint64_t events_issued() const { return events_issued_; }

 private:
  struct Job {
    std::uint64_t serial = 0;
    BatchJob job;
    JobResult result;
    double remaining_s = 0.0;  ///< solo-seconds of work left
    Demand demand;
    double rate = 0.0;
    double memory_gb = 0.0;
    EventHandle handle;
  };
  void advance();  // charge progress since last_update_
  void admit();    // start queued jobs that fit, then re-rate
  void on_finish(std::uint64_t serial);
  void schedule(Job& j);
  [[nodiscard]] double cap_factor(double sm_cap) const;

  const GpuType& gpu_;
  const MigProfile* profile_;
  SharedUnitOptions options_;
  std::vector<Job> running_;  // in start order
  std::deque<Job> queue_;
  Time last_update_;
  std::uint64_t next_serial_ = 0;
  std::uint64_t events_issued_ = 0;
};

}  // namespace sim::gpu
