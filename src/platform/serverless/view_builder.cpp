#include "view_builder.hpp"

#include <algorithm>

namespace sim::platform::serverless {

void fill_instance_view(policy::InstanceView& v, const Inst& i) {
  v.id = i.id;
  v.function = i.fn->id;
  v.state = i.life.state();
  v.config = i.config;
  v.location = i.loc;
  v.created = i.life.created();
  v.state_since = i.life.state_since();
  v.batches = i.batches;
  v.batch_latency_s = i.batch_latency_s;
  v.partition = i.part();
  v.partitions = i.replica ? i.replica->parts : 1;
  v.partition_head = !i.replica ? 0 : (i.replica->part > 0 ? i.replica->head : i.id);
}

policy::InstanceView instance_view(const Inst& i) {
  policy::InstanceView v;
  fill_instance_view(v, i);
  return v;
}

namespace {

// Sets every field of `hv` from `h`, reusing hv's strings and vectors (so that refreshing a
// view allocates almost nothing). Every field is written, also those a fresh view leaves at
// their defaults, so the result equals a freshly built view.
void fill_host_view(policy::HostView& hv, const cluster::Host& h) {
  hv.index = h.index;
  hv.name = h.name;
  hv.host_template = h.template_index;
  hv.market = h.spec.market;
  hv.available = h.available && !h.gone;
  hv.revocation_at = h.revocation_at;
  hv.cores = h.spec.cores;
  hv.cores_free = h.spec.cores - h.reserved_cores;
  hv.memory_bytes = h.spec.memory_bytes;
  hv.memory_free_bytes = h.free_bytes();
  h.cache.models(hv.cached_models);
  hv.gpus.resize(h.gpus.size());
  for (std::size_t k = 0; k < h.gpus.size(); ++k) {
    const auto& g = *h.gpus[k];
    policy::GpuView& gv = hv.gpus[k];
    gv.type = g.type().name;
    gv.sharing = g.sharing();
    gv.mig = g.mig();
    gv.memory_gb = g.type().memory_gb;
    gv.instances = g.instances();
    if (g.mig()) {
      gv.reconfiguring = g.mig_gpu()->reconfiguring();
      gv.memory_free_gb = 0.0;
      gv.resident_gb = gv.activations_gb = gv.activation_room_gb = 0.0;
      // Each slice's view rewritten in place (its profile name's storage reused).
      gv.slices.resize(g.places());
      for (std::size_t s = 0; s < g.places(); ++s) {
        const auto f = g.place_figures(static_cast<int>(s));
        policy::SliceView& sv = gv.slices[s];
        sv.profile = g.mig_gpu()->slice_profile(s).name;
        sv.memory_gb = f.memory_gb;
        sv.memory_free_gb = f.memory_gb - f.reserved_gb;
        sv.instances = f.instances;
        sv.enabled = f.enabled;
        sv.resident_gb = f.reserved_gb - f.held_gb;
        sv.activations_gb = f.held_gb;
        sv.activation_room_gb = f.activation_room_gb;
      }
    } else {
      gv.slices.clear();
      const auto f = g.place_figures(-1);
      gv.reconfiguring = false;
      gv.memory_free_gb = g.type().memory_gb - f.reserved_gb;
      gv.resident_gb = f.reserved_gb - f.held_gb;
      gv.activations_gb = f.held_gb;
      gv.activation_room_gb = f.activation_room_gb;
    }
  }
}

}  // namespace

std::vector<policy::HostView> hosts_view(const Hosts& hosts) {
  std::vector<policy::HostView> out;
  refresh_hosts_view(out, hosts);
  return out;
}

void refresh_hosts_view(std::vector<policy::HostView>& views, const Hosts& hosts) {
  views.resize(hosts.size());
  for (std::size_t k = 0; k < hosts.size(); ++k)
    fill_host_view(views[k], *hosts[k]);
}

void refresh_host_view(std::vector<policy::HostView>& views, const Hosts& hosts, int host) {
  const auto k = static_cast<std::size_t>(host);
  fill_host_view(views.at(k), *hosts.at(k));
}

namespace {

// Arrivals in (now - w, now], per second of each window w. Each window's first arrival in that
// range is where the last call found it, moved forward past the arrivals that have left the
// window since (recent is in arrival order; views come at non-decreasing times): amortised
// O(1) per window, where a binary search of `recent` per call was a twentieth of a run's time
// once the keep-alive's view got rates. An earlier `now` (only a test builds one) or a new set
// of windows starts again from the front.
void arrival_rates(const Fn& f, Time now, const std::vector<Time>& windows,
                   std::vector<double>& out) {
  const std::uint64_t first = f.recent_dropped;
  const std::uint64_t end = first + f.recent.size();
  if (f.window_start.size() != windows.size() || now < f.window_start_at)
    f.window_start.assign(windows.size(), first);
  f.window_start_at = now;
  out.clear();
  out.reserve(windows.size());
  for (std::size_t k = 0; k < windows.size(); ++k) {
    std::uint64_t& s = f.window_start[k];
    s = std::max(s, first);
    const Time open_end = now - windows[k];
    while (s < end && f.recent[static_cast<std::size_t>(s - first)] <= open_end)
      ++s;
    out.push_back(static_cast<double>(end - s) / windows[k].to_seconds());
  }
}

}  // namespace

policy::FunctionView function_view(const Fn& f, Time now, const std::vector<Time>& rate_windows) {
  policy::FunctionView fv;
  fv.id = f.id;
  fv.name = f.spec.name;
  fv.model = f.spec.model;
  fv.profile = f.model;
  fv.gpu = f.spec.gpu;
  fv.config = f.spec.config;
  fv.model_bytes = f.bytes;
  fv.device_memory_gb = f.device_gb;
  fv.resident_gb = f.resident_gb;
  fv.activation_gb = f.activation_gb;
  fv.batch_latency_s = f.batch_latency_s;
  fv.fbr = f.model != nullptr && f.model->gpu && f.model->gpu->fbr ? f.model->gpu->fbr->value : 0.0;
  if (f.model != nullptr && f.model->gpu) fv.rdf = f.model->gpu->rdf;
  fv.layers = f.layers;
  refresh_function_view(fv, f, now, rate_windows);
  return fv;
}

void refresh_function_view(policy::FunctionView& fv, const Fn& f, Time now,
                           const std::vector<Time>& rate_windows) {
  fv.queue_length = f.queued;
  fv.node_queues.clear();
  fv.arrivals = f.arrivals;
  fv.oldest_wait = Time::zero();
  if (f.queued > 0) {
    for (const auto& [h, nq] : f.queue->nodes) {
      if (nq->requests.empty()) continue;
      std::size_t n = nq->requests.size();
      if (nq->members.size() > 1) {
        // A queue group's node queue holds its members' requests: count this function's.
        n = 0;
        for (const Request& r : nq->requests)
          if (r.arrival.function == f.id) ++n;
      }
      if (n > 0) fv.node_queues.emplace_back(h, n);
    }
    // Each queue is in arrival order: the first request of this function in each is that
    // queue's oldest.
    auto oldest_in = [&](const Queue& q) {
      for (const Request& r : q.requests) {
        if (r.arrival.function == f.id) {
          fv.oldest_wait = std::max(fv.oldest_wait, now - r.arrival.time);
          break;
        }
      }
    };
    oldest_in(*f.queue);
    for (const auto& [h, nq] : f.queue->nodes)
      oldest_in(*nq);
    for (const auto& [id, iq] : f.queue->replicas)
      oldest_in(*iq);
  }
  arrival_rates(f, now, rate_windows, fv.arrival_rate);
  fv.strict_arrivals = f.strict_arrivals;
  fv.dequeued = f.dequeued;
  fv.dequeued_wait_s = f.dequeued_wait_s;
  // Lifecycle keeps the counts; no pass over the instances.
  fv.cold_starting = f.states[InstanceState::kColdStarting];
  fv.idle = f.states[InstanceState::kIdle];
  fv.busy = f.states[InstanceState::kBusy] + f.states[InstanceState::kDraining];
}

policy::PlatformView build_view(const ViewInputs& in) {
  policy::PlatformView v;
  refresh_view(v, in);
  return v;
}

void refresh_view(policy::PlatformView& v, const ViewInputs& in) {
  const Time now = in.now;
  v.now = now;
  v.control_interval = in.control_interval;
  v.rate_windows = in.rate_windows;
  v.pending_vms = in.pending_vms;
  // A function's view changes during a run only where refresh_function_view rewrites it (the
  // function table is fixed once the run starts); any other set of functions is built anew.
  bool same_functions = v.functions.size() == in.functions.size();
  for (std::size_t k = 0; same_functions && k < in.functions.size(); ++k)
    same_functions = v.functions[k].id == in.functions[k]->id;
  if (same_functions) {
    for (std::size_t k = 0; k < in.functions.size(); ++k)
      refresh_function_view(v.functions[k], *in.functions[k], now, in.rate_windows);
  } else {
    v.functions.clear();
    v.functions.reserve(in.functions.size());
    for (const auto& f : in.functions)
      v.functions.push_back(function_view(*f, now, in.rate_windows));
  }
  refresh_hosts_view(v.hosts, in.hosts);
  v.cold_starts.clear();
  if (in.changed != nullptr) {
    // Only these instances' views can differ; each found by id (the views are by ascending id).
    bool found = true;
    for (const Inst* inst : *in.changed) {
      const auto it = std::lower_bound(
          v.instances.begin(), v.instances.end(), inst->id,
          [](const policy::InstanceView& iv, InstanceId id) { return iv.id < id; });
      if (it == v.instances.end() || it->id != inst->id) {
        found = false;
        break;
      }
      fill_instance_view(*it, *inst);
    }
    if (found) return;
  }
  // The instances' views are rewritten in place (every field set), not built on the stack
  // and copied.
  std::size_t n = 0;
  auto add = [&v, &n](const Inst& inst) {
    if (n == v.instances.size()) v.instances.emplace_back();
    fill_instance_view(v.instances[n++], inst);
    if (inst.life.state() == InstanceState::kColdStarting) {
      v.cold_starts.push_back({inst.id, inst.fn->id, inst.loc.host,
                               inst.boot ? inst.boot->stage : policy::ColdStartStage::kNone,
                               inst.life.created()});
    }
  };
  // Both walks visit the instances in ascending id order.
  if (in.by_id != nullptr && in.by_id->size() <= 2 * in.instances.size() + 64) {
    for (const Inst* inst : *in.by_id)
      if (inst != nullptr) add(*inst);
  } else {
    for (const auto& [id, inst] : in.instances)
      add(*inst);
  }
  v.instances.resize(n);
}

}  // namespace sim::platform::serverless
