#include "batch_runner.hpp"

#include <utility>

namespace sim::platform::serverless {

void UnitRunner::run(Inst& inst, std::vector<Request> batch, BatchTimes times) {
  gpu::BatchJob job;
  job.id = inst.batch_serial;
  job.model = inst.fn->model;
  job.batch = static_cast<int>(batch.size());
  job.sm_cap = inst.config.gpu_share;
  inst.running = std::move(batch);
  inst.running_times = times;
  // Two words: stored inline by std::function. The batch's serial comes back as the job's id.
  job.on_complete = [events = &events_, id = inst.id](const gpu::JobResult& r) {
    Inst& i = events->running(id, r.id);
    BatchTimes t = i.running_times;
    t.start = r.started;
    t.finish = r.finished;
    events->batch_finished({id, r.id, std::move(i.running), t, r});
  };
  inst.unit->submit(std::move(job));
}

}  // namespace sim::platform::serverless
