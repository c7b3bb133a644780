#include "sim/platform/fifo_gpu_platform.hpp"

#include <algorithm>

namespace sim::platform {

using nlohmann::json;

FifoGpuPlatform::FifoGpuPlatform(Config config, PlatformContext context)
    : config_(config), context_(std::move(context)), gpus_(static_cast<std::size_t>(config.gpus)) {}

metrics::RequestRecord FifoGpuPlatform::make_record(const Waiting& w,
                                                    metrics::Outcome outcome) const {
  metrics::RequestRecord r;
  r.id = w.id;
  r.function = w.arrival.function;
  r.application = w.arrival.application;
  r.cls = w.arrival.cls;
  r.arrival = w.arrival.time;
  r.slo = w.arrival.slo;
  r.outcome = outcome;
  return r;
}

void FifoGpuPlatform::on_arrival(const traces::Arrival& arrival, std::uint64_t request_id) {
  if (queue_.size() >= config_.queue_capacity) {
    auto r = make_record({arrival, request_id}, metrics::Outcome::kDropped);
    r.dispatch = r.start = r.finish = context_.sim->now();
    context_.record(r);
    return;
  }
  queue_.push_back({arrival, request_id});
  // The lowest-numbered idle GPU takes work first: a deterministic choice.
  for (std::size_t g = 0; g < gpus_.size() && !queue_.empty(); ++g) {
    if (!gpus_[g].busy) try_start(g);
  }
}

void FifoGpuPlatform::try_start(std::size_t g) {
  Gpu& gpu = gpus_[g];
  if (gpu.busy || queue_.empty()) return;
  const auto b = std::min<std::size_t>(queue_.size(), static_cast<std::size_t>(config_.max_batch));
  gpu.batch.assign(queue_.begin(), queue_.begin() + static_cast<long>(b));
  queue_.erase(queue_.begin(), queue_.begin() + static_cast<long>(b));
  gpu.busy = true;
  gpu.busy_since = context_.sim->now();
  running_ += b;
  ++batches_;
  const Time service = config_.batch_base + config_.per_request * static_cast<std::int64_t>(b);
  context_.sim->schedule_in(service, [this, g] { finish(g); });
}

void FifoGpuPlatform::finish(std::size_t g) {
  Gpu& gpu = gpus_[g];
  const Time now = context_.sim->now();
  const Time start = gpu.busy_since;
  const auto b = static_cast<std::uint32_t>(gpu.batch.size());
  for (const Waiting& w : gpu.batch) {
    const Time latency = now - w.arrival.time;
    const bool missed = w.arrival.slo > Time::zero() && latency > w.arrival.slo;
    auto r = make_record(w, missed ? metrics::Outcome::kSloMiss : metrics::Outcome::kOk);
    r.dispatch = start;
    r.start = start;
    r.finish = now;
    r.queue_wait = start - w.arrival.time;
    r.execution = now - start;
    r.batch_size = b;
    r.device = static_cast<std::int32_t>(g);
    context_.record(r);
  }
  running_ -= b;
  gpu.busy_total += now - start;
  gpu.busy = false;
  gpu.batch.clear();
  try_start(g);
}

std::uint64_t FifoGpuPlatform::requests_in_system() const {
  return queue_.size() + running_;
}

void FifoGpuPlatform::add_timeseries_columns(metrics::TimeSeriesRecorder& recorder) {
  recorder.add_column("queue_length", [this] { return static_cast<double>(queue_.size()); });
  recorder.add_column("busy_gpus", [this] {
    return static_cast<double>(
        std::count_if(gpus_.begin(), gpus_.end(), [](const Gpu& g) { return g.busy; }));
  });
  recorder.add_column("running_requests", [this] { return static_cast<double>(running_); });
}

json FifoGpuPlatform::summary_extra(Time end) const {
  // Utilisation counts a batch still running at `end` up to `end`.
  Time busy;
  for (const Gpu& g : gpus_)
    busy += g.busy_total + (g.busy ? end - g.busy_since : Time::zero());
  const double capacity = end.to_seconds() * static_cast<double>(gpus_.size());
  return json{{"gpu_utilisation", capacity > 0 ? busy.to_seconds() / capacity : 0.0},
              {"gpu_busy_seconds", busy.to_seconds()},
              {"batches", batches_},
              {"gpus", gpus_.size()}};
}

PlatformKind fifo_gpu_platform_kind() {
  auto schema = std::make_shared<config::Schema>(
      "platform/fifo-gpu",
      "Minimal platform without cold starts or policies: identical GPUs, one batch at a time "
      "each, one global FIFO queue; batch latency = batch_base + b * per_request. For tests "
      "and queueing baselines; the serverless platform is the full model.");
  schema->add("gpus", config::ParamType::kInteger)
      .def(1)
      .at_least(1)
      .at_most(100000)
      .doc("number of GPUs");
  schema->add("max_batch", config::ParamType::kInteger)
      .def(8)
      .at_least(1)
      .at_most(4096)
      .doc("largest batch a GPU takes from the queue");
  schema->add("batch_base", config::ParamType::kDuration)
      .def("10ms")
      .at_least(0)
      .doc("fixed part of a batch's execution time");
  schema->add("per_request", config::ParamType::kDuration)
      .def("2ms")
      .at_least(0)
      .doc("execution time added by each request of a batch");
  schema->add("queue_capacity", config::ParamType::kInteger)
      .def(100000)
      .at_least(1)
      .at_most(100000000)
      .doc("requests that may wait; arrivals beyond it are dropped");
  PlatformKind kind;
  kind.name = "fifo-gpu";
  kind.description = schema->description();
  kind.schema = schema;
  kind.make = [](const json& p, PlatformContext context) -> std::unique_ptr<Platform> {
    FifoGpuPlatform::Config c;
    c.gpus = p.at("gpus").get<int>();
    c.max_batch = p.at("max_batch").get<int>();
    c.batch_base = config::get_duration(p, "batch_base");
    c.per_request = config::get_duration(p, "per_request");
    c.queue_capacity = p.at("queue_capacity").get<std::uint64_t>();
    return std::make_unique<FifoGpuPlatform>(c, std::move(context));
  };
  return kind;
}

}  // namespace sim::platform
