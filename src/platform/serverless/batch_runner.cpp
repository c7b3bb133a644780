#include "batch_runner.hpp"

#include <algorithm>
#include <utility>

namespace sim::platform::serverless {

std::vector<Request> UnitRunner::run(Inst& inst, std::vector<Request> batch, BatchTimes times) {
  gpu::BatchJob job;
  job.id = inst.batch_serial;
  job.model = inst.fn->model;
  job.batch = static_cast<int>(batch.size());
  job.sm_cap = inst.config.gpu_share;
  job.hint = &inst;  // the completion reads the instance's batch state first
  job.hint_bytes = batch_state_bytes(inst);
  std::vector<Request> left;
  if (batch.size() <= Inst::kHeld) {
    // In the instance, whose lines the completion fetches together (prefetch_batch_state),
    // rather than in a vector of their own, one more miss after them.
    std::copy(batch.begin(), batch.end(), inst.held_requests.begin());
    inst.held_count = static_cast<std::uint32_t>(batch.size());
    left = std::move(batch);
  } else {
    inst.held_count = 0;
    inst.running = std::move(batch);
  }
  inst.running_times = times;
  // Two words: stored inline by std::function. The batch's serial comes back as the job's id.
  job.on_complete = [events = &events_, id = inst.id](const gpu::JobResult& r) {
    Inst& i = events->running(id, r.id);
    BatchTimes t = i.running_times;
    t.start = r.started;
    t.finish = r.finished;
    events->batch_finished(
        {id, r.id, std::span<const Request>(i.held_requests.data(), i.held_count),
         i.held_count > 0 ? std::vector<Request>{} : std::move(i.running), t, r});
  };
  inst.unit->submit(std::move(job));
  return left;
}

}  // namespace sim::platform::serverless
