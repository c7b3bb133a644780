#pragma once
/// What runs a dispatched batch, and the one way a batch's end is reported (issue #23): a
/// BatchRunner takes the batch from the request path, and when the batch has left it reports a
/// FinishedBatch to BatchEvents::batch_finished, the single completion path, which writes the
/// requests' records with one latency decomposition (records.hpp). Two runners: UnitRunner
/// (the instance's execution unit: a GPU, MIG slice, time-slice window, operator unit or CPU
/// cores) and Pipelines (a partitioned replica's pipeline, pipeline.hpp).

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "model.hpp"
#include "records.hpp"

namespace sim::platform::serverless {

/// A batch that has left its runner.
struct FinishedBatch {
  InstanceId instance = 0;   ///< the instance (a replica's head) it was dispatched to
  std::uint64_t serial = 0;  ///< Inst::batch_serial at its dispatch
  /// Requests the runner held in the instance (Inst::held_requests), valid until
  /// batch_finished lets the instance take another batch; empty: they are in `storage`.
  std::span<const Request> held;
  std::vector<Request> storage;  ///< the requests otherwise; kept for later dispatches
  BatchTimes times;              ///< complete: start and finish set by the runner
  /// The execution unit's result (UnitRunner): the instance is free again. A pipeline's batch
  /// has none: its head was freed when part 0 passed the batch on (BatchEvents::head_admits).
  std::optional<gpu::JobResult> unit;

  [[nodiscard]] std::span<const Request> requests() const {
    return held.empty() ? std::span<const Request>(storage) : held;
  }
};

/// What runners report upward (the control plane implements it; runners never call it
/// otherwise).
class BatchEvents {
 public:
  /// The one completion path: every batch ends here, whichever runner ran it.
  virtual void batch_finished(FinishedBatch batch) = 0;
  /// A pipelined replica's head may take its next batch (its first part is free again).
  virtual void head_admits(InstanceId head) = 0;
  /// The instance whose unit runs the batch `serial` (UnitRunner keeps the batch in
  /// Inst::running); throws std::logic_error if there is none.
  virtual Inst& running(InstanceId id, std::uint64_t serial) = 0;

 protected:
  ~BatchEvents() = default;
};

class BatchRunner {
 public:
  virtual ~BatchRunner() = default;
  /// Runs `batch`, dispatched now to `inst` (inst.batch_serial set); `times`: when and where,
  /// all but start and finish, which the runner fills in when the batch has left it. Returns
  /// `batch`'s storage if the runner did not keep it (for a later dispatch to reuse).
  virtual std::vector<Request> run(Inst& inst, std::vector<Request> batch, BatchTimes times) = 0;
};

/// Runs a batch on the instance's execution unit (Inst::unit) as one job; the unit's result
/// gives the batch's start and finish. A batch of up to Inst::kHeld requests is copied into
/// the instance (its storage is returned), a larger one moves there.
class UnitRunner final : public BatchRunner {
 public:
  explicit UnitRunner(BatchEvents& events) : events_(events) {}
  std::vector<Request> run(Inst& inst, std::vector<Request> batch, BatchTimes times) override;

 private:
  BatchEvents& events_;
};

}  // namespace sim::platform::serverless
