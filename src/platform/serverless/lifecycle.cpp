// The instance lifecycle: start (warm or cold; a part of a partitioned replica is started
// here too, by replicas.cpp), ready, idle with its keep-alive, stop (drain) and terminate.

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "control_plane.hpp"
#include "execution.hpp"
#include "feasibility.hpp"
#include "view_builder.hpp"

namespace sim::platform::serverless {

void ControlPlane::add_instance(std::unique_ptr<Inst> inst) {
  const auto id = static_cast<std::size_t>(inst->id);
  if (by_id_.size() <= id) by_id_.resize(id + 1, nullptr);
  by_id_[id] = inst.get();
  // Ids only grow, so appending keeps each host's list ascending.
  const auto h = static_cast<std::size_t>(inst->loc.host);
  if (on_host_.size() <= h) on_host_.resize(h + 1);
  on_host_[h].push_back(inst.get());
  instances_.emplace(inst->id, std::move(inst));
  view_rebuild_ = true;
}

void ControlPlane::transition(Inst& inst, InstanceEvent event, Time now) {
  inst.life.transition(event, now);
  // Bounded: a run whose policies never read the platform view would grow the list forever.
  if (view_rebuild_ || view_changed_.size() >= 4 * by_id_.size() + 64) {
    view_changed_.clear();
    view_rebuild_ = true;
  } else {
    view_changed_.push_back(&inst);
  }
}

std::span<const Inst* const> ControlPlane::on_host(int host) const {
  if (host < 0 || static_cast<std::size_t>(host) >= on_host_.size()) return {};
  return on_host_[static_cast<std::size_t>(host)];
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
      stats_.start_rejected(fn, sim_.now(), "start_unplaced");
      return false;
    }
  }
  // Parts of a partitioned replica run pipelined batches and keep their footprint.
  const ContainerMemory memory =
      part != nullptr ? ContainerMemory::kBatchFootprint : config_.container_memory;
  if (!fits(fn, config, *loc, bytes, fleet_->hosts(), on_host(loc->host), memory) &&
      !(config_.evict_idle == EvictIdle::kLeastRecentlyUsed &&
        evict_for_start(fn, config, *loc, bytes, memory))) {
    ++counts_.rejected["start_invalid"];
    stats_.start_rejected(fn, sim_.now(), "start_invalid");
    return false;
  }
  auto inst = std::make_unique<Inst>(sim_.now(), fn.states);
  inst->id = next_instance_++;
  inst->fn = &fn;
  inst->config = config;
  inst->loc = *loc;
  inst->device = loc->gpu >= 0 ? fleet_->global_gpu(*loc) : -1;
  auto& host = fleet_->host(loc->host);
  if (loc->gpu >= 0) inst->gpu = host.gpus[static_cast<std::size_t>(loc->gpu)].get();
  // The instance's host memory is reserved for its whole cold start; cached models make room.
  inst->boot.emplace();
  inst->boot->bytes = bytes;
  if (part != nullptr) {
    inst->boot->load_s = part->load_s;
    inst->replica = Replica{part->head, part->part, part->parts, {}, 0, 0.0};
  }
  inst->boot->host_bytes = bytes;
  host.reserved_bytes += bytes;
  accounting_.memory_changed(sim_.now(), bytes, 0.0);
  host.cache.shrink_to(host.cache_capacity());
  Execution e = reserve_execution(fn, config, *loc, inst->id, host, on_host(loc->host), sim_,
                                  config_, memory);
  inst->unit = e.unit;
  inst->own_unit = std::move(e.own_unit);
  inst->device_gb = e.device_gb;
  inst->activation_gb = e.activation_gb;
  inst->cores = e.cores;
  inst->window_gb = e.window_gb;
  if (fn.spec.gpu) accounting_.memory_changed(sim_.now(), 0.0, inst->device_gb);
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
    routes_changed();
    Inst& w = *inst;
    add_instance(std::move(inst));
    ++counts_.applied["start_warm"];
    stats_.instance_placed(w, sim_.now(), true);
    release_cold_start_memory(w);
    host.cache.insert(fn.spec.model, fn.bytes, host.cache_capacity());
    transition(w, InstanceEvent::kReady, sim_.now());
    refresh_placement_view(pv, w.loc.host);
    pv.instances.push_back(instance_view(w));  // Placement's contract: see it in this tick
    became_idle(w);
    placement_stale_.all = true;  // its dispatch may have touched any host
    return true;
  }
  fn.instances.insert(inst->id);
  routes_changed();
  Inst& ref = *inst;
  add_instance(std::move(inst));
  ++counts_.applied["start"];
  stats_.instance_placed(ref, sim_.now(), false);
  refresh_placement_view(pv, ref.loc.host);
  // Placement's contract: the view reflects the instances already placed in this tick. The
  // hosts view alone is not enough: INFless's placement reads the SM shares off the instances
  // (without this, two pre-warmed instances of one tick took the same last share, issue #22).
  pv.instances.push_back(instance_view(ref));
  cold_->begin(ref);
  placement_stale_.hosts.push_back(ref.loc.host);  // begin() touches or fills its cache
  return true;
}

