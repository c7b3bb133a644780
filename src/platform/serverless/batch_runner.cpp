#include "batch_runner.hpp"

#include <utility>

namespace sim::platform::serverless {

void UnitRunner::run(Inst& inst, std::vector<Request> batch, BatchTimes times) {
  gpu::BatchJob job;
  job.id = inst.batch_serial;
  job.model = inst.fn->model;
  job.batch = static_cast<int>(batch.size());
  job.sm_cap = inst.config.gpu_share;
  job.on_complete = [this, id = inst.id, serial = inst.batch_serial, b = std::move(batch),
                     times](const gpu::JobResult& r) mutable {
    times.start = r.started;
    times.finish = r.finished;
    events_.batch_finished({id, serial, std::move(b), times, r});
  };
  inst.unit->submit(std::move(job));
}

}  // namespace sim::platform::serverless
