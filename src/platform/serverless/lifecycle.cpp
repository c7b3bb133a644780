// The instance lifecycle: start (warm, cold, or as the parts of a Flashpoint partitioned
// replica), ready, idle with its keep-alive, stop (drain) and terminate.

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "control_plane.hpp"
#include "feasibility.hpp"
#include "partition_plan.hpp"
#include "sim/gpu_models/exclusive_unit.hpp"
#include "sim/gpu_models/solo_latency.hpp"
#include "sim/gpu_models/time_sliced_unit.hpp"
#include "view_builder.hpp"

namespace sim::platform::serverless {

Inst* ControlPlane::find(InstanceId id) {
  const auto it = instances_.find(id);
  return it == instances_.end() ? nullptr : it->second.get();
}

bool ControlPlane::start_instance(Fn& fn, const policy::InstanceConfig& config,
                                  const std::optional<policy::Location>& location,
                                  policy::PlatformView& pv, bool warm, const PartSetup* part) {
  const double bytes = part != nullptr ? part->bytes : fn.bytes;
  std::optional<policy::Location> loc = location;
  if (!loc) {
    const policy::FunctionView* fv = pv.function(fn.id);
    policy::PlacementRequest req{fv, config};
    loc = policies_.placement->place(req, pv);
    if (!loc) {
      ++counts_.rejected["start_unplaced"];
      return false;
    }
  }
  if (!fits(fn, config, *loc, bytes, fleet_->hosts(), instances_)) {
    ++counts_.rejected["start_invalid"];
    return false;
  }
  auto inst = std::make_unique<Inst>(sim_.now());
  inst->id = next_instance_++;
  inst->fn = &fn;
  inst->config = config;
  inst->loc = *loc;
  auto& host = fleet_->host(loc->host);
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
  accounting_.memory_changed(sim_.now(), bytes, 0.0);
  host.cache.shrink_to(host.cache_capacity());
  if (fn.spec.gpu) {
    auto& g = *host.gpus[static_cast<std::size_t>(loc->gpu)];
    const std::string name =
        host.name + "/gpu" + std::to_string(loc->gpu) + "/instance" + std::to_string(inst->id);
    inst->device_gb = config.time_slice_gb > 0 ? config.time_slice_gb : fn.device_gb;
    if (config.time_slice_gb > 0) {
      // HarmonyBatch eq. 3-4: its own window of the GPU's time.
      inst->window_gb = *time_slice_window(fn, *loc, config.time_slice_gb, instances_);
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
    accounting_.memory_changed(sim_.now(), 0.0, inst->device_gb);
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
    ++counts_.applied["start_warm"];
    release_cold_start_memory(w);
    host.cache.insert(fn.spec.model, fn.bytes, host.cache_capacity());
    w.life.transition(InstanceEvent::kReady, sim_.now());
    pv.hosts = hosts_view(fleet_->hosts());
    became_idle(w);
    return true;
  }
  fn.instances.insert(inst->id);
  Inst& ref = *inst;
  instances_.emplace(inst->id, std::move(inst));
  ++counts_.applied["start"];
  pv.hosts = hosts_view(fleet_->hosts());
  cold_->begin(ref);
  return true;
}

// The cold start of `inst` is over: the model is on its device.
void ControlPlane::cold_start_ready(Inst& inst) {
  const Time now = sim_.now();
  release_cold_start_memory(inst);
  inst.life.transition(InstanceEvent::kReady, now);
  if (inst.stop_after_batch || !fleet_->host(inst.loc.host).available) {
    terminate(inst);
    return;
  }
  if (inst.part >= 0) {
    part_ready(inst);
    return;
  }
  became_idle(inst);
}

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
              instances_) ||
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
      return false;
    }
    const InstanceId id = next_instance_ - 1;
    if (p == 0) {
      head = id;
      Inst& h = *find(id);
      h.parts_waiting = parts;
      h.pipeline_interval_s = plan->interval_s;
      h.pipeline_latency_s = plan->latency_s;
      h.batch_latency_s = plan->latency_s;
      h.completion_s = plan->completion_s;
    } else {
      find(head)->members.push_back(id);
    }
  }
  if (pipelines_) {
    Inst& h = *find(head);
    h.pipeline = pipelines_->make(head, fn, spec.cut_after, locs);
  }
  ++counts_.applied["start_partitioned"];
  accounting_.partitioned_started(parts);
  return true;
}

