#include "pipeline.hpp"

#include <algorithm>

namespace sim::platform::serverless {

struct Pipelines::Pipeline {
  struct Station {
    bool cut = false;
    double exec_s = 0.0;             ///< part: E_k
    int host = -1;                   ///< part: its GPU, for GPU busy time
    int gpu = -1;                    ///< part
    double output_bytes = 0.0;       ///< cut: per request
    double fixed_s = 0.0;            ///< cut within one host: per request
    std::optional<net::NodeId> src;  ///< cut across hosts: the NICs
    std::optional<net::NodeId> dst;
    std::optional<PipelineBatch> batch;
    bool done = false;  ///< the batch's work here is over; it waits for the next station
  };
  InstanceId head = 0;
  bool pipelined = true;
  bool detached = false;  ///< the head is gone or completed: drain, then erase
  std::vector<Station> stations;
  [[nodiscard]] bool empty() const {
    return std::none_of(stations.begin(), stations.end(),
                        [](const Station& st) { return st.batch.has_value(); });
  }
};

Pipelines::Pipelines(Simulation& sim, Hosts& hosts, net::FlowNetwork* flows, BatchEvents& events)
    : sim_(sim), hosts_(hosts), flows_(flows), events_(events) {}

Pipelines::~Pipelines() = default;

std::vector<Request> Pipelines::run(Inst& head, std::vector<Request> batch, BatchTimes times) {
  times.start = times.dispatch;  // part 0 takes it at once: the head was idle
  times.slice = -1;
  if (head.pipeline != 0) {
    // With a network: through the stations of its Pipeline (part 0 is empty).
    submit(head.pipeline, PipelineBatch{std::move(batch), times, head.batch_serial});
    return {};
  }
  // Flashpoint §4.2.1, eq. 4.3-4.4: a pipelined partitioned replica takes the next request
  // once its bottleneck stage passed this one on (max(E, N) later); this one leaves the
  // last part I later. Transfers between parts take output bytes / host_bandwidth.
  const InstanceId hid = head.id;
  sim_.schedule_in(ceil_seconds(head.pipeline_latency_s),
                   [this, hid, serial = head.batch_serial, b = std::move(batch), times]() mutable {
                     times.finish = sim_.now();
                     events_.batch_finished({hid, serial, {}, std::move(b), times, std::nullopt});
                   });
  head.admit = sim_.schedule_in(ceil_seconds(head.pipeline_interval_s),
                                [this, hid] { events_.head_admits(hid); });
  return {};
}

std::uint64_t Pipelines::make(InstanceId head, const Fn& fn, const std::vector<int>& cut_after,
                              const std::vector<policy::Location>& locs, bool pipelined) {
  auto p = std::make_unique<Pipeline>();
  p->head = head;
  p->pipelined = pipelined;
  std::size_t part = 0;
  std::size_t next_cut = 0;
  Pipeline::Station exec;
  for (std::size_t i = 0; i < fn.layers.size(); ++i) {
    exec.exec_s += fn.layers[i].exec_s;
    const bool cut =
        next_cut < cut_after.size() && static_cast<std::size_t>(cut_after[next_cut]) == i;
    if (!cut && i + 1 < fn.layers.size()) continue;
    exec.host = locs[part].host;
    exec.gpu = locs[part].gpu;
    p->stations.push_back(exec);
    exec = Pipeline::Station{};
    if (!cut) break;
    Pipeline::Station hop;
    hop.cut = true;
    hop.output_bytes = fn.model->cold_start->layers[i].output_bytes;
    hop.fixed_s = fn.layers[i].transfer_s;
    const int from = locs[part].host;
    const int to = locs[part + 1].host;
    if (from != to) {
      hop.src = hosts_[static_cast<std::size_t>(from)]->nic;
      hop.dst = hosts_[static_cast<std::size_t>(to)]->nic;
    }
    p->stations.push_back(hop);
    ++part;
    ++next_cut;
  }
  const std::uint64_t serial = next_++;
  pipelines_.emplace(serial, std::move(p));
  return serial;
}

void Pipelines::work(std::uint64_t serial, std::size_t s) {
  Pipeline::Station& st = pipelines_.at(serial)->stations[s];
  const auto b = static_cast<double>(st.batch->requests.size());
  if (!st.cut) {
    hosts_[static_cast<std::size_t>(st.host)]
        ->gpus[static_cast<std::size_t>(st.gpu)]
        ->batch_started(sim_.now());
    sim_.schedule_in(ceil_seconds(st.exec_s), [this, serial, s] { done(serial, s); });
  } else if (st.src && st.output_bytes > 0) {
    flows_->start(*st.src, *st.dst, b * st.output_bytes, [this, serial, s] { done(serial, s); });
  } else {
    sim_.schedule_in(ceil_seconds(b * st.fixed_s), [this, serial, s] { done(serial, s); });
  }
}

void Pipelines::done(std::uint64_t serial, std::size_t s) {
  Pipeline::Station& st = pipelines_.at(serial)->stations[s];
  st.done = true;
  if (!st.cut) {
    hosts_[static_cast<std::size_t>(st.host)]
        ->gpus[static_cast<std::size_t>(st.gpu)]
        ->batch_finished(sim_.now());
  }
  advance(serial, s);
  const auto it = pipelines_.find(serial);
  if (it != pipelines_.end() && it->second->detached && it->second->empty()) pipelines_.erase(it);
}

// Passes the finished batch of station s on if the next station is empty (the last part
// completes it), then lets the stations before it follow: backpressure up to the head.
void Pipelines::advance(std::uint64_t serial, std::size_t s) {
  Pipeline& p = *pipelines_.at(serial);
  Pipeline::Station& st = p.stations[s];
  if (s + 1 == p.stations.size()) {
    PipelineBatch b = std::move(*st.batch);
    st.batch.reset();
    st.done = false;
    const InstanceId head = p.head;
    const bool admit_now = !p.pipelined;
    b.times.finish = sim_.now();
    events_.batch_finished({head, b.serial, {}, std::move(b.requests), b.times, std::nullopt});
    if (admit_now) {
      events_.head_admits(head);  // may submit the next batch or detach: p is not used after
      return;
    }
  } else {
    Pipeline::Station& next = p.stations[s + 1];
    if (next.batch) return;  // blocked until the next station passes its batch on
    next.batch = std::move(st.batch);
    next.done = false;
    st.batch.reset();
    st.done = false;
    work(serial, s + 1);
  }
  if (s == 0) {
    if (p.pipelined) events_.head_admits(p.head);
  } else if (p.stations[s - 1].done) {
    advance(serial, s - 1);
  }
}

void Pipelines::submit(std::uint64_t serial, PipelineBatch batch) {
  Pipeline::Station& first = pipelines_.at(serial)->stations.front();
  first.batch = std::move(batch);
  first.done = false;
  work(serial, 0);
}

void Pipelines::detach(std::uint64_t serial) {
  const auto it = pipelines_.find(serial);
  if (it == pipelines_.end()) return;
  it->second->detached = true;
  if (it->second->empty()) pipelines_.erase(it);
}

}  // namespace sim::platform::serverless