// The cold start of `inst` is over: the model is on its device.
void ControlPlane::cold_start_ready(Inst& inst) {
  const Time now = sim_.now();
  release_cold_start_memory(inst);
  transition(inst, InstanceEvent::kReady, now);
  stats_.instance_ready(inst, now);
  if (inst.stop_after_batch || !fleet_->host(inst.loc.host).available) {
    terminate(inst);
    return;
  }
  if (inst.replica) {
    part_ready(inst);
    return;
  }
  became_idle(inst);
}

void ControlPlane::became_idle(Inst& inst) {
  Fn& fn = *inst.fn;
  const InstanceId id = inst.id;
  if (fn.queue->dispatchable) {
    inst.in_idle = true;
    if (dispatchable(inst)) enter_idle_set(*fn.queue, inst);
  } else {
    add_idle(*fn.queue, id);
  }
  pump(*fn.queue);
  if (config_.dispatch_scope == DispatchScope::kNode) {
    // The cluster queue first (requests that arrived before any node hosted the function),
    // then the instance's node queue.
    if (Inst* x = find(id); x != nullptr && x->life.state() == InstanceState::kIdle) {
      Queue& nq = node_queue(*fn.queue, x->loc.host);
      add_idle(nq, id);
      pump(nq);
      if (config_.node_backlog == NodeBacklog::kShare && nq.requests.empty()) {
        Inst* y = find(id);
        if (y != nullptr && y->life.state() == InstanceState::kIdle && share_backlog(nq, *y)) {
          pump(nq);
        }
      }
    }
  }
  if (config_.dispatch_scope == DispatchScope::kInstance) {
    // The cluster queue first (requests held while no instance was ready), then its own.
    if (Inst* x = find(id); x != nullptr && x->life.state() == InstanceState::kIdle) {
      Queue& iq = instance_queue(*fn.queue, *x);
      add_idle(iq, id);
      pump(iq);
    }
  }
  Inst* i = find(id);
  if (i == nullptr || i->life.state() != InstanceState::kIdle) return;
  policy::FunctionView& fv = keep_alive_views_[fn.id];
  refresh_function_view(fv, fn, sim_.now(), config_.rate_windows);
  const Time timeout = policies_.keep_alive->idle_timeout(instance_view(*i), fv);
  stats_.instance_idle(*i, sim_.now(), timeout);
  if (timeout == Time::max()) return;
  i->keep_alive = keep_alive_timers_.schedule_in(std::max(timeout, Time::zero()), id);
}

void ControlPlane::keep_alive_expired(InstanceId id) {
  if (Inst* x = find(id); x != nullptr && x->life.state() == InstanceState::kIdle) {
    ++counts_.applied["keep_alive_expiry"];
    stats_.keep_alive_expired(*x, sim_.now());
    terminate(*x);
  }
}

void ControlPlane::stop_on_host(int host) {
  // Instances drain: idle and cold-starting ones stop now, busy ones after their batch.
  std::vector<InstanceId> ids;
  for (const auto& [id, inst] : instances_)
    if (inst->loc.host == host) ids.push_back(id);
  for (const auto id : ids)
    if (Inst* i = find(id)) stop(*i);
}

void ControlPlane::release_cold_start_memory(Inst& inst) {
  if (!inst.boot) return;
  const double bytes = inst.boot->host_bytes;
  inst.boot.reset();
  if (bytes <= 0) return;
  auto& host = fleet_->host(inst.loc.host);
  host.reserved_bytes -= bytes;
  accounting_.memory_changed(sim_.now(), -bytes, 0.0);
}

void ControlPlane::stop(Inst& inst) {
  schedule_reroute();
  const bool draining =
      inst.life.state() == InstanceState::kBusy || inst.life.state() == InstanceState::kDraining;
  stats_.instance_stopping(inst, sim_.now(), draining);
  if (draining) {
    transition(inst, InstanceEvent::kDrain, sim_.now());
    inst.stop_after_batch = true;
    return;
  }
  terminate(inst);
}

