// Flashpoint's partitioned replicas (§4.2): starting the parts, the replica becoming ready
// when its last part is, model completion (§4.2.5), its batches through the pipeline (fixed
// times without a network, Pipelines with one), and its end as a whole.

#include <algorithm>

#include "control_plane.hpp"
#include "feasibility.hpp"
#include "partition_plan.hpp"

namespace sim::platform::serverless {

bool ControlPlane::start_partitioned(Fn& fn, const policy::InstanceConfig& config,
                                     const policy::PartitionSpec& spec, policy::PlatformView& pv) {
  auto plan = plan_partition(fn, spec, config_.host_bps, config_.pcie_bps);
  if (!plan) {
    ++counts_.rejected["start_invalid"];
    return false;
  }
  std::vector<PartSetup>& setup = plan->parts;
  const int parts = static_cast<int>(setup.size());
  // Place every part first (the view is updated after each), then start them.
  std::vector<policy::Location> locs;
  policy::PlatformView trial = pv;
  for (int p = 0; p < parts; ++p) {
    const policy::FunctionView* fv = trial.function(fn.id);
    auto loc = policies_.placement->place({fv, config}, trial);
    if (!loc ||
        !fits(fn, config, *loc, setup[static_cast<std::size_t>(p)].bytes, fleet_->hosts(),
              on_host(loc->host)) ||
        std::find(locs.begin(), locs.end(), *loc) != locs.end()) {
      ++counts_.rejected["start_unplaced"];
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
      placement_stale_.all = true;
      return false;
    }
    const InstanceId id = next_instance_ - 1;
    if (p == 0) {
      head = id;
      Inst& h = *find(id);
      h.replica->parts_waiting = parts;
      // Not pipelined: the next batch only once this one left the last part (I, eq. 4.4).
      h.pipeline_interval_s = spec.pipelined ? plan->interval_s : plan->latency_s;
      h.pipeline_latency_s = plan->latency_s;
      h.batch_latency_s = plan->latency_s;
      view_rebuild_ = true;  // a field of its view, changed without a transition
      h.replica->completion_s = plan->completion_s;
    } else {
      find(head)->replica->members.push_back(id);
    }
  }
  if (flows_) {
    Inst& h = *find(head);
    h.pipeline = pipelines_->make(head, fn, spec.cut_after, locs, spec.pipelined);
  }
  ++counts_.applied["start_partitioned"];
  stats_.replica_started(parts);
  return true;
}

void ControlPlane::part_ready(Inst& inst) {
  // Every part waits (held) until the whole replica is ready; then only the head serves.
  inst.held = true;
  dispatchability_changed();
  Inst* head = inst.replica->head == 0 ? &inst : find(inst.replica->head);
  if (head == nullptr || !head->replica) return;
  if (--head->replica->parts_waiting > 0) return;
  head->held = false;
  transition(*head, InstanceEvent::kReady, sim_.now());
  const InstanceId hid = head->id;
  if (const double completion_s = head->replica->completion_s; completion_s >= 0) {
    head->timer.cancel();
    keep_alive_timers_.cancel(head->keep_alive);
    sim_.schedule_in(ceil_seconds(completion_s), [this, hid] { complete_model(hid); });
  }
  became_idle(*head);
}

void ControlPlane::complete_model(InstanceId hid) {
  Inst* head = find(hid);
  if (head == nullptr || head->part() != 0) return;
  // Model completion (§4.2.5): every part now holds the full model and serves on its own.
  std::vector<InstanceId> parts = head->replica->members;
  parts.insert(parts.begin(), hid);
  for (const InstanceId id : parts) {
    Inst* i = find(id);
    if (i == nullptr) continue;
    auto& host = fleet_->host(i->loc.host);
    host.cache.insert(i->fn->spec.model, i->fn->bytes, host.cache_capacity());
    i->replica.reset();
    i->held = false;
    dispatchability_changed();  // held, and the dispatcher's view: batch_latency_s
    i->pipeline_latency_s = i->pipeline_interval_s = 0.0;
    detach_pipeline(*i);  // batches in flight drain through it
    i->batch_latency_s = i->unit->predict_solo_s(*i->fn->model, i->config.max_batch);
  }
  view_rebuild_ = true;  // the parts' views: partition and batch_latency_s
  ++counts_.applied["model_completion"];
  for (const InstanceId id : parts) {
    Inst* i = find(id);
    if (i != nullptr && i->life.state() == InstanceState::kIdle) {
      // The head has been ready since its replica was; the other parts become ready now.
      if (id != hid) transition(*i, InstanceEvent::kReady, sim_.now());
      became_idle(*i);
    }
  }
}

// The head of a pipelined replica can take the next batch (its first part passed the last on).
void ControlPlane::head_admits(InstanceId hid) {
  Inst* h = find(hid);
  if (h == nullptr) return;
  ++h->batches;
  transition(*h, InstanceEvent::kBatchDone, sim_.now());
  if (h->stop_after_batch || !fleet_->host(h->loc.host).available) {
    terminate(*h);
    return;
  }
  became_idle(*h);
}

// A partitioned replica lives and dies as a whole: when one part goes, the other parts go too.
void ControlPlane::end_replica(Inst& inst) {
  std::vector<InstanceId> group;
  const InstanceId hid = inst.replica->part == 0 ? inst.id : inst.replica->head;
  if (Inst* h = find(hid)) {
    if (h->replica) group = std::move(h->replica->members);
    group.push_back(hid);
    if (h->replica) h->replica->members.clear();
  }
  inst.replica.reset();
  view_rebuild_ = true;  // its view's partition fields (and its parts', reset below)
  routes_changed();      // its part() no longer keeps it from the gateway
  for (const InstanceId id : group) {
    Inst* g = find(id);
    if (g == nullptr || g == &inst) continue;
    g->replica.reset();
    terminate(*g);
  }
}

void ControlPlane::detach_pipeline(Inst& head) {
  if (head.pipeline == 0) return;
  const std::uint64_t serial = head.pipeline;
  head.pipeline = 0;
  pipelines_->detach(serial);
}

}  // namespace sim::platform::serverless
