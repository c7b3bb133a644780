#pragma once
/// The one execution-model interface: a place (a whole GPU, a MIG slice, a cGPU share, a CPU
/// function instance, an INFless CPU/GPU share) that runs batch jobs and reports when they end.
///
/// A caller submits a BatchJob; the unit schedules the completion on the Simulation it was
/// given and calls the job's callback at the finish time (after the unit's own state has been
/// updated, so the callback may submit again). Queries are free of side effects.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>

#include "sim/engine/simulation.hpp"
#include "sim/engine/time.hpp"
#include "sim/gpu_models/model_profile.hpp"

namespace sim::gpu {

struct JobResult {
  std::uint64_t id = 0;
  Time submitted;
  Time started;  ///< when the job began to execute (left the unit's queue)
  Time finished;
  double solo_s = 0.0;  ///< its solo duration on this unit (before interference)
};

struct BatchJob {
  std::uint64_t id = 0;
  const ModelProfile* model = nullptr;  ///< must outlive the job
  int batch = 1;
  /// MPS only: upper bound on the job's fraction of SMs (strategic MPS as GPUlet, Protean
  /// §6.2); 1 = default MPS, where co-runners decide their SM share.
  double sm_cap = 1.0;
  std::function<void(const JobResult&)> on_complete;
  /// A hint, no effect on behaviour: `hint_bytes` from `hint` that on_complete will read (the
  /// platform's instance). A unit that supports it (ExclusiveUnit) requests them when the
  /// completion's event starts, so that their misses overlap the unit's own instead of
  /// following them (the callback is found in the unit's state). May dangle: a prefetch
  /// never faults.
  const void* hint = nullptr;
  std::uint32_t hint_bytes = 0;
};

class ExecutionUnit {
 public:
  ExecutionUnit(Simulation& sim, std::string name) : sim_(sim), name_(std::move(name)) {}
  virtual ~ExecutionUnit() = default;
  ExecutionUnit(const ExecutionUnit&) = delete;
  ExecutionUnit& operator=(const ExecutionUnit&) = delete;

  /// Starts or queues the job. Throws std::invalid_argument if it can never run here (no
  /// profile for this resource, batch memory above the unit's capacity) and
  /// std::logic_error while the unit is disabled (MIG reconfiguration).
  virtual void submit(BatchJob job) = 0;

  /// Solo latency (seconds) of a batch here, without queueing or interference.
  [[nodiscard]] virtual double predict_solo_s(const ModelProfile& model, int batch) const = 0;
  [[nodiscard]] virtual std::size_t running() const = 0;
  [[nodiscard]] virtual std::size_t queued() const = 0;
  /// GB; infinity when unbounded.
  [[nodiscard]] virtual double memory_capacity_gb() const {
    return std::numeric_limits<double>::infinity();
  }
  /// GB held by running jobs.
  [[nodiscard]] virtual double memory_used_gb() const { return 0.0; }
  [[nodiscard]] double memory_free_gb() const { return memory_capacity_gb() - memory_used_gb(); }
  [[nodiscard]] bool idle() const { return running() == 0 && queued() == 0; }
  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] std::uint64_t completed() const { return completed_; }

  /// Bytes from a unit's start that prefetch() fetches: all of an ExclusiveUnit (the unit of
  /// each INFless and CPU instance; exclusive_unit.cpp checks it fits).
  static constexpr std::size_t kPrefetchBytes = 384;
  /// A hint, no effect on behaviour: starts fetching the unit's state, for a caller that
  /// submits to it after other work (the platform, once it has found the instance a batch
  /// goes to), so that the unit's misses overlap that work instead of following it.
  void prefetch() const noexcept {
    const auto* p = reinterpret_cast<const char*>(this);
    for (std::size_t k = 0; k < kPrefetchBytes; k += 64)
      __builtin_prefetch(p + k);
  }

  /// A disabled unit rejects submissions (used while its MIG slice is being reconfigured).
  void set_enabled(bool enabled) { enabled_ = enabled; }
  [[nodiscard]] bool enabled() const { return enabled_; }

 protected:
  void check_submittable(const BatchJob& job) const;
  Simulation& sim_;
  std::uint64_t completed_ = 0;

 private:
  std::string name_;
  bool enabled_ = true;
};

}  // namespace sim::gpu