void ControlPlane::terminate(Inst& inst) {
  const Time now = sim_.now();
  if (auto& d = inst.fn->queue->dispatchable) {
    leave_idle_set(*inst.fn->queue, inst);
    d->set->forget(inst.id);  // ids are never reused: its credit would be kept for nothing
  }
  policies_.dispatcher->forget(inst.id);  // the same, for a dispatcher shown every idle instance
  if (inst.replica) end_replica(inst);
  inst.timer.cancel();
  keep_alive_timers_.cancel(inst.keep_alive);
  inst.admit.cancel();
  detach_pipeline(inst);
  cold_->cancel(inst);
  release_cold_start_memory(inst);
  auto& host = fleet_->host(inst.loc.host);
  if (inst.fn->spec.gpu) {
    release_activations(inst);
    host.gpus[static_cast<std::size_t>(inst.loc.gpu)]->release(inst.loc.slice, inst.device_gb,
                                                               inst.activation_gb);
    accounting_.memory_changed(now, 0.0, -inst.device_gb);
  }
  host.reserved_cores -= inst.cores;
  stats_.instance_ended(inst, now);
  transition(inst, InstanceEvent::kTerminate, now);
  inst.fn->instances.erase(inst.id);
  routes_changed();
  schedule_reroute();
  by_id_[static_cast<std::size_t>(inst.id)] = nullptr;
  view_rebuild_ = true;
  auto& here = on_host_[static_cast<std::size_t>(inst.loc.host)];
  here.erase(std::find(here.begin(), here.end(), &inst));
  auto node = instances_.extract(inst.id);
  // Freed at the next tick: terminate() may run inside a callback of the instance's own unit.
  graveyard_.push_back(std::move(node.mapped()));
}

std::vector<Inst*> ControlPlane::eviction_candidates(const policy::Location& loc, const Fn& fn) {
  std::vector<Inst*> out;
  for (const Inst* i : on_host(loc.host)) {
    if (i->loc != loc || !i->fn->spec.gpu || i->fn->queue == fn.queue) continue;
    if (i->life.state() != InstanceState::kIdle || i->held || i->replica) continue;
    out.push_back(find(i->id));
  }
  std::stable_sort(out.begin(), out.end(), [](const Inst* a, const Inst* b) {
    return a->life.idle_since() < b->life.idle_since();  // ties: ascending id (on_host order)
  });
  return out;
}

bool ControlPlane::evict_for_start(const Fn& fn, const policy::InstanceConfig& config,
                                   const policy::Location& loc, double bytes,
                                   ContainerMemory memory) {
  const std::vector<Inst*> candidates = eviction_candidates(loc, fn);
  if (candidates.empty()) return false;
  std::vector<const Inst*> rest;
  double freed = 0.0;
  for (std::size_t k = 1; k <= candidates.size(); ++k) {
    freed += candidates[k - 1]->device_gb;
    rest.clear();
    for (const Inst* i : on_host(loc.host))
      if (std::find(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(k), i) ==
          candidates.begin() + static_cast<std::ptrdiff_t>(k)) {
        rest.push_back(i);
      }
    if (!fits(fn, config, loc, bytes, fleet_->hosts(), rest, memory, freed)) continue;
    for (std::size_t v = 0; v < k; ++v)
      evict(*candidates[v], "start", fn, 0);
    return true;
  }
  return false;
}

bool ControlPlane::evict_for_activations(const Inst& inst) {
  if (inst.activation_gb <= 0 || inst.loc.gpu < 0) return false;
  const auto& g = *fleet_->host(inst.loc.host).gpus[static_cast<std::size_t>(inst.loc.gpu)];
  // activations_fit()'s rule, with the candidates' memory counted as free.
  const double short_gb = inst.activation_gb - (g.place_memory_gb(inst.loc.slice) -
                                                g.reserved_gb(inst.loc.slice) + 1e-9);
  const std::vector<Inst*> candidates = eviction_candidates(inst.loc, *inst.fn);
  double freed = 0.0;
  std::size_t k = 0;
  while (k < candidates.size() && freed < short_gb)
    freed += candidates[k++]->device_gb;
  if (freed < short_gb) return false;
  const Fn& fn = *inst.fn;
  const InstanceId id = inst.id;
  for (std::size_t v = 0; v < k; ++v)
    evict(*candidates[v], "activations", fn, id);
  return true;
}

void ControlPlane::evict(Inst& victim, std::string_view why, const Fn& for_fn,
                         InstanceId for_instance) {
  stats_.instance_evicted(victim, sim_.now(), why, for_fn, for_instance);
  terminate(victim);
}

}  // namespace sim::platform::serverless
