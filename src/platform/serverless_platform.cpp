#include "sim/platform/serverless_platform.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/gpu_models/exclusive_unit.hpp"
#include "sim/gpu_models/solo_latency.hpp"
#include "sim/gpu_models/time_sliced_unit.hpp"
#include "sim/network/topology_config.hpp"
#include "sim/platform/fragmentation.hpp"
#include "sim/platform/request_queue.hpp"

namespace sim::platform {

using nlohmann::json;
using policy::InstanceId;
using policy::InstanceState;

struct ServerlessPlatform::Request {
  traces::Arrival arrival;
  std::uint64_t id = 0;
  Time timeout;
};

/// A queue with its batcher wake-up: one per function, or one per queue group
/// (FunctionSpec::queue_group) shared by the group's functions.
struct ServerlessPlatform::Queue {
  RequestQueue<Request> requests;
  std::vector<Fn*> members;  ///< by function id
  /// Instances of the members that may be dispatchable (idle and not held), by id: an instance
  /// enters through became_idle() and leaves when pump() finds it no longer dispatchable, so a
  /// dispatch scans the idle instances only, not every live one.
  std::set<InstanceId> idle;
  EventHandle wake;
  Time wake_at;
  int host = -1;                                ///< a node queue's host; -1: the cluster-wide queue
  Queue* cluster = nullptr;                     ///< a node queue's cluster-wide queue
  std::map<int, std::unique_ptr<Queue>> nodes;  ///< cluster queue under kNode: by host
  std::size_t next = 0;                         ///< the gateway's round-robin position
};

struct ServerlessPlatform::Fn {
  FunctionSpec spec;
  std::uint32_t id = 0;
  const gpu::ModelProfile* model = nullptr;
  double bytes = 0.0;
  double device_gb = 0.0;
  double batch_latency_s = 0.0;
  Queue* queue = nullptr;
  std::size_t queued = 0;   ///< requests of this function in its queue
  std::deque<Time> recent;  ///< arrival times within the longest rate window
  std::uint64_t arrivals = 0;
  std::uint64_t strict_arrivals = 0;
  std::uint64_t dequeued = 0;      ///< requests taken into batches
  double dequeued_wait_s = 0.0;    ///< their summed queue waits
  std::set<InstanceId> instances;  ///< live instances, by id
  std::map<std::uint32_t, Time> timeout_by_app;
  std::vector<policy::LayerView> layers;  ///< per-layer costs (models with a layer profile)
  std::vector<double> layer_share;        ///< each layer's share of the model's bytes
};

/// What a part of a partitioned replica changes in an instance's cold start.
struct ServerlessPlatform::PartSetup {
  double bytes = 0.0;
  double load_s = 0.0;
  InstanceId head = 0;  ///< 0: this part is the head
  int part = 0;
  int parts = 1;
};

struct ServerlessPlatform::Inst {
  InstanceId id = 0;
  Fn* fn = nullptr;
  InstanceState state = InstanceState::kColdStarting;
  policy::InstanceConfig config;
  policy::Location loc;
  Time created;
  Time state_since;
  Time ready_at;
  Time idle_since;
  std::uint64_t batches = 0;
  double batch_latency_s = 0.0;  ///< solo latency of max_batch on its unit
  double device_gb = 0.0;        ///< GPU memory reserved for its lifetime
  double cores = 0.0;            ///< host cores reserved for its lifetime
  double window_gb = 0.0;        ///< time-sliced: window start within the cycle, in GB units
  gpu::ExecutionUnit* unit = nullptr;
  std::unique_ptr<gpu::ExecutionUnit> own_unit;  ///< CPU, time-sliced, operator-profile
  EventHandle timer;                             ///< keep-alive or cold-start stage
  bool stop_after_batch = false;
  double host_bytes = 0.0;  ///< host memory reserved during the cold start
  std::size_t cold = 0;     ///< index into cold_log_
  std::string stage;        ///< cold-start stage in progress
  Time stage_since;
  std::optional<net::TransferManager::RequestId> transfer;
  bool skip_load = false;  ///< SourceChoice::loaded: the host keeps the model loaded
  double bytes = 0.0;      ///< bytes its cold start moves (a part: its share of the model)
  double load_s = -1.0;    ///< a part's load stage; < 0: the model's
  // Partitioned replica (Flashpoint §4.2): every part is an instance on its own GPU; the head
  // (part 0) takes the requests and runs them through the pipeline.
  InstanceId head = 0;  ///< parts 1..p-1: the head's id
  int part = -1;        ///< -1: a full instance
  int parts = 1;
  std::vector<InstanceId> members;   ///< head: parts 1..p-1
  int parts_waiting = 0;             ///< head: parts still cold-starting (itself included)
  bool held = false;                 ///< ready but not dispatchable (a part of a replica)
  double pipeline_interval_s = 0.0;  ///< head: max(E, N), a new request every this long
  double pipeline_latency_s = 0.0;   ///< head: I = execution + transfers (0: not pipelined)
  double completion_s = 0.0;         ///< head: model completion after the replica is ready
  std::uint64_t pipeline = 0;        ///< head with a network: its Pipeline (0: fixed times)
  EventHandle admit;
  std::vector<Request> batch;
  std::uint64_t batch_serial = 0;
  Time dispatch;
  Time avail;
};

/// A download of one model to one host without a network section: later requests join it
/// (download sharing, Flashpoint thesis §5.1).
struct ServerlessPlatform::PendingDownload {
  EventHandle done;
  std::vector<InstanceId> waiters;
};

/// A chained multicast of one model from one source (Flashpoint thesis §6.2): gathered while
/// cold starts join at one simulated time, then one flow source -> hosts[0] -> hosts[1] ...
struct ServerlessPlatform::Chain {
  std::pair<std::string, int> key;  ///< model, source host (-1: the store)
  double bytes = 0.0;
  std::vector<int> hosts;                          ///< receivers in joining order
  std::map<int, std::vector<InstanceId>> waiters;  ///< by receiver host
  std::optional<net::FlowHandle> flow;             ///< with a network, once launched
  EventHandle done;                                ///< without a network, once launched
  bool launched = false;
};

/// A pipelined partitioned replica with a network (Flashpoint thesis §4.2.1, Fig. 4.6, Table
/// 4.1): a blocking flow shop of 2p - 1 stations, part 0, cut 0, part 1, ..., part p-1. A part's
/// station executes its layers (E_k, the layer profile's execution times, as without a
/// network); a cut's station sends the cut layer's output (output bytes x batch size) from the
/// part's host NIC to the next part's as a flow on the FlowNetwork, so it shares links with (and
/// slows) cold-start downloads (N_k). Parts on one host use no network: the hop takes the output
/// bytes x batch size at host_bandwidth (the time used without a network). Every station holds
/// one batch; a station that finished passes its batch on only when the next one is empty
/// (backpressure), and the head takes a new batch from the dispatcher only when part 0 is empty.
/// With identical batches and no contention, a blocking flow shop admits one batch every
/// max over stations = max(E, N) (eq. 4.3), and an unobstructed batch leaves the last part
/// I = sum E_k + sum N_k after its dispatch (eq. 4.4 with x = 1): the fixed-time model's numbers.
/// Batches in flight finish even if the replica stops meanwhile (as without a network).
struct ServerlessPlatform::Pipeline {
  struct Batch {
    std::vector<Request> requests;
    Time dispatch;
    Time avail;
    Time ready_at;
    int device = -1;
  };
  struct Station {
    bool cut = false;
    double exec_s = 0.0;             ///< part: E_k
    int host = -1;                   ///< part: its GPU, for GPU busy time
    int gpu = -1;                    ///< part
    double output_bytes = 0.0;       ///< cut: per request
    double fixed_s = 0.0;            ///< cut within one host: per request
    std::optional<net::NodeId> src;  ///< cut across hosts: the NICs
    std::optional<net::NodeId> dst;
    std::optional<Batch> batch;
    bool done = false;  ///< the batch's work here is over; it waits for the next station
  };
  InstanceId head = 0;
  bool detached = false;  ///< the head is gone or completed: drain, then erase
  std::vector<Station> stations;
  [[nodiscard]] bool empty() const {
    return std::none_of(stations.begin(), stations.end(),
                        [](const Station& st) { return st.batch.has_value(); });
  }
};

namespace {

Time transfer_time(double bytes, double bps) {
  return bytes <= 0 ? Time::zero() : ceil_seconds(bytes * 8.0 / bps);
}

metrics::RequestRecord base_record(const traces::Arrival& a, std::uint64_t id) {
  metrics::RequestRecord r;
  r.id = id;
  r.function = a.function;
  r.application = a.application;
  r.cls = a.cls == traces::RequestClass::kStrict ? metrics::RequestClass::kStrict
                                                 : metrics::RequestClass::kBestEffort;
  r.arrival = a.time;
  r.slo = a.slo;
  return r;
}

}  // namespace

ServerlessPlatform::ServerlessPlatform(ServerlessConfig config, const gpu::ModelCatalog& catalog,
                                       PlatformContext context, Policies policies)
    : config_(std::move(config)),
      catalog_(catalog),
      context_(std::move(context)),
      policies_(std::move(policies)),
      sim_(*context_.sim),
      spot_rng_(context_.sim->rng("platform/serverless", "spot")) {
  if (!policies_.batcher || !policies_.dispatcher || !policies_.autoscaler ||
      !policies_.placement || !policies_.keep_alive || !policies_.sourcing) {
    throw std::invalid_argument(
        "serverless platform: batcher, dispatcher, autoscaler, placement, keep_alive and "
        "cold_start_sourcing policies are required");
  }
  if (config_.control_interval <= Time::zero()) {
    throw std::invalid_argument("serverless platform: control_interval must be > 0");
  }
  if (config_.rate_windows.empty()) config_.rate_windows.push_back(seconds(10));

  if (config_.network) {
    topology_ = std::make_unique<net::Topology>(net::build_topology(*config_.network));
    flows_ = std::make_unique<net::FlowNetwork>(sim_, *topology_);
    transfers_ = std::make_unique<net::TransferManager>(*flows_);
    const auto stores = topology_->nodes_of_kind(net::NodeKind::kStore);
    if (!stores.empty()) store_node_ = stores.front();
  }

  double largest_gpu_gb = 0.0;
  for (const auto& t : config_.hosts) {
    for (const auto& g : t.spec.gpus) {
      const gpu::GpuType& type = catalog_.gpu(g.type);
      if (planning_gpu_ == nullptr) planning_gpu_ = &type;
      largest_gpu_gb = std::max(largest_gpu_gb, type.memory_gb);
    }
  }

  // Functions: every function the workload names needs a spec.
  std::map<std::string, const FunctionSpec*> by_name;
  for (const auto& f : config_.functions) {
    if (!by_name.emplace(f.name, &f).second) {
      throw std::invalid_argument("serverless platform: function \"" + f.name +
                                  "\" is declared twice");
    }
  }
  const auto& names =
      context_.labels != nullptr ? context_.labels->functions() : std::vector<std::string>{};
  for (std::uint32_t id = 0; id < names.size(); ++id) {
    const auto it = by_name.find(names[id]);
    if (it == by_name.end()) {
      throw std::invalid_argument(
          "serverless platform: the workload sends requests to function \"" + names[id] +
          "\", which platform.functions does not declare");
    }
    auto fn = std::make_unique<Fn>();
    fn->spec = *it->second;
    fn->id = id;
    fn->model = &catalog_.model(fn->spec.model);
    const auto& m = *fn->model;
    if (fn->spec.model_bytes) {
      fn->bytes = *fn->spec.model_bytes;
    } else if (m.cold_start) {
      fn->bytes = m.cold_start->size_mb.value * 1e6;
    } else if (m.weights_mb) {
      fn->bytes = m.weights_mb->value * 1e6;
    } else {
      // No published size: the batch footprint bounds the weights from above.
      fn->bytes = m.memory_gb() * 1e9;
    }
    if (fn->spec.gpu) {
      const auto& cfg = fn->spec.config;
      const bool op = cfg.cpu_threads > 0;
      if (op ? !m.operators : !m.gpu) {
        throw std::invalid_argument("serverless platform: function \"" + fn->spec.name +
                                    "\" runs on a GPU but model " + m.name + " has no " +
                                    (op ? "operator profile (cpu_threads > 0)" : "GPU profile"));
      }
      if (cfg.time_slice_gb > 0 && !m.cgpu) {
        throw std::invalid_argument("serverless platform: function \"" + fn->spec.name +
                                    "\" is time-sliced but model " + m.name +
                                    " has no cgpu profile (tau, M_max)");
      }
      if (planning_gpu_ == nullptr) {
        throw std::invalid_argument("serverless platform: function \"" + fn->spec.name +
                                    "\" needs a GPU but the cluster has none");
      }
      fn->device_gb = fn->spec.device_memory_gb.value_or(m.memory_gb());
      // A batch that no GPU can hold would leave the function's requests queued for ever, with
      // nothing in the output saying why. Time-sliced functions page their memory (cGPU's
      // M_max) and layer-partitioned models spread over GPUs (Flashpoint), so only the rest
      // must fit one device.
      const bool spreads = cfg.time_slice_gb > 0 || (m.cold_start && !m.cold_start->layers.empty());
      if (!spreads && fn->device_gb > largest_gpu_gb) {
        throw std::invalid_argument(fmt::format(
            "serverless platform: function \"{}\" needs {:g} GB of GPU memory per batch (model "
            "{}) but the largest GPU of the cluster has {:g} GB",
            fn->spec.name, fn->device_gb, m.name, largest_gpu_gb));
      }
      if (op) {
        fn->batch_latency_s =
            gpu::OperatorProfileLatency(cfg.cpu_threads,
                                        static_cast<int>(std::lround(100.0 * cfg.gpu_share)))
                .predict_s(m, cfg.max_batch);
      } else if (cfg.time_slice_gb > 0) {
        fn->batch_latency_s =
            gpu::TimeSlicedUnit(sim_, "planning", *planning_gpu_,
                                gpu::TimeSlicedUnit::options_for(m, cfg.time_slice_gb))
                .predict_solo_s(m, cfg.max_batch);  // HarmonyBatch eq. 3
      } else {
        fn->batch_latency_s = m.gpu_solo_s(cfg.max_batch, *planning_gpu_);
      }
    } else {
      if (!m.cpu) {
        throw std::invalid_argument("serverless platform: function \"" + fn->spec.name +
                                    "\" runs on CPUs but model " + m.name + " has no CPU profile");
      }
      fn->batch_latency_s =
          gpu::CpuFunctionLatency(fn->spec.config.cpu_cores, gpu::CpuLatencyMode::kAverage)
              .predict_s(m, fn->spec.config.max_batch);
    }
    if (fn->spec.gpu && m.cold_start && !m.cold_start->layers.empty()) {
      // Flashpoint §4.1.3 per-layer profile in the platform's terms: a layer's share of the
      // model's bytes, load and copy follows its share of the profiled layer cold starts, so
      // the parts of a replica add up to the full model's cold start stages.
      const auto& cs = *m.cold_start;
      const double total = cs.layer_cold_start_total_s();
      const double full_s = transfer_time(fn->bytes, config_.store_bps).to_seconds() +
                            cs.load_s.value +
                            transfer_time(fn->bytes, config_.pcie_bps).to_seconds();
      for (const auto& l : cs.layers) {
        const double share = total > 0 ? l.cold_start_s / total : 0.0;
        fn->layer_share.push_back(share);
        fn->layers.push_back({share * full_s, l.exec_s, l.output_bytes * 8.0 / config_.host_bps});
      }
    }
    const auto& apps = context_.labels->applications();
    for (std::uint32_t a = 0; a < apps.size(); ++a) {
      const auto t = fn->spec.app_timeouts.find(apps[a]);
      fn->timeout_by_app[a] = t == fn->spec.app_timeouts.end() ? fn->spec.batch_timeout : t->second;
    }
    fns_.push_back(std::move(fn));
  }
  // Queues: one per function, or one per named queue group (same model required, since any
  // instance of the group may take any of its requests).
  std::map<std::string, Queue*> groups;
  for (auto& f : fns_) {
    const std::string& g = f->spec.queue_group;
    if (!g.empty()) {
      const auto it = groups.find(g);
      if (it != groups.end()) {
        const Fn& first = *it->second->members.front();
        if (first.spec.model != f->spec.model || first.spec.gpu != f->spec.gpu) {
          throw std::invalid_argument("serverless platform: functions \"" + first.spec.name +
                                      "\" and \"" + f->spec.name + "\" share queue_group \"" + g +
                                      "\" but serve different models or resources (" +
                                      first.spec.model + " vs " + f->spec.model + ")");
        }
        f->queue = it->second;
        it->second->members.push_back(f.get());
        continue;
      }
    }
    queues_.push_back(std::make_unique<Queue>());
    f->queue = queues_.back().get();
    f->queue->members.push_back(f.get());
    if (!g.empty()) groups[g] = f->queue;
  }

  for (std::size_t t = 0; t < config_.hosts.size(); ++t) {
    for (int i = 0; i < config_.hosts[t].count; ++i)
      add_host(static_cast<int>(t), config_.hosts[t].spec.market);
  }
  for (const auto& s : config_.spot.scheduled) {
    if (s.host < 0 || static_cast<std::size_t>(s.host) >= hosts_.size()) {
      throw std::invalid_argument("serverless platform: scheduled revocation of host " +
                                  std::to_string(s.host) + ", but the cluster has " +
                                  std::to_string(hosts_.size()) + " hosts");
    }
    const Time notice = config_.spot.notice_min;
    const Time at_notice = std::max(s.at - notice, sim_.now());
    const int h = s.host;
    sim_.schedule_at(at_notice, [this, h] { revocation_notice(h); });
  }
  sim_.schedule_at(sim_.now(), [this] { tick(); });
}

ServerlessPlatform::~ServerlessPlatform() = default;

// ---------------------------------------------------------------------------------------------
// Cluster

void ServerlessPlatform::add_host(int template_index, cluster::Market market) {
  auto h = std::make_unique<cluster::Host>();
  h->index = static_cast<int>(hosts_.size());
  h->name = "host" + std::to_string(h->index);
  h->template_index = template_index;
  h->spec = config_.hosts.at(static_cast<std::size_t>(template_index)).spec;
  h->spec.market = market;
  h->up_since = sim_.now();
  if (topology_) {
    const auto node = topology_->find(h->name);
    if (!node) {
      throw std::invalid_argument("serverless platform: the network has no node \"" + h->name +
                                  "\" for cluster host " + std::to_string(h->index) +
                                  " (add hosts to the topology)");
    }
    h->nic = *node;
  }
  std::vector<int> ids;
  for (std::size_t g = 0; g < h->spec.gpus.size(); ++g) {
    const auto& gs = h->spec.gpus[g];
    h->gpus.push_back(std::make_unique<cluster::GpuDevice>(
        sim_, h->name + "/gpu" + std::to_string(g), catalog_.gpu(gs.type), gs));
    ids.push_back(next_gpu_id_++);
  }
  gpu_ids_.push_back(std::move(ids));
  hosts_.push_back(std::move(h));
  schedule_spot(*hosts_.back());
}

void ServerlessPlatform::schedule_spot(cluster::Host& host) {
  if (host.spec.market != cluster::Market::kSpot || config_.spot.revocations_per_hour <= 0) return;
  const double after_s = spot_rng_.exponential(config_.spot.revocations_per_hour / 3600.0);
  const double notice_s =
      spot_rng_.uniform(config_.spot.notice_min.to_seconds(), config_.spot.notice_max.to_seconds());
  const Time at = sim_.now() + ceil_seconds(after_s);
  const Time notice_at = std::max(at - ceil_seconds(notice_s), sim_.now());
  const int h = host.index;
  sim_.schedule_at(notice_at, [this, h, at] {
    if (hosts_[static_cast<std::size_t>(h)]->revocation_at) return;
    hosts_[static_cast<std::size_t>(h)]->revocation_at = at;
    revocation_notice(h);
  });
}

void ServerlessPlatform::revocation_notice(int h) {
  auto& host = *hosts_.at(static_cast<std::size_t>(h));
  if (host.gone || !host.available) return;
  ++spot_notices_;
  host.available = false;
  schedule_reroute();
  if (!host.revocation_at) {
    // Scheduled revocation: find its time.
    for (const auto& s : config_.spot.scheduled)
      if (s.host == h) host.revocation_at = std::max(s.at, sim_.now());
  }
  // Instances drain: idle and cold-starting ones stop now, busy ones after their batch.
  std::vector<InstanceId> ids;
  for (const auto& [id, inst] : instances_)
    if (inst->loc.host == h) ids.push_back(id);
  for (const auto id : ids)
    if (Inst* i = find(id)) stop(*i);
  const Time at = *host.revocation_at;
  sim_.schedule_at(at, [this, h] { revoke(h); });
}

void ServerlessPlatform::revoke(int h) {
  auto& host = *hosts_.at(static_cast<std::size_t>(h));
  if (host.gone) return;
  host.gone = true;
  host.down_at = sim_.now();
  ++spot_revocations_;
  for (const auto& [id, inst] : instances_) {
    // A batch still running at the revocation: the execution models cannot abort a batch, so
    // it is let finish and counted (none occur when batches are shorter than the notice).
    if (inst->loc.host == h) ++revocation_overruns_;
  }
  host.cache.clear();
}

// ---------------------------------------------------------------------------------------------
// Requests

void ServerlessPlatform::on_arrival(const traces::Arrival& arrival, std::uint64_t request_id) {
  Fn& fn = *fns_.at(arrival.function);
  ++fn.arrivals;
  if (arrival.cls == traces::RequestClass::kStrict) ++fn.strict_arrivals;
  fn.recent.push_back(arrival.time);
  Queue& q = route(*fn.queue, -1);
  if (q.requests.size() >= config_.queue_capacity) {
    auto r = base_record(arrival, request_id);
    r.dispatch = r.start = r.finish = sim_.now();
    r.outcome = metrics::Outcome::kDropped;
    ++dropped_;
    context_.record(r);
    return;
  }
  const auto t = fn.timeout_by_app.find(arrival.application);
  const Time timeout = t == fn.timeout_by_app.end() ? fn.spec.batch_timeout : t->second;
  q.requests.push_back({arrival, request_id, timeout}, {request_id, arrival.time, arrival.cls,
                                                        arrival.application, arrival.slo, timeout});
  ++fn.queued;
  pump(q);
}

std::uint64_t ServerlessPlatform::queued() const {
  std::uint64_t n = 0;
  for (const auto& q : queues_)
    n += q->requests.size();
  for (const Queue* q : node_queues_)
    n += q->requests.size();
  return n;
}

std::uint64_t ServerlessPlatform::requests_in_system() const {
  return queued() + running_requests_;
}

void ServerlessPlatform::pump_all() {
  for (auto& q : queues_)
    if (!q->requests.empty()) pump(*q);
  for (std::size_t k = 0; k < node_queues_.size(); ++k)
    if (!node_queues_[k]->requests.empty()) pump(*node_queues_[k]);
}

// Per-node dispatch. An instance is routable while it is (or will be) able to take a batch on
// an available host; requests routed to a node wait there for that node's instances.
bool ServerlessPlatform::routable(const Inst& inst) const {
  const bool live = inst.state == InstanceState::kColdStarting ||
                    inst.state == InstanceState::kIdle || inst.state == InstanceState::kBusy;
  return live && inst.part <= 0 && hosts_[static_cast<std::size_t>(inst.loc.host)]->available;
}

bool ServerlessPlatform::serves(const Inst& inst, const Queue& q) const {
  if (q.host < 0) return inst.fn->queue == &q;
  return inst.fn->queue == q.cluster && inst.loc.host == q.host;
}

ServerlessPlatform::Queue& ServerlessPlatform::node_queue(Queue& cluster, int host) {
  auto& slot = cluster.nodes[host];
  if (!slot) {
    slot = std::make_unique<Queue>();
    slot->members = cluster.members;
    slot->host = host;
    slot->cluster = &cluster;
    node_queues_.push_back(slot.get());
  }
  return *slot;
}

ServerlessPlatform::Queue& ServerlessPlatform::route(Queue& cluster, int exclude_host) {
  if (config_.dispatch_scope == DispatchScope::kCluster) return cluster;
  // Hosts with a routable instance of the group: instances and busy instances (by host).
  std::map<int, std::pair<int, int>> hosts;
  for (const Fn* f : cluster.members) {
    for (const InstanceId id : f->instances) {
      const auto it = instances_.find(id);
      if (it == instances_.end() || !routable(*it->second)) continue;
      const Inst& i = *it->second;
      if (i.loc.host == exclude_host) continue;
      auto& [n, busy] = hosts[i.loc.host];
      ++n;
      if (i.state == InstanceState::kBusy) ++busy;
    }
  }
  // No node hosts the function yet: the request waits in the cluster queue, which the first
  // instances to become idle drain before their node's queue.
  if (hosts.empty()) return cluster;
  int chosen = hosts.begin()->first;
  if (config_.gateway == GatewayRoute::kRoundRobin) {
    auto it = hosts.begin();
    std::advance(it, static_cast<std::ptrdiff_t>(cluster.next++ % hosts.size()));
    chosen = it->first;
  } else {
    // Least loaded: (queued + running batches) per routable instance; ties to the lower host.
    double best = 0.0;
    bool first = true;
    for (const auto& [h, counts] : hosts) {
      const auto q = cluster.nodes.find(h);
      const double queued =
          q == cluster.nodes.end() ? 0.0 : static_cast<double>(q->second->requests.size());
      const double load = (queued + counts.second) / static_cast<double>(counts.first);
      if (first || load < best) {
        best = load;
        chosen = h;
        first = false;
      }
    }
  }
  return node_queue(cluster, chosen);
}

void ServerlessPlatform::schedule_reroute() {
  if (config_.dispatch_scope == DispatchScope::kCluster || reroute_.pending()) return;
  // Deferred: stop() and terminate() may run inside a unit's callback.
  reroute_ = sim_.schedule_in(Time::zero(), [this] { reroute_stranded(); });
}

void ServerlessPlatform::reroute_stranded() {
  // A node queue whose node no longer has a routable instance of its group would strand its
  // requests: they go back through the gateway, in arrival order.
  std::vector<Queue*> touched;  // in first-touch order, so that pumping is deterministic
  for (std::size_t k = 0; k < node_queues_.size(); ++k) {
    Queue& nq = *node_queues_[k];
    if (nq.requests.empty()) continue;
    bool hosted = false;
    for (const Fn* f : nq.members) {
      for (const InstanceId id : f->instances) {
        const auto it = instances_.find(id);
        hosted = hosted || (it != instances_.end() && routable(*it->second) &&
                            it->second->loc.host == nq.host);
      }
    }
    if (hosted) continue;
    std::vector<std::size_t> all(nq.requests.size());
    for (std::size_t i = 0; i < all.size(); ++i)
      all[i] = i;
    for (Request& r : nq.requests.take(all)) {
      Queue& to = route(*nq.cluster, nq.host);
      const policy::QueuedRequest v{
          r.id, r.arrival.time, r.arrival.cls, r.arrival.application, r.arrival.slo, r.timeout};
      to.requests.push_back(std::move(r), v);
      if (std::find(touched.begin(), touched.end(), &to) == touched.end()) touched.push_back(&to);
    }
  }
  for (Queue* q : touched)
    pump(*q);
}

void ServerlessPlatform::pump(Queue& q) {
  // The batcher sees at most this many of the oldest requests, so that a long backlog does
  // not make every dispatch cost O(queue).
  constexpr std::size_t kBatcherWindow = 4096;
  std::vector<policy::InstanceView> idle;
  std::vector<std::size_t> order;
  std::vector<bool> taken;
  const std::uint32_t fid = q.members.front()->id;
  while (!q.requests.empty()) {
    idle.clear();
    int max_batch = 0;
    for (auto it = q.idle.begin(); it != q.idle.end();) {
      const Inst* i = find(*it);
      if (i == nullptr || i->state != InstanceState::kIdle || i->held) {
        it = q.idle.erase(it);
        continue;
      }
      ++it;
      if (!hosts_[static_cast<std::size_t>(i->loc.host)]->available) continue;
      idle.push_back(view_of(*i));
      max_batch = std::max(max_batch, i->config.max_batch);
    }
    if (idle.empty()) return;
    const std::size_t n = std::min(q.requests.size(), kBatcherWindow);
    const auto qv = q.requests.window(n);
    const policy::BatchQueueView bv{sim_.now(), fid, max_batch, qv};
    auto decision = policies_.batcher->select(bv);
    if (decision.take.empty()) {
      if (decision.retry_at && *decision.retry_at > sim_.now() &&
          (!q.wake.pending() || q.wake_at > *decision.retry_at)) {
        q.wake.cancel();
        q.wake_at = *decision.retry_at;
        Queue* qp = &q;
        q.wake = sim_.schedule_at(q.wake_at, [this, qp] { pump(*qp); });
      }
      return;
    }
    std::optional<policy::PlatformView> pv;
    if (policies_.dispatcher->wants_platform_view()) pv = view();
    const policy::DispatchView dv{sim_.now(), fid, idle, qv, decision.take, pv ? &*pv : nullptr};
    const auto chosen = policies_.dispatcher->choose(dv);
    if (!chosen) return;
    Inst* inst = find(*chosen);
    if (inst == nullptr || !serves(*inst, q) || inst->state != InstanceState::kIdle) {
      ++rejected_["dispatch"];
      return;
    }
    // Validate the batch: indices in range, no repeats, at most the instance's batch size.
    taken.assign(n, false);
    order.clear();
    for (const auto k : decision.take) {
      if (k >= n || taken[k]) {
        throw std::logic_error("batcher returned an invalid or repeated queue index");
      }
      if (order.size() == static_cast<std::size_t>(inst->config.max_batch)) break;
      taken[k] = true;
      order.push_back(k);
    }
    std::vector<Request> batch = q.requests.take(order);
    for (const Request& r : batch) {
      Fn& rf = *fns_[r.arrival.function];
      --rf.queued;
      ++rf.dequeued;
      rf.dequeued_wait_s += (sim_.now() - r.arrival.time).to_seconds();
    }
    run_batch(*inst, std::move(batch));
  }
}

void ServerlessPlatform::run_batch(Inst& inst, std::vector<Request> batch) {
  const Time now = sim_.now();
  inst.timer.cancel();
  inst.state = InstanceState::kBusy;
  inst.state_since = now;
  inst.dispatch = now;
  inst.avail = inst.idle_since;
  inst.batch = std::move(batch);
  inst.batch_serial = next_batch_++;
  running_requests_ += inst.batch.size();
  ++batches_;
  if (inst.pipeline != 0) {
    // With a network: through the stations of its Pipeline (part 0 is empty: the head was idle).
    const std::uint64_t serial = inst.pipeline;
    Pipeline::Station& first = pipelines_.at(serial)->stations.front();
    first.batch = Pipeline::Batch{std::move(inst.batch), now, inst.avail, inst.ready_at,
                                  global_gpu(inst.loc)};
    first.done = false;
    inst.batch.clear();
    pipeline_work(serial, 0);
    return;
  }
  if (inst.pipeline_latency_s > 0) {
    // Flashpoint §4.2.1, eq. 4.3-4.4: a pipelined partitioned replica takes the next request
    // once its bottleneck stage passed this one on (max(E, N) later); this one leaves the
    // last part I later. Transfers between parts take output bytes / host_bandwidth.
    const InstanceId hid = inst.id;
    const Time ready = inst.ready_at;
    const int device = global_gpu(inst.loc);
    sim_.schedule_in(
        ceil_seconds(inst.pipeline_latency_s),
        [this, hid, b = std::move(inst.batch), now, avail = inst.avail, ready, device]() mutable {
          finish_pipelined(hid, std::move(b), now, avail, ready, device);
        });
    inst.batch.clear();
    inst.admit =
        sim_.schedule_in(ceil_seconds(inst.pipeline_interval_s), [this, hid] { head_admits(hid); });
    return;
  }
  if (inst.loc.gpu >= 0) {
    hosts_[static_cast<std::size_t>(inst.loc.host)]
        ->gpus[static_cast<std::size_t>(inst.loc.gpu)]
        ->batch_started(now);
  }
  gpu::BatchJob job;
  job.id = inst.batch_serial;
  job.model = inst.fn->model;
  job.batch = static_cast<int>(inst.batch.size());
  job.sm_cap = inst.config.gpu_share;
  const InstanceId id = inst.id;
  const std::uint64_t serial = inst.batch_serial;
  job.on_complete = [this, id, serial](const gpu::JobResult& r) { finish_batch(id, serial, r); };
  inst.unit->submit(std::move(job));
}

void ServerlessPlatform::finish_batch(InstanceId id, std::uint64_t serial,
                                      const gpu::JobResult& result) {
  Inst* inst = find(id);
  if (inst == nullptr || inst->batch_serial != serial) {
    throw std::logic_error("batch completion for an unknown instance");
  }
  const Time now = sim_.now();
  const auto b = static_cast<std::uint32_t>(inst->batch.size());
  const int device = inst->loc.gpu >= 0 ? global_gpu(inst->loc) : -1;
  for (const Request& q : inst->batch) {
    auto r = base_record(q.arrival, q.id);
    const Time a = q.arrival.time;
    r.dispatch = inst->dispatch;
    r.start = result.started;
    r.finish = result.finished;
    // See docs/policy-authors.md "Latency decomposition".
    r.cold_start_wait = std::max(Time::zero(), std::min(inst->ready_at, inst->dispatch) - a);
    r.batching_wait = inst->dispatch - std::max(a, inst->avail);
    r.execution = r.finish - r.start;
    r.queue_wait = (r.finish - a) - r.cold_start_wait - r.batching_wait - r.execution;
    r.batch_size = b;
    r.device = device;
    r.slice = inst->loc.slice;
    const bool missed = r.has_slo() && r.latency() > r.slo;
    r.outcome = missed ? metrics::Outcome::kSloMiss : metrics::Outcome::kOk;
    ++completed_;
    context_.record(r);
  }
  running_requests_ -= b;
  if (config_.billing) bill(*inst, result);
  if (inst->loc.gpu >= 0) {
    hosts_[static_cast<std::size_t>(inst->loc.host)]
        ->gpus[static_cast<std::size_t>(inst->loc.gpu)]
        ->batch_finished(now);
  }
  inst->batch.clear();
  ++inst->batches;
  inst->state = InstanceState::kIdle;
  inst->state_since = now;
  inst->idle_since = now;
  if (inst->stop_after_batch || !hosts_[static_cast<std::size_t>(inst->loc.host)]->available) {
    terminate(*inst);
    return;
  }
  became_idle(*inst);
}

void ServerlessPlatform::bill(const Inst& inst, const gpu::JobResult& result) {
  const FunctionBilling& p = *config_.billing;
  if (inst.dispatch < p.from) return;
  const bool gpu = inst.loc.gpu >= 0;
  const double d = (result.finished - result.started).to_seconds();
  const double billed = gpu && p.gpu_whole_seconds ? std::ceil(d) : d;
  const FunctionSpec& spec = inst.fn->spec;
  const double cores = spec.billing_cores.value_or(gpu ? 0.0 : inst.config.cpu_cores);
  const double gpu_gb =
      !gpu ? 0.0 : (inst.config.time_slice_gb > 0 ? inst.config.time_slice_gb : inst.device_gb);
  BillingTally& t = billing_[inst.fn->id];
  t.usd += p.per_invocation + billed * (cores * p.vcpu_second +
                                        spec.billing_memory_gb.value_or(0.0) * p.memory_gb_second +
                                        gpu_gb * p.gpu_memory_gb_second);
  t.billed_s += billed;
  t.invocations += 1;
  t.requests += inst.batch.size();
}

// Function billing (bill()) does not cover pipelined batches: partitioned replicas
// (Flashpoint) and per-invocation billing (HarmonyBatch) are not combined by any scheme yet.
void ServerlessPlatform::finish_pipelined(InstanceId /*head*/, std::vector<Request> batch,
                                          Time dispatch, Time avail, Time ready_at, int device) {
  const Time now = sim_.now();
  const auto b = static_cast<std::uint32_t>(batch.size());
  for (const Request& q : batch) {
    auto r = base_record(q.arrival, q.id);
    const Time a = q.arrival.time;
    r.dispatch = r.start = dispatch;
    r.finish = now;
    r.cold_start_wait = std::max(Time::zero(), std::min(ready_at, dispatch) - a);
    r.batching_wait = dispatch - std::max(a, avail);
    r.execution = r.finish - r.start;
    r.queue_wait = (r.finish - a) - r.cold_start_wait - r.batching_wait - r.execution;
    r.batch_size = b;
    r.device = device;
    r.slice = -1;
    const bool missed = r.has_slo() && r.latency() > r.slo;
    r.outcome = missed ? metrics::Outcome::kSloMiss : metrics::Outcome::kOk;
    ++completed_;
    context_.record(r);
  }
  running_requests_ -= b;
}

// The head of a pipelined replica can take the next batch (its first part passed the last on).
void ServerlessPlatform::head_admits(InstanceId hid) {
  Inst* h = find(hid);
  if (h == nullptr) return;
  ++h->batches;
  h->state = InstanceState::kIdle;
  h->state_since = h->idle_since = sim_.now();
  if (h->stop_after_batch || !hosts_[static_cast<std::size_t>(h->loc.host)]->available) {
    terminate(*h);
    return;
  }
  became_idle(*h);
}

void ServerlessPlatform::make_pipeline(Inst& head, const std::vector<int>& cut_after,
                                       const std::vector<policy::Location>& locs) {
  const Fn& fn = *head.fn;
  auto p = std::make_unique<Pipeline>();
  p->head = head.id;
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
  head.pipeline = next_pipeline_++;
  pipelines_.emplace(head.pipeline, std::move(p));
}

void ServerlessPlatform::pipeline_work(std::uint64_t serial, std::size_t s) {
  Pipeline::Station& st = pipelines_.at(serial)->stations[s];
  const auto b = static_cast<double>(st.batch->requests.size());
  if (!st.cut) {
    hosts_[static_cast<std::size_t>(st.host)]
        ->gpus[static_cast<std::size_t>(st.gpu)]
        ->batch_started(sim_.now());
    sim_.schedule_in(ceil_seconds(st.exec_s), [this, serial, s] { pipeline_done(serial, s); });
  } else if (st.src && st.output_bytes > 0) {
    flows_->start(*st.src, *st.dst, b * st.output_bytes,
                  [this, serial, s] { pipeline_done(serial, s); });
  } else {
    sim_.schedule_in(ceil_seconds(b * st.fixed_s), [this, serial, s] { pipeline_done(serial, s); });
  }
}

void ServerlessPlatform::pipeline_done(std::uint64_t serial, std::size_t s) {
  Pipeline::Station& st = pipelines_.at(serial)->stations[s];
  st.done = true;
  if (!st.cut) {
    hosts_[static_cast<std::size_t>(st.host)]
        ->gpus[static_cast<std::size_t>(st.gpu)]
        ->batch_finished(sim_.now());
  }
  pipeline_advance(serial, s);
  const auto it = pipelines_.find(serial);
  if (it != pipelines_.end() && it->second->detached && it->second->empty()) pipelines_.erase(it);
}

// Passes the finished batch of station s on if the next station is empty (the last part
// completes it), then lets the stations before it follow: backpressure up to the head.
void ServerlessPlatform::pipeline_advance(std::uint64_t serial, std::size_t s) {
  Pipeline& p = *pipelines_.at(serial);
  Pipeline::Station& st = p.stations[s];
  if (s + 1 == p.stations.size()) {
    Pipeline::Batch b = std::move(*st.batch);
    st.batch.reset();
    st.done = false;
    finish_pipelined(p.head, std::move(b.requests), b.dispatch, b.avail, b.ready_at, b.device);
  } else {
    Pipeline::Station& next = p.stations[s + 1];
    if (next.batch) return;  // blocked until the next station passes its batch on
    next.batch = std::move(st.batch);
    next.done = false;
    st.batch.reset();
    st.done = false;
    pipeline_work(serial, s + 1);
  }
  if (s == 0) {
    head_admits(p.head);
  } else if (p.stations[s - 1].done) {
    pipeline_advance(serial, s - 1);
  }
}

void ServerlessPlatform::detach_pipeline(Inst& head) {
  if (head.pipeline == 0) return;
  const auto it = pipelines_.find(head.pipeline);
  head.pipeline = 0;
  if (it == pipelines_.end()) return;
  it->second->detached = true;
  if (it->second->empty()) pipelines_.erase(it);
}

bool ServerlessPlatform::start_partitioned(Fn& fn, const policy::InstanceConfig& config,
                                           const policy::PartitionSpec& spec,
                                           policy::PlatformView& pv) {
  const int n = static_cast<int>(fn.layers.size());
  int prev = -1;
  for (const int c : spec.cut_after) {
    if (n == 0 || c <= prev || c > n - 2) {
      ++rejected_["start_invalid"];
      return false;
    }
    prev = c;
  }
  const int parts = static_cast<int>(spec.cut_after.size()) + 1;
  // Each part: its layers' share of bytes and load; the pipeline's E, N and I (Table 4.1).
  std::vector<PartSetup> setup(static_cast<std::size_t>(parts));
  double max_exec = 0.0, max_transfer = 0.0, latency = 0.0;
  int k = 0;
  double share = 0.0, exec = 0.0;
  std::size_t next_cut = 0;
  for (int i = 0; i < n; ++i) {
    const auto& l = fn.layers[static_cast<std::size_t>(i)];
    share += fn.layer_share[static_cast<std::size_t>(i)];
    exec += l.exec_s;
    latency += l.exec_s;
    const bool cut = next_cut < spec.cut_after.size() && spec.cut_after[next_cut] == i;
    if (cut || i == n - 1) {
      auto& ps = setup[static_cast<std::size_t>(k)];
      ps.bytes = fn.bytes * share;
      ps.load_s = fn.model->cold_start->load_s.value * share;
      ps.part = k;
      ps.parts = parts;
      max_exec = std::max(max_exec, exec);
      share = exec = 0.0;
      ++k;
    }
    if (cut) {
      max_transfer = std::max(max_transfer, l.transfer_s);
      latency += l.transfer_s;
      ++next_cut;
    }
  }
  // Place every part first (the view is updated after each), then start them.
  std::vector<policy::Location> locs;
  policy::PlatformView trial = pv;
  for (int p = 0; p < parts; ++p) {
    const policy::FunctionView* fv = trial.function(fn.id);
    auto loc = policies_.placement->place({fv, config}, trial);
    if (!loc || !fits(fn, config, *loc, setup[static_cast<std::size_t>(p)].bytes) ||
        std::find(locs.begin(), locs.end(), *loc) != locs.end()) {
      ++rejected_["start_unplaced"];
      return false;
    }
    locs.push_back(*loc);
    // Mark the GPU taken in the trial view so the next part goes elsewhere.
    auto& g =
        trial.hosts[static_cast<std::size_t>(loc->host)].gpus[static_cast<std::size_t>(loc->gpu)];
    ++g.instances;
    g.memory_free_gb -= fn.device_gb;
    policy::InstanceView iv;
    iv.function = fn.id;
    iv.location = *loc;
    trial.instances.push_back(iv);
  }
  InstanceId head = 0;
  for (int p = 0; p < parts; ++p) {
    auto& ps = setup[static_cast<std::size_t>(p)];
    ps.head = head;
    if (!start_instance(fn, config, locs[static_cast<std::size_t>(p)], pv, false, &ps)) {
      // Cannot happen after fits(); stop what was started.
      if (Inst* h = find(head)) terminate(*h);
      return false;
    }
    const InstanceId id = next_instance_ - 1;
    if (p == 0) {
      head = id;
      Inst& h = *find(id);
      h.parts_waiting = parts;
      h.pipeline_interval_s = std::max(max_exec, max_transfer);
      h.pipeline_latency_s = latency;
      h.batch_latency_s = latency;
      // Model completion (§4.2.5): the rest of the model comes from the replica's other parts
      // at the host-to-host rate, then loads and copies; the smallest part finishes last.
      double least = fn.bytes;
      for (const auto& q : setup)
        least = std::min(least, q.bytes);
      const double rest = fn.bytes - least;
      h.completion_s = spec.complete ? rest * 8.0 / config_.host_bps +
                                           fn.model->cold_start->load_s.value * rest / fn.bytes +
                                           rest * 8.0 / config_.pcie_bps
                                     : -1.0;
    } else {
      find(head)->members.push_back(id);
    }
  }
  if (flows_) make_pipeline(*find(head), spec.cut_after, locs);
  ++applied_["start_partitioned"];
  ++partitioned_by_parts_[parts];
  return true;
}

void ServerlessPlatform::part_ready(Inst& inst) {
  // Every part waits (held) until the whole replica is ready; then only the head serves.
  inst.held = true;
  Inst* head = inst.head == 0 ? &inst : find(inst.head);
  if (head == nullptr) return;
  if (--head->parts_waiting > 0) return;
  head->held = false;
  head->ready_at = head->idle_since = head->state_since = sim_.now();
  const InstanceId hid = head->id;
  if (head->completion_s >= 0) {
    head->timer.cancel();
    sim_.schedule_in(ceil_seconds(head->completion_s), [this, hid] { complete_model(hid); });
  }
  became_idle(*head);
}

void ServerlessPlatform::complete_model(InstanceId hid) {
  Inst* head = find(hid);
  if (head == nullptr || head->part != 0) return;
  // Model completion (§4.2.5): every part now holds the full model and serves on its own.
  std::vector<InstanceId> parts = head->members;
  parts.insert(parts.begin(), hid);
  for (const InstanceId id : parts) {
    Inst* i = find(id);
    if (i == nullptr) continue;
    auto& host = *hosts_[static_cast<std::size_t>(i->loc.host)];
    host.cache.insert(i->fn->spec.model, i->fn->bytes, host.cache_capacity());
    i->head = 0;
    i->part = -1;
    i->parts = 1;
    i->members.clear();
    i->held = false;
    i->pipeline_latency_s = i->pipeline_interval_s = 0.0;
    detach_pipeline(*i);  // batches in flight drain through it
    i->batch_latency_s = i->unit->predict_solo_s(*i->fn->model, i->config.max_batch);
  }
  ++applied_["model_completion"];
  for (const InstanceId id : parts) {
    Inst* i = find(id);
    if (i != nullptr && i->state == InstanceState::kIdle) {
      i->ready_at = std::min(i->ready_at, sim_.now());
      if (id != hid) i->ready_at = i->idle_since = i->state_since = sim_.now();
      became_idle(*i);
    }
  }
}

void ServerlessPlatform::became_idle(Inst& inst) {
  Fn& fn = *inst.fn;
  const InstanceId id = inst.id;
  fn.queue->idle.insert(id);
  pump(*fn.queue);
  if (config_.dispatch_scope == DispatchScope::kNode) {
    // The cluster queue first (requests that arrived before any node hosted the function),
    // then the instance's node queue.
    if (Inst* x = find(id); x != nullptr && x->state == InstanceState::kIdle) {
      Queue& nq = node_queue(*fn.queue, x->loc.host);
      nq.idle.insert(id);
      pump(nq);
    }
  }
  Inst* i = find(id);
  if (i == nullptr || i->state != InstanceState::kIdle) return;
  policy::FunctionView fv;
  fv.id = fn.id;
  fv.name = fn.spec.name;
  fv.model = fn.spec.model;
  fv.profile = fn.model;
  fv.gpu = fn.spec.gpu;
  fv.config = fn.spec.config;
  fv.model_bytes = fn.bytes;
  fv.device_memory_gb = fn.device_gb;
  fv.batch_latency_s = fn.batch_latency_s;
  fv.queue_length = fn.queued;
  fv.arrivals = fn.arrivals;
  const Time timeout = policies_.keep_alive->idle_timeout(view_of(*i), fv);
  if (timeout == Time::max()) return;
  i->timer = sim_.schedule_in(std::max(timeout, Time::zero()), [this, id] {
    if (Inst* x = find(id); x != nullptr && x->state == InstanceState::kIdle) {
      ++applied_["keep_alive_expiry"];
      terminate(*x);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Instances and cold starts

ServerlessPlatform::Inst* ServerlessPlatform::find(InstanceId id) {
  const auto it = instances_.find(id);
  return it == instances_.end() ? nullptr : it->second.get();
}

int ServerlessPlatform::global_gpu(const policy::Location& loc) const {
  return gpu_ids_.at(static_cast<std::size_t>(loc.host)).at(static_cast<std::size_t>(loc.gpu));
}

bool ServerlessPlatform::fits(const Fn& fn, const policy::InstanceConfig& c,
                              const policy::Location& loc, double bytes) const {
  if (loc.host < 0 || static_cast<std::size_t>(loc.host) >= hosts_.size()) return false;
  const auto& h = *hosts_[static_cast<std::size_t>(loc.host)];
  if (!h.available || h.gone) return false;
  if (h.free_bytes() < bytes) return false;
  if (c.max_batch < 1) return false;
  if (!fn.spec.gpu) {
    if (loc.gpu >= 0 || c.cpu_cores <= 0 || c.time_slice_gb > 0 || c.cpu_threads > 0) {
      return false;
    }
    if (c.max_batch > fn.model->cpu->max_batch()) return false;
    return h.spec.cores - h.reserved_cores >= c.cpu_cores;
  }
  if (loc.gpu < 0 || static_cast<std::size_t>(loc.gpu) >= h.gpus.size()) return false;
  if (c.gpu_share <= 0 || c.gpu_share > 1) return false;
  const auto& g = *h.gpus[static_cast<std::size_t>(loc.gpu)];
  if (g.mig() ? (loc.slice < 0 || static_cast<std::size_t>(loc.slice) >= g.places())
              : loc.slice != -1) {
    return false;
  }
  if (!g.place_enabled(loc.slice)) return false;
  // Instances already on this GPU or slice.
  int sliced = 0;
  int others = 0;
  double op_share = 0.0;
  for (const auto& [id, i] : instances_) {
    if (!i->fn->spec.gpu || i->loc != loc) continue;
    ++(i->config.time_slice_gb > 0 ? sliced : others);
    if (i->config.cpu_threads > 0) op_share += i->config.gpu_share;
  }
  if (c.time_slice_gb > 0) {
    // cGPU: co-located time-sliced functions only, each in its own window.
    if (!fn.model->cgpu || g.mig() || c.cpu_threads > 0 || others > 0) return false;
    if (!time_slice_window(fn, loc, c.time_slice_gb)) return false;
  } else {
    if (sliced > 0) return false;
    if (g.sharing() == cluster::GpuSharing::kExclusive && g.instances(loc.slice) > 0) return false;
  }
  if (c.cpu_threads > 0) {
    // INFless: SM shares of operator-profile instances partition the GPU.
    if (!fn.model->operators || op_share + c.gpu_share > 1.0 + 1e-9) return false;
    if (h.spec.cores - h.reserved_cores < c.cpu_threads) return false;
  }
  const double need_gb = c.time_slice_gb > 0 ? c.time_slice_gb : fn.device_gb;
  return g.place_memory_gb(loc.slice) - g.reserved_gb(loc.slice) >= need_gb;
}

std::optional<double> ServerlessPlatform::time_slice_window(const Fn& fn,
                                                            const policy::Location& loc,
                                                            double m_gb) const {
  // Windows in GB units of the cycle [0, M_max): first fit. All time-sliced instances of a GPU
  // must share tau and M_max, or their cycles would not line up.
  const auto& cg = *fn.model->cgpu;
  std::vector<std::pair<double, double>> used;
  for (const auto& [id, i] : instances_) {
    if (i->loc != loc || i->config.time_slice_gb <= 0) continue;
    const auto& other = *i->fn->model->cgpu;
    if (other.tau_s.value != cg.tau_s.value || other.m_max_gb.value != cg.m_max_gb.value) {
      return std::nullopt;
    }
    used.emplace_back(i->window_gb, i->window_gb + i->config.time_slice_gb);
  }
  std::sort(used.begin(), used.end());
  double at = 0.0;
  for (const auto& [from, to] : used) {
    if (from - at >= m_gb - 1e-9) break;
    at = std::max(at, to);
  }
  if (at + m_gb > cg.m_max_gb.value + 1e-9) return std::nullopt;
  return at;
}

bool ServerlessPlatform::start_instance(Fn& fn, const policy::InstanceConfig& config,
                                        const std::optional<policy::Location>& location,
                                        policy::PlatformView& pv, bool warm,
                                        const PartSetup* part) {
  const double bytes = part != nullptr ? part->bytes : fn.bytes;
  std::optional<policy::Location> loc = location;
  if (!loc) {
    const policy::FunctionView* fv = pv.function(fn.id);
    policy::PlacementRequest req{fv, config};
    loc = policies_.placement->place(req, pv);
    if (!loc) {
      ++rejected_["start_unplaced"];
      return false;
    }
  }
  if (!fits(fn, config, *loc, bytes)) {
    ++rejected_["start_invalid"];
    return false;
  }
  auto inst = std::make_unique<Inst>();
  inst->id = next_instance_++;
  inst->fn = &fn;
  inst->config = config;
  inst->loc = *loc;
  inst->created = inst->state_since = sim_.now();
  auto& host = *hosts_[static_cast<std::size_t>(loc->host)];
  // The instance's host memory is reserved for its whole cold start; cached models make room.
  inst->bytes = bytes;
  if (part != nullptr) {
    inst->load_s = part->load_s;
    inst->head = part->head;
    inst->part = part->part;
    inst->parts = part->parts;
  }
  inst->host_bytes = bytes;
  host.reserved_bytes += bytes;
  memory_changed(bytes, 0.0);
  host.cache.shrink_to(host.cache_capacity());
  if (fn.spec.gpu) {
    auto& g = *host.gpus[static_cast<std::size_t>(loc->gpu)];
    const std::string name =
        host.name + "/gpu" + std::to_string(loc->gpu) + "/instance" + std::to_string(inst->id);
    inst->device_gb = config.time_slice_gb > 0 ? config.time_slice_gb : fn.device_gb;
    if (config.time_slice_gb > 0) {
      // HarmonyBatch eq. 3-4: its own window of the GPU's time.
      inst->window_gb = *time_slice_window(fn, *loc, config.time_slice_gb);
      inst->own_unit = std::make_unique<gpu::TimeSlicedUnit>(
          sim_, name, g.type(),
          gpu::TimeSlicedUnit::options_for(*fn.model, config.time_slice_gb,
                                           inst->window_gb * fn.model->cgpu->tau_s.value,
                                           config_.time_slice_mode));
      inst->unit = inst->own_unit.get();
    } else if (config.cpu_threads > 0) {
      // INFless §3.3: threads + SM share, latency from combined operator profiling.
      inst->cores = config.cpu_threads;
      host.reserved_cores += inst->cores;
      inst->own_unit = std::make_unique<gpu::ExclusiveUnit>(
          sim_, name,
          std::make_unique<gpu::OperatorProfileLatency>(
              config.cpu_threads, static_cast<int>(std::lround(100.0 * config.gpu_share))));
      inst->unit = inst->own_unit.get();
    } else {
      inst->unit = &g.unit(loc->slice);
    }
    g.reserve(loc->slice, inst->device_gb);
    memory_changed(0.0, inst->device_gb);
  } else {
    inst->cores = config.cpu_cores;
    host.reserved_cores += config.cpu_cores;
    inst->own_unit = std::make_unique<gpu::ExclusiveUnit>(
        sim_, host.name + "/cpu-instance" + std::to_string(inst->id),
        std::make_unique<gpu::CpuFunctionLatency>(
            config.cpu_cores, config_.cpu_latency,
            config_.cpu_latency == gpu::CpuLatencyMode::kSampled
                ? std::optional<RandomStream>(
                      sim_.rng("cpu-latency", "instance-" + std::to_string(inst->id)))
                : std::nullopt));
    inst->unit = inst->own_unit.get();
  }
  try {
    inst->batch_latency_s = inst->unit->predict_solo_s(*fn.model, config.max_batch);
  } catch (const std::invalid_argument&) {
    // The profile cannot predict this unit (e.g. no RDF for the MIG slice): unknown, 0. The
    // batch itself reports the same error if it ever runs there.
    inst->batch_latency_s = 0.0;
  }
  if (warm && part == nullptr) {
    // StartInstance::warm: ready at once with the model's bytes in its host's memory.
    fn.instances.insert(inst->id);
    Inst& w = *inst;
    instances_.emplace(inst->id, std::move(inst));
    ++applied_["start_warm"];
    release_cold_start_memory(w);
    host.cache.insert(fn.spec.model, fn.bytes, host.cache_capacity());
    w.state = InstanceState::kIdle;
    w.state_since = w.ready_at = w.idle_since = sim_.now();
    pv.hosts = hosts_view();
    became_idle(w);
    return true;
  }
  ColdStartRecord cs;
  cs.instance = inst->id;
  cs.function = fn.id;
  cs.host = loc->host;
  cs.started = sim_.now();
  inst->cold = cold_log_.size();
  cold_log_.push_back(cs);
  fn.instances.insert(inst->id);
  Inst& ref = *inst;
  instances_.emplace(inst->id, std::move(inst));
  ++applied_["start"];
  pv.hosts = hosts_view();
  begin_download(ref);
  return true;
}

void ServerlessPlatform::begin_download(Inst& inst) {
  Fn& fn = *inst.fn;
  auto& host = *hosts_[static_cast<std::size_t>(inst.loc.host)];
  inst.stage = "download";
  inst.stage_since = sim_.now();
  policy::SourcingRequest req;
  req.model = fn.spec.model;
  req.bytes = inst.bytes;
  req.host = host.index;
  req.local_copy = host.cache.contains(fn.spec.model);
  for (const auto& h : hosts_)
    if (h->index != host.index && h->available && h->cache.contains(fn.spec.model))
      req.remote_hosts.push_back(h->index);
  auto choice = policies_.sourcing->choose(req);
  if ((choice.kind == policy::SourceKind::kLocalMemory && !req.local_copy) ||
      (choice.kind == policy::SourceKind::kRemoteHost &&
       std::find(req.remote_hosts.begin(), req.remote_hosts.end(), choice.host) ==
           req.remote_hosts.end()) ||
      (choice.kind == policy::SourceKind::kStore && topology_ && !store_node_)) {
    ++rejected_["sourcing"];
    choice = {policy::SourceKind::kStore, -1};
    if (topology_ && !store_node_) {
      throw std::invalid_argument("serverless platform: the network has no object store");
    }
  }
  cold_log_[inst.cold].source = choice.kind;
  const InstanceId id = inst.id;
  if (choice.kind == policy::SourceKind::kLocalMemory) {
    host.cache.touch(fn.spec.model);
    inst.skip_load = choice.loaded;
    download_done(id);
    return;
  }
  if (choice.chain && inst.part < 0) {  // a part's bytes are not the chain's model
    join_chain(inst, choice);
    return;
  }
  // Without sharing, the transfer's content key is the instance's own, so nothing joins it.
  std::string content =
      choice.share ? fn.spec.model : fn.spec.model + "#instance" + std::to_string(id);
  if (inst.part >= 0) {
    content += "#part" + std::to_string(inst.part) + "/" + std::to_string(inst.parts) + "@" +
               std::to_string(inst.bytes);
  }
  if (transfers_) {
    const net::NodeId src = choice.kind == policy::SourceKind::kStore
                                ? *store_node_
                                : *hosts_[static_cast<std::size_t>(choice.host)]->nic;
    auto f =
        transfers_->fetch(content, src, *host.nic, inst.bytes, [this, id] { download_done(id); });
    inst.transfer = f.request;
    return;
  }
  // Fixed-bandwidth model: a download of the same model to the same host is joined.
  const auto key = std::make_pair(content, host.index);
  auto it = downloads_.find(key);
  if (it == downloads_.end()) {
    auto pd = std::make_unique<PendingDownload>();
    const double bps =
        choice.kind == policy::SourceKind::kStore ? config_.store_bps : config_.host_bps;
    pd->done = sim_.schedule_in(transfer_time(inst.bytes, bps), [this, key] {
      auto node = downloads_.extract(key);
      for (const auto w : node.mapped()->waiters)
        download_done(w);
    });
    it = downloads_.emplace(key, std::move(pd)).first;
  }
  it->second->waiters.push_back(id);
}

void ServerlessPlatform::join_chain(Inst& inst, const policy::SourceChoice& choice) {
  const Fn& fn = *inst.fn;
  const int src = choice.kind == policy::SourceKind::kStore ? -1 : choice.host;
  const auto key = std::make_pair(fn.spec.model, src);
  auto g = gathering_.find(key);
  if (g == gathering_.end()) {
    const std::uint64_t serial = next_chain_++;
    auto c = std::make_unique<Chain>();
    c->key = key;
    c->bytes = fn.bytes;
    chains_.emplace(serial, std::move(c));
    g = gathering_.emplace(key, serial).first;
    // Launched after every cold start that begins at this simulated time has joined.
    sim_.schedule_at(sim_.now(), [this, serial] { launch_chain(serial); });
  }
  Chain& c = *chains_.at(g->second);
  if (c.waiters.find(inst.loc.host) == c.waiters.end()) c.hosts.push_back(inst.loc.host);
  c.waiters[inst.loc.host].push_back(inst.id);
  cold_log_[inst.cold].chained = true;
  ++chained_;
}

void ServerlessPlatform::launch_chain(std::uint64_t serial) {
  const auto it = chains_.find(serial);
  if (it == chains_.end()) return;  // every waiter stopped before the launch
  Chain& c = *it->second;
  gathering_.erase(c.key);
  c.launched = true;
  const auto deliver = [this, serial](std::size_t i) {
    const auto ch = chains_.find(serial);
    if (ch == chains_.end()) return;
    const int h = ch->second->hosts.at(i);
    const auto ids = ch->second->waiters[h];
    ch->second->waiters.erase(h);
    bool left = false;
    for (const auto& [host, w] : ch->second->waiters)
      left = left || !w.empty();
    if (!left) chains_.erase(ch);
    for (const auto id : ids)
      download_done(id);
  };
  if (flows_) {
    const net::NodeId src =
        c.key.second < 0 ? *store_node_ : *hosts_[static_cast<std::size_t>(c.key.second)]->nic;
    std::vector<net::NodeId> receivers;
    for (const int h : c.hosts)
      receivers.push_back(*hosts_[static_cast<std::size_t>(h)]->nic);
    c.flow = flows_->start_chain(src, receivers, c.bytes, deliver);
    return;
  }
  // Without a network: every receiver forwards as it receives, so all of them have the bytes
  // after one transfer time at the source's rate.
  const double bps = c.key.second < 0 ? config_.store_bps : config_.host_bps;
  const std::size_t n = c.hosts.size();
  c.done = sim_.schedule_in(transfer_time(c.bytes, bps), [deliver, n] {
    for (std::size_t i = 0; i < n; ++i)
      deliver(i);
  });
}

void ServerlessPlatform::download_done(InstanceId id) {
  Inst* inst = find(id);
  if (inst == nullptr) return;
  inst->transfer.reset();
  const Time now = sim_.now();
  cold_log_[inst->cold].download = now - inst->stage_since;
  Fn& fn = *inst->fn;
  auto& host = *hosts_[static_cast<std::size_t>(inst->loc.host)];
  // The bytes now sit in host memory; they stay cached in spare memory after the cold start
  // (a part's bytes are not the model: cached only after model completion).
  if (inst->part < 0) host.cache.insert(fn.spec.model, fn.bytes, host.cache_capacity());
  const Time load = inst->skip_load        ? Time::zero()
                    : inst->load_s >= 0    ? ceil_seconds(inst->load_s)
                    : fn.model->cold_start ? ceil_seconds(fn.model->cold_start->load_s.value)
                                           : transfer_time(fn.bytes, config_.load_bps);
  inst->stage = "load";
  inst->stage_since = now;
  inst->timer = sim_.schedule_in(load, [this, id] { load_done(id); });
}

void ServerlessPlatform::load_done(InstanceId id) {
  Inst* inst = find(id);
  if (inst == nullptr) return;
  const Time now = sim_.now();
  cold_log_[inst->cold].load = now - inst->stage_since;
  inst->stage = "copy";
  inst->stage_since = now;
  // CPU functions have no device copy.
  const Time copy =
      inst->fn->spec.gpu ? transfer_time(inst->bytes, config_.pcie_bps) : Time::zero();
  inst->timer = sim_.schedule_in(copy, [this, id] { copy_done(id); });
}

void ServerlessPlatform::copy_done(InstanceId id) {
  Inst* inst = find(id);
  if (inst == nullptr) return;
  const Time now = sim_.now();
  auto& cs = cold_log_[inst->cold];
  cs.copy = now - inst->stage_since;
  cs.completed = true;
  inst->stage.clear();
  release_cold_start_memory(*inst);
  inst->state = InstanceState::kIdle;
  inst->state_since = inst->ready_at = inst->idle_since = now;
  if (inst->stop_after_batch || !hosts_[static_cast<std::size_t>(inst->loc.host)]->available) {
    terminate(*inst);
    return;
  }
  if (inst->part >= 0) {
    part_ready(*inst);
    return;
  }
  became_idle(*inst);
}

void ServerlessPlatform::memory_changed(double host_bytes, double gpu_gb) {
  const double dt = (sim_.now() - memory_since_).to_seconds();
  host_byte_seconds_ += host_reserved_bytes_ * dt;
  gpu_gb_seconds_ += gpu_reserved_gb_ * dt;
  memory_since_ = sim_.now();
  host_reserved_bytes_ += host_bytes;
  gpu_reserved_gb_ += gpu_gb;
}

void ServerlessPlatform::release_cold_start_memory(Inst& inst) {
  if (inst.host_bytes <= 0) return;
  auto& host = *hosts_[static_cast<std::size_t>(inst.loc.host)];
  host.reserved_bytes -= inst.host_bytes;
  memory_changed(-inst.host_bytes, 0.0);
  inst.host_bytes = 0.0;
}

void ServerlessPlatform::stop(Inst& inst) {
  schedule_reroute();
  if (inst.state == InstanceState::kBusy || inst.state == InstanceState::kDraining) {
    inst.state = InstanceState::kDraining;
    inst.stop_after_batch = true;
    return;
  }
  terminate(inst);
}

void ServerlessPlatform::terminate(Inst& inst) {
  const Time now = sim_.now();
  if (inst.part >= 0) {
    // A partitioned replica lives and dies as a whole: the other parts go too.
    std::vector<InstanceId> group;
    const InstanceId hid = inst.part == 0 ? inst.id : inst.head;
    if (Inst* h = find(hid)) {
      group = h->members;
      group.push_back(hid);
      h->members.clear();
    }
    inst.part = -1;
    for (const InstanceId id : group) {
      Inst* g = find(id);
      if (g == nullptr || g == &inst) continue;
      g->part = -1;
      g->members.clear();
      terminate(*g);
    }
  }
  inst.timer.cancel();
  inst.admit.cancel();
  detach_pipeline(inst);
  if (inst.transfer && transfers_) transfers_->cancel(*inst.transfer);
  for (auto it = downloads_.begin(); it != downloads_.end();) {
    auto& w = it->second->waiters;
    w.erase(std::remove(w.begin(), w.end(), inst.id), w.end());
    if (w.empty()) {
      it->second->done.cancel();
      it = downloads_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto it = chains_.begin(); it != chains_.end();) {
    Chain& c = *it->second;
    bool left = false;
    for (auto& [h, w] : c.waiters) {
      w.erase(std::remove(w.begin(), w.end(), inst.id), w.end());
      left = left || !w.empty();
    }
    if (left) {
      ++it;
      continue;
    }
    // Nobody waits any more: stop the chain (a receiver with no instance left still forwards
    // while others wait, so a chain is only cancelled as a whole).
    if (c.flow) flows_->cancel(*c.flow);
    c.done.cancel();
    if (!c.launched) gathering_.erase(c.key);
    it = chains_.erase(it);
  }
  release_cold_start_memory(inst);
  auto& host = *hosts_[static_cast<std::size_t>(inst.loc.host)];
  if (inst.fn->spec.gpu) {
    host.gpus[static_cast<std::size_t>(inst.loc.gpu)]->release(inst.loc.slice, inst.device_gb);
    memory_changed(0.0, -inst.device_gb);
  }
  host.reserved_cores -= inst.cores;
  instance_seconds_ += (now - inst.created).to_seconds();
  if (inst.config.cpu_threads > 0) {
    ++op_instances_ended_;
    op_thread_seconds_ += inst.config.cpu_threads * (now - inst.created).to_seconds();
    op_share_seconds_ += inst.config.gpu_share * (now - inst.created).to_seconds();
  }
  inst.state = InstanceState::kTerminated;
  inst.fn->instances.erase(inst.id);
  schedule_reroute();
  auto node = instances_.extract(inst.id);
  // Freed at the next tick: terminate() may run inside a callback of the instance's own unit.
  graveyard_.push_back(std::move(node.mapped()));
}

// ---------------------------------------------------------------------------------------------
// Control loop

policy::InstanceView ServerlessPlatform::view_of(const Inst& i) const {
  policy::InstanceView v;
  v.id = i.id;
  v.function = i.fn->id;
  v.state = i.state;
  v.config = i.config;
  v.location = i.loc;
  v.created = i.created;
  v.state_since = i.state_since;
  v.batches = i.batches;
  v.batch_latency_s = i.batch_latency_s;
  v.partition = i.part;
  v.partitions = i.parts;
  v.partition_head = i.part > 0 ? i.head : (i.part == 0 ? i.id : 0);
  return v;
}

std::vector<policy::HostView> ServerlessPlatform::hosts_view() const {
  std::vector<policy::HostView> out;
  out.reserve(hosts_.size());
  for (const auto& h : hosts_) {
    policy::HostView hv;
    hv.index = h->index;
    hv.name = h->name;
    hv.host_template = h->template_index;
    hv.market = cluster::to_string(h->spec.market);
    hv.available = h->available && !h->gone;
    hv.revocation_at = h->revocation_at;
    hv.cores = h->spec.cores;
    hv.cores_free = h->spec.cores - h->reserved_cores;
    hv.memory_bytes = h->spec.memory_bytes;
    hv.memory_free_bytes = h->free_bytes();
    hv.cached_models = h->cache.models();
    for (const auto& g : h->gpus) {
      policy::GpuView gv;
      gv.type = g->type().name;
      gv.sharing = cluster::to_string(g->sharing());
      gv.mig = g->mig();
      gv.memory_gb = g->type().memory_gb;
      gv.instances = g->instances();
      if (g->mig()) {
        gv.reconfiguring = g->mig_gpu()->reconfiguring();
        for (std::size_t s = 0; s < g->places(); ++s) {
          const int si = static_cast<int>(s);
          gv.slices.push_back({g->mig_gpu()->slice_profile(s).name, g->place_memory_gb(si),
                               g->place_memory_gb(si) - g->reserved_gb(si), g->instances(si),
                               g->place_enabled(si)});
        }
      } else {
        gv.memory_free_gb = g->type().memory_gb - g->reserved_gb(-1);
      }
      hv.gpus.push_back(std::move(gv));
    }
    out.push_back(std::move(hv));
  }
  return out;
}

policy::PlatformView ServerlessPlatform::view() const {
  policy::PlatformView v;
  const Time now = sim_.now();
  v.now = now;
  v.control_interval = config_.control_interval;
  v.rate_windows = config_.rate_windows;
  v.pending_vms = pending_vms_;
  for (const auto& f : fns_) {
    policy::FunctionView fv;
    fv.id = f->id;
    fv.name = f->spec.name;
    fv.model = f->spec.model;
    fv.profile = f->model;
    fv.gpu = f->spec.gpu;
    fv.config = f->spec.config;
    fv.model_bytes = f->bytes;
    fv.device_memory_gb = f->device_gb;
    fv.batch_latency_s = f->batch_latency_s;
    fv.queue_length = f->queued;
    fv.oldest_wait = Time::zero();
    if (f->queued > 0) {
      // Each queue is in arrival order: the first request of this function in each is that
      // queue's oldest.
      auto oldest_in = [&](const Queue& q) {
        for (const Request& r : q.requests) {
          if (r.arrival.function == f->id) {
            fv.oldest_wait = std::max(fv.oldest_wait, now - r.arrival.time);
            break;
          }
        }
      };
      oldest_in(*f->queue);
      for (const auto& [h, nq] : f->queue->nodes)
        oldest_in(*nq);
    }
    for (const Time w : config_.rate_windows) {
      // Arrivals in (now - w, now], per second of the window.
      const auto first = std::upper_bound(f->recent.begin(), f->recent.end(), now - w);
      fv.arrival_rate.push_back(static_cast<double>(f->recent.end() - first) / w.to_seconds());
    }
    fv.arrivals = f->arrivals;
    fv.strict_arrivals = f->strict_arrivals;
    fv.dequeued = f->dequeued;
    fv.dequeued_wait_s = f->dequeued_wait_s;
    fv.fbr = f->model != nullptr && f->model->gpu && f->model->gpu->fbr ? f->model->gpu->fbr->value
                                                                        : 0.0;
    if (f->model != nullptr && f->model->gpu) fv.rdf = f->model->gpu->rdf;
    fv.layers = f->layers;
    for (const InstanceId id : f->instances) {
      switch (instances_.at(id)->state) {
        case InstanceState::kColdStarting:
          ++fv.cold_starting;
          break;
        case InstanceState::kIdle:
          ++fv.idle;
          break;
        default:
          ++fv.busy;
          break;
      }
    }
    v.functions.push_back(std::move(fv));
  }
  for (const auto& [id, inst] : instances_) {
    v.instances.push_back(view_of(*inst));
    if (inst->state == InstanceState::kColdStarting) {
      v.cold_starts.push_back({id, inst->fn->id, inst->loc.host, inst->stage, inst->created});
    }
  }
  v.hosts = hosts_view();
  return v;
}

void ServerlessPlatform::apply(const policy::Decisions& d) {
  for (const auto& s : d.stop) {
    Inst* i = find(s.id);
    if (i == nullptr) {
      ++rejected_["stop"];
      continue;
    }
    ++applied_["stop"];
    stop(*i);
  }
  for (const auto& r : d.reconfigure) {
    if (r.host < 0 || static_cast<std::size_t>(r.host) >= hosts_.size() || r.gpu < 0 ||
        static_cast<std::size_t>(r.gpu) >= hosts_[static_cast<std::size_t>(r.host)]->gpus.size()) {
      ++rejected_["reconfigure"];
      continue;
    }
    auto& g = *hosts_[static_cast<std::size_t>(r.host)]->gpus[static_cast<std::size_t>(r.gpu)];
    if (!g.mig() || g.instances() > 0) {
      ++rejected_["reconfigure"];
      continue;
    }
    cluster::GpuDevice* gp = &g;
    const auto why = g.mig_gpu()->reconfigure(r.profiles, [this] { pump_all(); });
    if (why) {
      ++rejected_["reconfigure"];
      continue;
    }
    gp->geometry_changed();
    ++applied_["reconfigure"];
  }
  apply_vms(d);
  if (d.start.empty()) return;
  // Built after the stops and reconfigurations, so placement sees the room they freed.
  policy::PlatformView pv = view();
  for (const auto& s : d.start) {
    if (s.function >= fns_.size() || s.count < 0) {
      ++rejected_["start_invalid"];
      continue;
    }
    Fn& fn = *fns_[s.function];
    const auto config = s.config.value_or(fn.spec.config);
    for (int k = 0; k < s.count; ++k) {
      const bool ok = s.partition ? start_partitioned(fn, config, *s.partition, pv)
                                  : start_instance(fn, config, s.location, pv, s.warm);
      if (!ok) break;
    }
  }
}

void ServerlessPlatform::apply_vms(const policy::Decisions& d) {
  for (const auto& r : d.request_vms) {
    if (r.host_template < 0 || static_cast<std::size_t>(r.host_template) >= config_.hosts.size()) {
      ++rejected_["request_vm"];
      continue;
    }
    cluster::Market market = config_.hosts[static_cast<std::size_t>(r.host_template)].spec.market;
    if (!r.market.empty()) market = cluster::parse_market(r.market);
    const std::string name = "host" + std::to_string(hosts_.size() + pending_vms_);
    if (topology_ && !topology_->find(name)) {
      ++rejected_["request_vm"];
      continue;
    }
    ++applied_["request_vm"];
    ++pending_vms_;
    const int t = r.host_template;
    sim_.schedule_in(config_.provisioning_delay, [this, t, market] {
      --pending_vms_;
      ++vms_provisioned_;
      add_host(t, market);
      pump_all();
    });
  }
  for (const auto& r : d.release_vms) {
    if (r.host < 0 || static_cast<std::size_t>(r.host) >= hosts_.size() ||
        hosts_[static_cast<std::size_t>(r.host)]->gone) {
      ++rejected_["release_vm"];
      continue;
    }
    ++applied_["release_vm"];
    auto& h = *hosts_[static_cast<std::size_t>(r.host)];
    h.available = false;
    std::vector<InstanceId> ids;
    for (const auto& [id, inst] : instances_)
      if (inst->loc.host == r.host) ids.push_back(id);
    for (const auto id : ids)
      if (Inst* i = find(id)) stop(*i);
    h.gone = true;
    h.down_at = sim_.now();
    h.cache.clear();
  }
}

void ServerlessPlatform::tick() {
  graveyard_.clear();
  const Time now = sim_.now();
  const Time longest = *std::max_element(config_.rate_windows.begin(), config_.rate_windows.end());
  for (auto& f : fns_)
    while (!f->recent.empty() && f->recent.front() <= now - longest)
      f->recent.pop_front();

  if (!planned_) {
    // The offline plan, once, before the first tick's policies (applied like an
    // autoscaler's decisions, without charging its compute time: it is offline).
    planned_ = true;
    if (policies_.planner) {
      const auto plan = policies_.planner->plan(view());
      if (!plan.empty()) apply(plan);
    }
  }
  policy::PlatformView v = view();
  fragmentation_sum_ += gpu_fragmentation(v).fraction();
  ++fragmentation_samples_;
  sample_operator_fragments(v);
  if (policies_.procurement) {
    auto d = policies_.procurement->decide(v);
    apply_vms(d);
  }
  if (policies_.partitioner) {
    policy::Decisions d;
    d.reconfigure = policies_.partitioner->decide(v);
    if (!d.reconfigure.empty()) apply(d);
  }
  auto d = policies_.autoscaler->decide(v);
  desired_instances_ = desired_after(d);
  if (config_.charge_decision_time && d.compute_time > Time::zero()) {
    sim_.schedule_in(d.compute_time, [this, d] { apply(d); });
  } else if (!d.empty()) {
    apply(d);
  }
  policy::Decisions warm;
  warm.start = policies_.keep_alive->prewarm(view());
  if (!warm.start.empty()) apply(warm);
  // A dispatcher may have held a batch; offer the queues again once per tick.
  pump_all();
  sim_.schedule_in(config_.control_interval, [this] { tick(); });
}

double ServerlessPlatform::desired_after(const policy::Decisions& d) const {
  // Flashpoint Fig. 3.2b's "desired" replicas: what the autoscaler asks for, whether or not
  // the cluster can place it yet. Counted in instances (a partitioned replica: its parts), like
  // the reserved and deployed columns.
  double n = 0;
  for (const auto& [id, i] : instances_)
    if (i->state != InstanceState::kDraining && !i->stop_after_batch) ++n;
  for (const auto& s : d.start) {
    const auto parts = s.partition ? s.partition->cut_after.size() + 1 : std::size_t{1};
    n += static_cast<double>(s.count) * static_cast<double>(parts);
  }
  for (const auto& s : d.stop) {
    const auto it = instances_.find(s.id);
    if (it == instances_.end()) continue;
    const Inst& i = *it->second;
    if (i.state == InstanceState::kDraining || i.stop_after_batch) continue;
    n -= 1.0 + static_cast<double>(i.part == 0 ? i.members.size() : 0);
  }
  return std::max(n, 0.0);
}

// ---------------------------------------------------------------------------------------------
// Outputs

void ServerlessPlatform::add_timeseries_columns(metrics::TimeSeriesRecorder& recorder) {
  recorder.add_column("queue_length", [this] { return static_cast<double>(queued()); });
  const auto count = [this](InstanceState s) {
    double n = 0;
    for (const auto& [id, i] : instances_)
      if (i->state == s) ++n;
    return n;
  };
  recorder.add_column("instances_cold_starting",
                      [count] { return count(InstanceState::kColdStarting); });
  recorder.add_column("instances_idle", [count] { return count(InstanceState::kIdle); });
  recorder.add_column("instances_busy", [count] {
    return count(InstanceState::kBusy) + count(InstanceState::kDraining);
  });
  recorder.add_column("running_requests",
                      [this] { return static_cast<double>(running_requests_); });
  recorder.add_column("instances_desired", [this] { return desired_instances_; });
}

json ServerlessPlatform::summary_extra(Time end) const {
  Time busy;
  std::size_t gpus = 0;
  double gpu_capacity_s = 0.0;
  double host_memory_capacity = 0.0;  // byte-seconds
  double gpu_memory_capacity = 0.0;   // GB-seconds
  for (const auto& h : hosts_) {
    const Time until = h->down_at ? *h->down_at : end;
    const double life_s = until > h->up_since ? (until - h->up_since).to_seconds() : 0.0;
    host_memory_capacity += h->spec.memory_bytes * life_s;
    for (const auto& g : h->gpus) {
      busy += g->busy_time(end);
      ++gpus;
      gpu_capacity_s += life_s;
      gpu_memory_capacity += g->type().memory_gb * life_s;
    }
  }
  // Reservations integrated up to `end`.
  const double tail_s = end > memory_since_ ? (end - memory_since_).to_seconds() : 0.0;
  const double host_used = host_byte_seconds_ + host_reserved_bytes_ * tail_s;
  const double gpu_used = gpu_gb_seconds_ + gpu_reserved_gb_ * tail_s;
  const auto frag_end = gpu_fragmentation(view());
  double inst_s = instance_seconds_;
  for (const auto& [id, i] : instances_)
    inst_s += (end - i->created).to_seconds();
  std::uint64_t op_instances = op_instances_ended_;
  double op_threads = op_thread_seconds_;
  double op_shares = op_share_seconds_;
  for (const auto& [id, i] : instances_) {
    if (i->config.cpu_threads <= 0) continue;
    ++op_instances;
    op_threads += i->config.cpu_threads * (end - i->created).to_seconds();
    op_shares += i->config.gpu_share * (end - i->created).to_seconds();
  }

  std::uint64_t completed = 0;
  double dl = 0, ld = 0, cp = 0;
  std::map<std::string, std::uint64_t> sources;
  for (const auto& c : cold_log_) {
    ++sources[policy::to_string(c.source)];
    if (!c.completed) continue;
    ++completed;
    dl += c.download.to_seconds();
    ld += c.load.to_seconds();
    cp += c.copy.to_seconds();
  }
  const auto mean = [completed](double s) {
    return completed > 0 ? json(s / static_cast<double>(completed)) : json(nullptr);
  };
  double on_demand = 0, spot = 0, owned = 0;
  for (const auto& h : hosts_) {
    const double c = h->cost_usd(end);
    switch (h->spec.market) {
      case cluster::Market::kOnDemand:
        on_demand += c;
        break;
      case cluster::Market::kSpot:
        spot += c;
        break;
      case cluster::Market::kOwned:
        owned += c;
        break;
    }
  }
  json applied = json::object(), rejected = json::object();
  for (const auto& [k, n] : applied_)
    applied[k] = n;
  for (const auto& [k, n] : rejected_)
    rejected[k] = n;
  json out{
      {"gpu_utilisation", gpu_capacity_s > 0 ? busy.to_seconds() / gpu_capacity_s : 0.0},
      {"gpu_busy_seconds", busy.to_seconds()},
      {"gpus", gpus},
      {"memory_utilisation",
       {{"host", host_memory_capacity > 0 ? host_used / host_memory_capacity : 0.0},
        {"gpu", gpu_memory_capacity > 0 ? gpu_used / gpu_memory_capacity : 0.0}}},
      {"fragmentation",
       {{"gpu_memory_end", frag_end.fraction()},
        {"gpu_memory_free_gb_end", frag_end.free_gb},
        {"gpu_memory_stranded_gb_end", frag_end.stranded_gb},
        {"gpu_memory_mean", fragmentation_samples_ > 0
                                ? fragmentation_sum_ / static_cast<double>(fragmentation_samples_)
                                : 0.0}}},
      {"hosts", hosts_.size()},
      {"batches", batches_},
      {"instance_seconds", inst_s},
      {"instances_started", cold_log_.size()},
      {"cold_starts",
       {{"count", cold_log_.size()},
        {"completed", completed},
        {"by_stage", {{"download_s", mean(dl)}, {"load_s", mean(ld)}, {"copy_s", mean(cp)}}},
        {"total_s", mean(dl + ld + cp)},
        {"sources", sources},
        {"chained", chained_}}},
      {"cost_usd",
       {{"on_demand", on_demand},
        {"spot", spot},
        {"owned", owned},
        {"total", on_demand + spot + owned}}},
      {"decisions", {{"applied", applied}, {"rejected", rejected}}},
      {"spot",
       {{"notices", spot_notices_},
        {"revocations", spot_revocations_},
        {"batches_running_at_revocation", revocation_overruns_},
        {"vms_provisioned", vms_provisioned_}}},
      {"requests_dropped_at_gateway", dropped_}};
  if (config_.billing) {
    BillingTally all;
    double cpu_usd = 0.0;
    double gpu_usd = 0.0;
    json per_function = json::object();
    for (const auto& [id, t] : billing_) {
      const Fn& fn = *fns_[id];
      all.usd += t.usd;
      all.billed_s += t.billed_s;
      all.invocations += t.invocations;
      all.requests += t.requests;
      (fn.spec.gpu ? gpu_usd : cpu_usd) += t.usd;
      per_function[fn.spec.name] = {
          {"usd", t.usd},
          {"invocations", t.invocations},
          {"requests", t.requests},
          {"usd_per_request", t.requests > 0 ? t.usd / static_cast<double>(t.requests) : 0.0}};
    }
    out["function_billing"] = {
        {"total_usd", all.usd},
        {"cpu_usd", cpu_usd},
        {"gpu_usd", gpu_usd},
        {"billed_seconds", all.billed_s},
        {"invocations", all.invocations},
        {"requests", all.requests},
        {"usd_per_request", all.requests > 0 ? all.usd / static_cast<double>(all.requests) : 0.0},
        {"from_s", config_.billing->from.to_seconds()},
        {"per_function", per_function}};
  }
  if (!partitioned_by_parts_.empty()) {
    // Flashpoint Fig. 8.10: how many parts the partitioned replicas of the run were cut into.
    json by_parts = json::object();
    std::uint64_t started = 0;
    for (const auto& [parts, n] : partitioned_by_parts_) {
      by_parts[std::to_string(parts)] = n;
      started += n;
    }
    out["partitioned_replicas"] = {{"started", started}, {"by_parts", by_parts}};
  }
  if (auto stats = policies_.autoscaler->statistics(); !stats.is_null()) {
    out["autoscaler"] = std::move(stats);  // e.g. Flashpoint Fig. 6.2 / 8.10 per scale-up
  }
  if (op_instances > 0) {
    const auto per_sample = [&](double sum) {
      return op_samples_ > 0 ? sum / static_cast<double>(op_samples_) : 0.0;
    };
    out["operator_instances"] = {{"instances", op_instances},
                                 {"cpu_thread_seconds", op_threads},
                                 {"gpu_share_seconds", op_shares},
                                 {"free_cpu_fraction_mean", per_sample(op_free_cpu_sum_)},
                                 {"free_gpu_fraction_mean", per_sample(op_free_gpu_sum_)}};
  }
  return out;
}

void ServerlessPlatform::sample_operator_fragments(const policy::PlatformView& v) {
  // Over the available servers that hold an operator-profile instance: the share of their
  // CPU threads and of their GPUs' SMs that no instance holds (INFless Fig. 17b).
  std::vector<double> share_used;
  std::vector<int> first_gpu(v.hosts.size() + 1, 0);
  for (std::size_t h = 0; h < v.hosts.size(); ++h)
    first_gpu[h + 1] = first_gpu[h] + static_cast<int>(v.hosts[h].gpus.size());
  share_used.assign(static_cast<std::size_t>(first_gpu.back()), 0.0);
  std::vector<bool> active(v.hosts.size(), false);
  for (const auto& i : v.instances) {
    if (i.config.cpu_threads <= 0 || i.location.host < 0 || i.location.gpu < 0) continue;
    const auto h = static_cast<std::size_t>(i.location.host);
    active[h] = true;
    share_used[static_cast<std::size_t>(first_gpu[h] + i.location.gpu)] += i.config.gpu_share;
  }
  double cores = 0.0, cores_free = 0.0, gpus = 0.0, gpu_free = 0.0;
  for (std::size_t h = 0; h < v.hosts.size(); ++h) {
    if (!active[h] || !v.hosts[h].available) continue;
    cores += v.hosts[h].cores;
    cores_free += v.hosts[h].cores_free;
    for (std::size_t g = 0; g < v.hosts[h].gpus.size(); ++g) {
      gpus += 1.0;
      gpu_free += std::max(0.0, 1.0 - share_used[static_cast<std::size_t>(first_gpu[h]) + g]);
    }
  }
  if (cores <= 0.0 && gpus <= 0.0) return;
  op_free_cpu_sum_ += cores > 0 ? cores_free / cores : 0.0;
  op_free_gpu_sum_ += gpus > 0 ? gpu_free / gpus : 0.0;
  ++op_samples_;
}

}  // namespace sim::platform
