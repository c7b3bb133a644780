#include "control_plane.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "billing.hpp"
#include "cold_start_stats.hpp"
#include "event_log.hpp"
#include "feasibility.hpp"
#include "function_table.hpp"
#include "operator_stats.hpp"
#include "records.hpp"
#include "replica_stats.hpp"
#include "sim/network/topology_config.hpp"
#include "view_builder.hpp"

namespace sim::platform::serverless {

using nlohmann::json;

ControlPlane::ControlPlane(ServerlessConfig config, const gpu::ModelCatalog& catalog,
                           PlatformContext context, Policies policies)
    : config_(std::move(config)),
      catalog_(catalog),
      context_(std::move(context)),
      policies_(std::move(policies)),
      sim_(*context_.sim),
      accounting_(stats_.add<Accounting>()),
      desired_(stats_.add<DesiredInstances>()) {
  if (config_.billing) stats_.add<Billing>(*config_.billing);
  stats_.add<OperatorStats>();        // writes its block only when operator-profile instances ran
  stats_.add<ColdStartFigures>();     // cold starts by source (cold_start_stats.hpp)
  stats_.add<PartitionedReplicas>();  // writes its block only when a partitioned replica started
  if (context_.events && context_.event_level != metrics::EventLevel::kNone) {
    stats_.add<EventLog>(context_.events, context_.event_level);  // output.events
  }
  if (!policies_.batcher || !policies_.dispatcher || !policies_.autoscaler ||
      !policies_.placement || !policies_.keep_alive || !policies_.sourcing) {
    throw std::invalid_argument(
        "serverless platform: batcher, dispatcher, autoscaler, placement, keep_alive and "
        "cold_start_sourcing policies are required");
  }
  if (config_.control_interval <= Time::zero()) {
    throw std::invalid_argument("serverless platform: control_interval must be > 0");
  }
  if (config_.rate_windows.empty()) {
    // The schema rejects an empty list (/platform/rate_windows); a hand-built config must not
    // run on a window nobody chose.
    throw std::invalid_argument(
        "serverless platform: rate_windows (/platform/rate_windows) must list at least one "
        "window");
  }
  for (const Time w : config_.rate_windows) {
    if (w <= Time::zero()) {
      // A rate is arrivals per second of its window: a zero-length window divides by zero.
      throw std::invalid_argument(
          "serverless platform: rate_windows (/platform/rate_windows) must be longer than zero");
    }
  }
  if (config_.container_memory == ContainerMemory::kWeightsResident) {
    accounting_.report_activations();
  }
  if (config_.evict_idle == EvictIdle::kLeastRecentlyUsed) accounting_.report_evictions();

  ColdStartNetwork network;
  if (config_.network) {
    topology_ = std::make_unique<net::Topology>(net::build_topology(*config_.network));
    flows_ = std::make_unique<net::FlowNetwork>(sim_, *topology_);
    transfers_ = std::make_unique<net::TransferManager>(*flows_);
    const auto stores = topology_->nodes_of_kind(net::NodeKind::kStore);
    if (!stores.empty()) network.store = stores.front();
    network.flows = flows_.get();
    network.transfers = transfers_.get();
    network.topology = true;
  }
  FleetEvents& events = *this;
  fleet_ = std::make_unique<Fleet>(config_, catalog_, sim_, topology_.get(), counts_, events);
  cold_ = std::make_unique<ColdStarts>(config_, sim_, network, fleet_->hosts(), instances_,
                                       *policies_.sourcing, counts_,
                                       [this](Inst& inst) { cold_start_ready(inst); });
  BatchEvents& batch_events = *this;
  pipelines_ = std::make_unique<Pipelines>(sim_, fleet_->hosts(), flows_.get(), batch_events);

  auto table = build_function_table(config_, catalog_, sim_, context_.labels);
  fns_ = std::move(table.functions);
  for (auto& fn : fns_) {
    const MemoryCharge charge = memory_charge(*fn, fn->spec.config, config_.container_memory);
    fn->resident_gb = charge.resident_gb;
    fn->activation_gb = charge.activation_gb;
  }
  queues_ = std::move(table.queues);
  for (const auto& fn : fns_)
    keep_alive_views_.push_back(function_view(*fn, sim_.now(), config_.rate_windows));
  fleet_->build();
  // Idle sets (idle_sets.cpp) where dispatchability has few causes: an instance in one queue,
  // no activation memory. The dispatcher offers them for all queues or for none.
  if (config_.dispatch_scope == DispatchScope::kCluster &&
      config_.container_memory != ContainerMemory::kWeightsResident &&
      !policies_.dispatcher->wants_platform_view()) {
    for (auto& q : queues_) {
      auto set = policies_.dispatcher->idle_set();
      if (!set) break;
      q->dispatchable.emplace(Queue::Dispatchable{});  // not emplace(): clang 14 rejects it (NSDMI)
      q->dispatchable->set = std::move(set);
    }
  }
  sim_.schedule_at(sim_.now(), [this] { tick(); });
}

ControlPlane::~ControlPlane() = default;

// ---------------------------------------------------------------------------------------------
// What the fleet reports

void ControlPlane::revocation_notice(int host) {
  stats_.host_event(host, sim_.now(), "revocation_notice", {});
  dispatchability_changed();  // the host is no longer available
  schedule_reroute();
  stop_on_host(host);
}

FleetEvents::RevokedWork ControlPlane::revoked(int host) {
  stats_.host_event(host, sim_.now(), "revoked", {});
  // The drain has already stopped every instance of the host that was not running a batch:
  // those left are running one.
  RevokedWork work;
  std::vector<Inst*> busy;
  for (const auto& [id, inst] : instances_)
    if (inst->loc.host == host) busy.push_back(inst.get());
  work.batches = busy.size();
  if (config_.spot.revoked_batches == SpotRevokedBatches::kFinish) return work;
  for (Inst* inst : busy)
    work.requests += cut_batch(*inst);
  return work;
}

std::uint64_t ControlPlane::cut_batch(Inst& inst) {
  // Only a batch on the instance's own execution unit: a pipelined replica's batch is held by
  // its Pipelines and runs to its end (Protean has none).
  const auto state = inst.life.state();
  if (inst.pipeline != 0 || inst.pipeline_latency_s > 0 ||
      (state != InstanceState::kBusy && state != InstanceState::kDraining)) {
    return 0;
  }
  // Taken from the instance: UnitRunner's completion then reports an empty batch.
  std::vector<Request> lost;
  if (inst.held_count > 0) {
    lost.assign(inst.held_requests.begin(), inst.held_requests.begin() + inst.held_count);
    inst.held_count = 0;
  } else {
    lost = std::move(inst.running);
    inst.running.clear();
  }
  const std::uint64_t n = lost.size();
  running_requests_ -= n;
  const Time now = sim_.now();
  // The batch ends here with its VM: its GPU is idle from now (busy time, utilisation), its
  // activations are freed, and it is not a batch that ran (summary `batches`, the instance's
  // count, batch statistics). The unit's completion, when the execution model would have
  // finished it, only frees the instance (batch_finished).
  inst.batch_cut = true;
  --batches_;
  if (inst.gpu != nullptr) inst.gpu->batch_finished(now);
  release_activations(inst);
  if (config_.spot.revoked_batches == SpotRevokedBatches::kDrop) {
    // The VM and the work on it are gone (Protean §4.5 expects the remaining requests to
    // "finish before the eviction"; one that has not is lost).
    // Not a gateway drop (requests_dropped_at_gateway): spot.requests_cut_at_revocation.
    for (const Request& r : lost)
      context_.record(dropped_record(r.arrival, r.id, now));
    return n;
  }
  std::vector<Queue*> touched;  // in first-touch order, so that pumping is deterministic
  for (Request& r : lost) {
    Fn& fn = *fns_[r.arrival.function];
    Queue& to = route(*fn.queue, -1);  // the revoked host is no longer available
    const policy::QueuedRequest v{
        r.id, r.arrival.time, r.arrival.cls, r.arrival.application, r.arrival.slo, r.timeout};
    requeued_at_[r.id] = now;  // dequeued once already (Fn::dequeued)
    to.requests.push_back(std::move(r), v);
    ++fn.queued;
    if (std::find(touched.begin(), touched.end(), &to) == touched.end()) touched.push_back(&to);
  }
  for (Queue* q : touched)
    pump(*q);
  return n;
}

void ControlPlane::releasing(int host) {
  stats_.host_event(host, sim_.now(), "releasing", {});
  dispatchability_changed();  // the host is no longer available
  stop_on_host(host);
}

void ControlPlane::vm_requested(int host_template, int replaces) {
  stats_.host_event(-1, sim_.now(), "vm_requested",
                    fmt::format("template={};replaces={}", host_template, replaces));
}

void ControlPlane::host_added(int host) {
  stats_.host_event(host, sim_.now(), "host_added", {});
  dispatchability_changed();
  pump_all();
}

// ---------------------------------------------------------------------------------------------
// Control loop

policy::PlatformView ControlPlane::view() const {
  return current_view();
}

const policy::PlatformView& ControlPlane::current_view() const {
#ifndef NDEBUG
  for (const auto& f : fns_)
    check_state_counts(*f, instances_);
#endif
  // Only the instances that changed since the last refresh, unless one came or went, one
  // changed otherwise, or one is cold-starting (its stage moves without a transition).
  bool incremental = !view_rebuild_ && view_.instances.size() == instances_.size();
  for (std::size_t k = 0; incremental && k < fns_.size(); ++k)
    incremental = fns_[k]->states[InstanceState::kColdStarting] == 0;
  refresh_view(
      view_, {sim_.now(), config_.control_interval, config_.rate_windows, fleet_->pending_vms(),
              fns_, instances_, fleet_->hosts(), &by_id_, incremental ? &view_changed_ : nullptr});
  view_changed_.clear();
  view_rebuild_ = false;
#ifndef NDEBUG
  {
    // Every instance's view against a fresh one (cold_starts: rebuilt whenever non-empty).
    const auto fresh =
        build_view({sim_.now(), config_.control_interval, config_.rate_windows,
                    fleet_->pending_vms(), fns_, instances_, fleet_->hosts(), &by_id_});
    auto same = [](const policy::InstanceView& a, const policy::InstanceView& b) {
      return a.id == b.id && a.function == b.function && a.state == b.state &&
             a.config == b.config && a.location == b.location && a.created == b.created &&
             a.state_since == b.state_since && a.batches == b.batches &&
             a.batch_latency_s == b.batch_latency_s && a.partition == b.partition &&
             a.partitions == b.partitions && a.partition_head == b.partition_head;
    };
    if (!std::equal(view_.instances.begin(), view_.instances.end(), fresh.instances.begin(),
                    fresh.instances.end(), same) ||
        view_.cold_starts.size() != fresh.cold_starts.size()) {
      throw std::logic_error("serverless platform: an instance's view changed unmarked");
    }
  }
#endif
  return view_;
}

void ControlPlane::apply(const policy::Decisions& d, policy::Autoscaler* origin) {
  for (const auto& s : d.stop) {
    Inst* i = find(s.id);
    if (i == nullptr) {
      ++counts_.rejected["stop"];
      continue;
    }
    ++counts_.applied["stop"];
    stop(*i);
  }
  const Hosts& hosts = fleet_->hosts();
  for (const auto& r : d.reconfigure) {
    if (r.host < 0 || static_cast<std::size_t>(r.host) >= hosts.size() || r.gpu < 0 ||
        static_cast<std::size_t>(r.gpu) >= hosts[static_cast<std::size_t>(r.host)]->gpus.size()) {
      ++counts_.rejected["reconfigure"];
      continue;
    }
    auto& g = *hosts[static_cast<std::size_t>(r.host)]->gpus[static_cast<std::size_t>(r.gpu)];
    const GpuRef ref{r.host, r.gpu, fleet_->global_gpu({r.host, r.gpu, -1}), &g};
    if (!g.mig() || g.instances() > 0) {
      ++counts_.rejected["reconfigure"];
      stats_.gpu_reconfiguration(ref, sim_.now(), "rejected", r.profiles,
                                 !g.mig() ? "not_mig" : "instances_on_gpu");
      continue;
    }
    cluster::GpuDevice* gp = &g;
    const auto why = g.mig_gpu()->reconfigure(r.profiles, [this, ref, profiles = r.profiles] {
      stats_.gpu_reconfiguration(ref, sim_.now(), "ended", profiles, {});
      pump_all();
    });
    if (why) {
      ++counts_.rejected["reconfigure"];
      stats_.gpu_reconfiguration(ref, sim_.now(), "rejected", r.profiles, *why);
      continue;
    }
    gp->geometry_changed();
    ++counts_.applied["reconfigure"];
    stats_.gpu_reconfiguration(ref, sim_.now(), "begun", r.profiles, {});
  }
  fleet_->apply(d);  // logs the VM requests it accepts (vm_requested)
  if (d.start.empty()) return;
  // Built after the stops and reconfigurations, so placement sees the room they freed.
  policy::PlatformView pv = view();
  placement_stale_.hosts.clear();
  placement_stale_.all = false;
  for (const auto& s : d.start) {
    if (s.function >= fns_.size() || s.count < 0) {
      ++counts_.rejected["start_invalid"];
      if (origin != nullptr) origin->started(s, 0);
      continue;
    }
    Fn& fn = *fns_[s.function];
    const auto config = s.config.value_or(fn.spec.config);
    int started = 0;
    for (; started < s.count; ++started) {
      const bool ok = s.partition ? start_partitioned(fn, config, *s.partition, pv)
                                  : start_instance(fn, config, s.location, pv, s.warm);
      if (!ok) break;
    }
    if (origin != nullptr) origin->started(s, started);
  }
}

void ControlPlane::refresh_placement_view(policy::PlatformView& pv, int host) {
  const Hosts& hosts = fleet_->hosts();
  if (placement_stale_.all || pv.hosts.size() != hosts.size()) {
    refresh_hosts_view(pv.hosts, hosts);
  } else {
    for (const int h : placement_stale_.hosts)
      refresh_host_view(pv.hosts, hosts, h);
    refresh_host_view(pv.hosts, hosts, host);
  }
  placement_stale_.hosts.clear();
  placement_stale_.all = false;
#ifndef NDEBUG
  if (pv.hosts != hosts_view(hosts)) {
    throw std::logic_error("serverless platform: a host changed that the placement view missed");
  }
#endif
}

void ControlPlane::tick() {
  graveyard_.clear();
  free_ended_queues();
  const Time now = sim_.now();
  const Time longest = *std::max_element(config_.rate_windows.begin(), config_.rate_windows.end());
  for (auto& f : fns_)
    while (!f->recent.empty() && f->recent.front() <= now - longest) {
      f->recent.pop_front();
      ++f->recent_dropped;
    }

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
  stats_.tick(v);
  // The tick policies return Decisions, applied whole: procurement first (its VMs take the
  // provisioning delay), then MIG geometry, then the autoscaler on the same view.
  if (policies_.procurement) {
    const auto d = policies_.procurement->decide(v);
    if (!d.empty()) apply(d);
  }
  if (policies_.partitioner) {
    const auto d = policies_.partitioner->decide(v);
    if (!d.empty()) apply(d);
  }
  auto d = policies_.autoscaler->decide(v);
  stats_.autoscaler_decided(d, instances_);
  policy::Autoscaler* origin = policies_.autoscaler.get();
  if (config_.charge_decision_time && d.compute_time > Time::zero()) {
    sim_.schedule_in(d.compute_time, [this, d, origin] { apply(d, origin); });
  } else if (!d.empty()) {
    apply(d, origin);
  }
  const auto warm = policies_.keep_alive->prewarm(view());  // on a view with the above applied
  if (!warm.empty()) apply(warm);
  // A dispatcher may have held a batch; offer the queues again once per tick.
  pump_all();
  sim_.schedule_in(config_.control_interval, [this] { tick(); });
}

// ---------------------------------------------------------------------------------------------
// Outputs

std::uint64_t ControlPlane::queued() const {
  std::uint64_t n = 0;
  for (const auto& q : queues_)
    n += q->requests.size();
  for (const Queue* q : node_queues_)
    n += q->requests.size();
  return n;
}

void ControlPlane::add_timeseries_columns(metrics::TimeSeriesRecorder& recorder) {
  recorder.add_column("queue_length", [this] { return static_cast<double>(queued()); });
  const auto count = [this](InstanceState s) {
    double n = 0;
    for (const auto& f : fns_)
      n += f->states[s];
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
  recorder.add_column("instances_desired", [this] { return desired_.value(); });
}

json ControlPlane::summary_extra(Time end) const {
  json applied = json::object(), rejected = json::object();
  for (const auto& [k, n] : counts_.applied)
    applied[k] = n;
  for (const auto& [k, n] : counts_.rejected)
    rejected[k] = n;
  json out{{"batches", batches_},
           {"decisions", {{"applied", applied}, {"rejected", rejected}}},
           {"requests_dropped_at_gateway", dropped_}};
  fleet_->write_summary(out, end);
  cold_->write_summary(out);
  const policy::PlatformView end_view = view();
  // After cold_->write_summary: ColdStartFigures adds to its cold_starts block.
  stats_.write_summary(out, {end, fleet_->hosts(), instances_, fns_, end_view, cold_->log()});
  if (auto stats = policies_.autoscaler->statistics(); !stats.is_null()) {
    out["autoscaler"] = std::move(stats);  // e.g. new/running replicas and parts per scale-up
  }
  return out;
}

}  // namespace sim::platform::serverless