void ControlPlane::part_ready(Inst& inst) {
  // Every part waits (held) until the whole replica is ready; then only the head serves.
  inst.held = true;
  Inst* head = inst.head == 0 ? &inst : find(inst.head);
  if (head == nullptr) return;
  if (--head->parts_waiting > 0) return;
  head->held = false;
  head->life.transition(InstanceEvent::kReady, sim_.now());
  const InstanceId hid = head->id;
  if (head->completion_s >= 0) {
    head->timer.cancel();
    sim_.schedule_in(ceil_seconds(head->completion_s), [this, hid] { complete_model(hid); });
  }
  became_idle(*head);
}

void ControlPlane::complete_model(InstanceId hid) {
  Inst* head = find(hid);
  if (head == nullptr || head->part != 0) return;
  // Model completion (§4.2.5): every part now holds the full model and serves on its own.
  std::vector<InstanceId> parts = head->members;
  parts.insert(parts.begin(), hid);
  for (const InstanceId id : parts) {
    Inst* i = find(id);
    if (i == nullptr) continue;
    auto& host = fleet_->host(i->loc.host);
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
  ++counts_.applied["model_completion"];
  for (const InstanceId id : parts) {
    Inst* i = find(id);
    if (i != nullptr && i->life.state() == InstanceState::kIdle) {
      // The head has been ready since its replica was; the other parts become ready now.
      if (id != hid) i->life.transition(InstanceEvent::kReady, sim_.now());
      became_idle(*i);
    }
  }
}

void ControlPlane::became_idle(Inst& inst) {
  Fn& fn = *inst.fn;
  const InstanceId id = inst.id;
  fn.queue->idle.insert(id);
  pump(*fn.queue);
  if (config_.dispatch_scope == DispatchScope::kNode) {
    // The cluster queue first (requests that arrived before any node hosted the function),
    // then the instance's node queue.
    if (Inst* x = find(id); x != nullptr && x->life.state() == InstanceState::kIdle) {
      Queue& nq = node_queue(*fn.queue, x->loc.host);
      nq.idle.insert(id);
      pump(nq);
    }
  }
  Inst* i = find(id);
  if (i == nullptr || i->life.state() != InstanceState::kIdle) return;
  const Time timeout = policies_.keep_alive->idle_timeout(instance_view(*i), function_view(fn));
  if (timeout == Time::max()) return;
  i->timer = sim_.schedule_in(std::max(timeout, Time::zero()), [this, id] {
    if (Inst* x = find(id); x != nullptr && x->life.state() == InstanceState::kIdle) {
      ++counts_.applied["keep_alive_expiry"];
      terminate(*x);
    }
  });
}

void ControlPlane::stop_on_host(int host) {
  // Instances drain: idle and cold-starting ones stop now, busy ones after their batch.
  std::vector<InstanceId> ids;
  for (const auto& [id, inst] : instances_)
    if (inst->loc.host == host) ids.push_back(id);
  for (const auto id : ids)
    if (Inst* i = find(id)) stop(*i);
}

void ControlPlane::detach_pipeline(Inst& head) {
  if (head.pipeline == 0) return;
  const std::uint64_t serial = head.pipeline;
  head.pipeline = 0;
  pipelines_->detach(serial);
}

void ControlPlane::release_cold_start_memory(Inst& inst) {
  if (inst.host_bytes <= 0) return;
  auto& host = fleet_->host(inst.loc.host);
  host.reserved_bytes -= inst.host_bytes;
  accounting_.memory_changed(sim_.now(), -inst.host_bytes, 0.0);
  inst.host_bytes = 0.0;
}

void ControlPlane::stop(Inst& inst) {
  schedule_reroute();
  if (inst.life.state() == InstanceState::kBusy || inst.life.state() == InstanceState::kDraining) {
    inst.life.transition(InstanceEvent::kDrain, sim_.now());
    inst.stop_after_batch = true;
    return;
  }
  terminate(inst);
}

void ControlPlane::terminate(Inst& inst) {
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
  cold_->cancel(inst);
  release_cold_start_memory(inst);
  auto& host = fleet_->host(inst.loc.host);
  if (inst.fn->spec.gpu) {
    host.gpus[static_cast<std::size_t>(inst.loc.gpu)]->release(inst.loc.slice, inst.device_gb);
    accounting_.memory_changed(now, 0.0, -inst.device_gb);
  }
  host.reserved_cores -= inst.cores;
  accounting_.instance_ended(inst, now);
  inst.life.transition(InstanceEvent::kTerminate, now);
  inst.fn->instances.erase(inst.id);
  schedule_reroute();
  auto node = instances_.extract(inst.id);
  // Freed at the next tick: terminate() may run inside a callback of the instance's own unit.
  graveyard_.push_back(std::move(node.mapped()));
}

}  // namespace sim::platform::serverless
