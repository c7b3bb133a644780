// The request path: queues, batcher, dispatcher (the gateway that picks a node queue is in
// gateway.cpp), a batch handed to its runner (batch_runner.hpp: the instance's execution unit,
// or a pipelined replica's Pipelines), and batch_finished, the one completion path of both.

#include <algorithm>
#include <cassert>
#include <stdexcept>

#include "control_plane.hpp"
#include "records.hpp"
#include "view_builder.hpp"

namespace sim::platform::serverless {

void ControlPlane::on_arrival(const traces::Arrival& arrival, std::uint64_t request_id) {
  Fn& fn = *fns_.at(arrival.function);
  ++fn.arrivals;
  if (arrival.cls == traces::RequestClass::kStrict) ++fn.strict_arrivals;
  fn.recent.push_back(arrival.time);
  Queue& q = route(*fn.queue, -1);
  if (q.requests.size() >= config_.queue_capacity) {
    ++dropped_;
    context_.record(dropped_record(arrival, request_id, sim_.now()));
    return;
  }
  const auto t = fn.timeout_by_app.find(arrival.application);
  const Time timeout = t == fn.timeout_by_app.end() ? fn.spec.batch_timeout : t->second;
  q.requests.push_back({arrival, request_id, timeout}, {request_id, arrival.time, arrival.cls,
                                                        arrival.application, arrival.slo, timeout});
  ++fn.queued;
  pump(q);
}

void ControlPlane::pump_all() {
  for (auto& q : queues_)
    if (!q->requests.empty()) pump(*q);
  for (std::size_t k = 0; k < node_queues_.size(); ++k)
    if (!node_queues_[k]->requests.empty()) pump(*node_queues_[k]);
}

// Per-node dispatch. An instance is routable while it is (or will be) able to take a batch on
// an available host; requests routed to a node wait there for that node's instances.
bool ControlPlane::routable(const Inst& inst) const {
  const bool live = inst.life.state() == InstanceState::kColdStarting ||
                    inst.life.state() == InstanceState::kIdle ||
                    inst.life.state() == InstanceState::kBusy;
  return live && inst.part() <= 0 && fleet_->host(inst.loc.host).available;
}

bool ControlPlane::serves(const Inst& inst, const Queue& q) const {
  if (q.host < 0) return inst.fn->queue == &q;
  if (q.instance != 0) return inst.fn->queue == q.cluster && inst.id == q.instance;
  return inst.fn->queue == q.cluster && inst.loc.host == q.host;
}

Queue& ControlPlane::node_queue(Queue& cluster, int host) {
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

void ControlPlane::schedule_reroute() {
  if (config_.dispatch_scope == DispatchScope::kCluster || reroute_.pending()) return;
  // Deferred: stop() and terminate() may run inside a unit's callback.
  reroute_ = sim_.schedule_in(Time::zero(), [this] { reroute_stranded(); });
}

void ControlPlane::reroute_stranded() {
  // A node queue whose node no longer has a routable instance of its group would strand its
  // requests: they go back through the gateway, in arrival order.
  std::vector<Queue*> touched;  // in first-touch order, so that pumping is deterministic
  for (std::size_t k = 0; k < node_queues_.size(); ++k) {
    Queue& nq = *node_queues_[k];
    if (nq.requests.empty()) continue;
    bool hosted = false;
    if (nq.instance != 0) {
      const Inst* i = find(nq.instance);
      hosted = i != nullptr && instance_routable(*i);
    } else {
      for (const Fn* f : nq.members) {
        for (const InstanceId id : f->instances) {
          const auto it = instances_.find(id);
          hosted = hosted || (it != instances_.end() && routable(*it->second) &&
                              it->second->loc.host == nq.host);
        }
      }
    }
    if (hosted) continue;
    std::vector<std::size_t> all(nq.requests.size());
    for (std::size_t i = 0; i < all.size(); ++i)
      all[i] = i;
    for (Request& r : nq.requests.take(all)) {
      Queue& to = route(*nq.cluster, nq.instance != 0 ? -1 : nq.host);
      const policy::QueuedRequest v{
          r.id, r.arrival.time, r.arrival.cls, r.arrival.application, r.arrival.slo, r.timeout};
      to.requests.push_back(std::move(r), v);
      if (std::find(touched.begin(), touched.end(), &to) == touched.end()) touched.push_back(&to);
    }
  }
  for (Queue* q : touched)
    pump(*q);
}

bool ControlPlane::share_backlog(Queue& own, const Inst& inst) {
  // The longest queue of the group at another node none of whose instances is idle (ties to
  // the lower host): its requests would otherwise wait there while `inst` stays idle.
  Queue* from = nullptr;
  for (auto& [host, q] : own.cluster->nodes) {
    if (host == own.host || !q || q->requests.empty()) continue;
    bool idle_there = false;
    for (const InstanceId id : q->idle) {
      const Inst* i = find(id);
      idle_there = idle_there || (i != nullptr && i->life.state() == InstanceState::kIdle);
    }
    if (idle_there) continue;
    if (from == nullptr || q->requests.size() > from->requests.size()) from = q.get();
  }
  if (from == nullptr) return false;
  const std::size_t n =
      std::min(from->requests.size(), static_cast<std::size_t>(std::max(1, inst.config.max_batch)));
  std::vector<std::size_t> oldest(n);
  for (std::size_t i = 0; i < n; ++i)
    oldest[i] = i;
  for (Request& r : from->requests.take(oldest)) {
    const policy::QueuedRequest v{
        r.id, r.arrival.time, r.arrival.cls, r.arrival.application, r.arrival.slo, r.timeout};
    own.requests.push_back(std::move(r), v);
  }
  return true;
}

std::optional<int> ControlPlane::scan_idle(Queue& q) {
  // Drop the ids that are no longer dispatchable, keeping the others in order, and find the
  // largest batch an idle instance on an available host takes.
  int max_batch = 0;
  bool any = false;
  bool short_of_memory = false;
  std::size_t kept = 0;
  for (const InstanceId id : q.idle) {
    Inst* i = find(id);
    if (i == nullptr || i->life.state() != InstanceState::kIdle || i->held) continue;
    q.idle[kept++] = id;
    if (!fleet_->host(i->loc.host).available) continue;
    if (!activations_fit(*i)) {
      // Offered again when a batch releases memory (batch_finished); never over-committed.
      short_of_memory = true;
      i->short_of_memory = true;
      continue;
    }
    if (i->short_of_memory) {
      i->short_of_memory = false;
      i->memory_ready_at = sim_.now();
    }
    any = true;
    max_batch = std::max(max_batch, i->config.max_batch);
  }
  q.idle.resize(kept);
  if (!any && short_of_memory && config_.evict_idle == EvictIdle::kLeastRecentlyUsed) {
    // No idle instance can take a batch: idle containers of other functions make room for
    // the first one (in the queue's order) where evicting some of them is enough.
    for (const InstanceId id : q.idle) {
      Inst* i = find(id);
      if (!i->short_of_memory || !fleet_->host(i->loc.host).available) continue;
      if (!evict_for_activations(*i)) continue;
      i->short_of_memory = false;
      i->memory_ready_at = sim_.now();
      any = true;
      max_batch = i->config.max_batch;
      break;
    }
  }
  if (short_of_memory &&
      std::find(memory_waiting_.begin(), memory_waiting_.end(), &q) == memory_waiting_.end()) {
    memory_waiting_.push_back(&q);
  }
  if (!any) {
    if (short_of_memory) accounting_.waited_for_memory();
    return std::nullopt;
  }
  return max_batch;
}

void ControlPlane::pump(Queue& q) {
  // The batcher sees at most this many of the oldest requests, so that a long backlog does
  // not make every dispatch cost O(queue).
  constexpr std::size_t kBatcherWindow = 4096;
  std::vector<policy::InstanceView> idle;
  const std::uint32_t fid = q.members.front()->id;
  while (!q.requests.empty()) {
    // The dispatcher's views are built below only if the batcher takes a batch: most
    // arrivals join a partial batch, and building a view of every idle instance for them was
    // most of a dispatch's cost.
    std::optional<int> max_batch;
    if (q.dispatchable) {
      if (q.dispatchable->epoch != dispatchable_epoch_) resync_idle_set(q);
#ifndef NDEBUG
      check_idle_set(q);
#endif
      if (q.dispatchable->members != 0) max_batch = q.dispatchable->batch_sizes.largest();
    } else {
      max_batch = scan_idle(q);
    }
    if (!max_batch) return;
    const std::size_t n = std::min(q.requests.size(), kBatcherWindow);
    const auto qv = q.requests.window(n);
    const policy::BatchQueueView bv{sim_.now(), fid, *max_batch, qv};
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
    std::optional<InstanceId> chosen;
    if (q.dispatchable) {
      chosen = q.dispatchable->set->choose({sim_.now(), fid, {}, qv, decision.take, nullptr});
    } else {
      // The batcher changed nothing: the instances of q.idle on available hosts whose
      // activations fit are exactly the dispatchable ones found above.
      idle.clear();
      idle.reserve(q.idle.size());
      for (const InstanceId id : q.idle) {
        const Inst* i = find(id);
        if (fleet_->host(i->loc.host).available && activations_fit(*i)) {
          idle.push_back(instance_view(*i));
        }
      }
      // The control plane's own view, read in place: copying it per batch was a tenth of a
      // Protean run. choose() cannot reach the control plane, so nothing refreshes it meanwhile.
      const policy::PlatformView* pv =
          policies_.dispatcher->wants_platform_view() ? &current_view() : nullptr;
      const policy::DispatchView dv{sim_.now(), fid, idle, qv, decision.take, pv};
      chosen = policies_.dispatcher->choose(dv);
    }
    if (!chosen) return;
    Inst* inst = find(*chosen);
    if (inst != nullptr) prefetch_batch_state(*inst);  // run_batch reads it next
    if (inst == nullptr || !serves(*inst, q) || inst->life.state() != InstanceState::kIdle) {
      ++counts_.rejected["dispatch"];
      return;
    }
    // What the batch's start touches after the bookkeeping below (run_batch, the unit's
    // submit), requested now that the instance's lines are here.
    if (inst->unit != nullptr) inst->unit->prefetch();
    if (inst->gpu != nullptr) inst->gpu->prefetch_batch_counters();
    // Validate the batch: indices in range, no repeats, at most the instance's batch size.
    // Member scratch (no call in between can re-enter pump): a dispatch allocates nothing.
    auto& taken = pump_taken_;
    auto& order = pump_order_;
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
    std::vector<Request> batch;
    if (!spare_batches_.empty()) {
      batch = std::move(spare_batches_.back());
      spare_batches_.pop_back();
    }
    q.requests.take_into(order, batch);
    for (const Request& r : batch) {
      Fn& rf = *fns_[r.arrival.function];
      --rf.queued;
      Time since = r.arrival.time;
      const auto again = requeued_at_.empty() ? requeued_at_.end() : requeued_at_.find(r.id);
      if (again == requeued_at_.end()) {
        ++rf.dequeued;
      } else {
        // Requeued after a revocation cut its batch: counted at its first dequeue; its wait
        // adds the time since it came back, not since its arrival again.
        since = again->second;
        requeued_at_.erase(again);
      }
      rf.dequeued_wait_s += (sim_.now() - since).to_seconds();
    }
    run_batch(*inst, std::move(batch));
  }
}

void ControlPlane::run_batch(Inst& inst, std::vector<Request> batch) {
  const Time now = sim_.now();
  if (inst.fn->queue->dispatchable) leave_idle_set(*inst.fn->queue, inst);
  // An idle instance's only timer is its keep-alive (no cold-start stage is pending once it
  // is ready): cancelling it touches the instance alone, not the event queue.
  assert(!inst.timer.pending());
  keep_alive_timers_.cancel(inst.keep_alive);
  transition(inst, InstanceEvent::kDispatched, now);
  inst.dispatch = now;
  // Available to its queue since it became idle, or since its activations fitted again after
  // a memory wait (records.cpp: the time before is queueing, not batching).
  const Time avail = std::max(inst.life.idle_since(), inst.memory_ready_at);
  inst.batch_serial = next_batch_++;
  running_requests_ += batch.size();
  ++batches_;
  stats_.batch_started(inst, now, batch.size());
  const BatchTimes times{now,
                         avail,
                         inst.life.ready_at(),
                         {},
                         {},
                         static_cast<std::uint32_t>(batch.size()),
                         inst.device,
                         inst.loc.slice};
  if (inst.pipeline != 0 || inst.pipeline_latency_s > 0) {
    pipelines_->run(inst, std::move(batch), times);  // a pipelined partitioned replica's head
    return;
  }
  if (inst.gpu != nullptr) {
    auto& g = *inst.gpu;
    g.batch_started(now);
    if (inst.activation_gb > 0) {
      // pump() offered only instances whose activations fit, so hold() cannot fail here.
      if (!g.hold(inst.loc.slice, inst.activation_gb)) {
        throw std::logic_error("a batch started without room for its activations");
      }
      inst.holds_activations = true;
      accounting_.activations_changed(now, inst.activation_gb);
    }
  }
  recycle(unit_runner_.run(inst, std::move(batch), times));
}

void ControlPlane::recycle(std::vector<Request> batch) {
  // A few suffice (dispatches and completions alternate), and only small ones: a running
  // batch in a reused vector keeps its capacity, and recycling any cost 12 MB of peak memory
  // in the INFless §5.3 run (~10,500 instances).
  if (spare_batches_.size() < kSpareBatches && batch.capacity() > 0 &&
      batch.capacity() <= kSpareCapacity) {
    batch.clear();
    spare_batches_.push_back(std::move(batch));
  }
}

Inst& ControlPlane::running(InstanceId id, std::uint64_t serial) {
  Inst* inst = find(id);
  if (inst != nullptr) prefetch_batch_state(*inst);  // batch_finished reads it next
  if (inst == nullptr || inst->batch_serial != serial) {
    throw std::logic_error("batch completion for an unknown instance");
  }
  // batch_finished reads these after the batch's records: their misses overlap that work
  // instead of following it (the instance's lines have just arrived).
  if (inst->gpu != nullptr) inst->gpu->prefetch_batch_counters();
  __builtin_prefetch(&fleet_->host(inst->loc.host).available);
  return *inst;
}

void ControlPlane::batch_finished(FinishedBatch b) {
  Inst* inst = nullptr;
  if (b.unit) {
    inst = find(b.instance);
    if (inst == nullptr || inst->batch_serial != b.serial) {
      throw std::logic_error("batch completion for an unknown instance");
    }
  }
  // b.held is read here only: became_idle() below may give the instance its next batch.
  const std::span<const Request> served = b.requests();
  for (const Request& q : served) {
    ++completed_;
    context_.record(served_record(q, b.times));
  }
  running_requests_ -= served.size();
  const std::size_t requests = served.size();
  // The batch's storage serves a later dispatch (its requests are trivially destructible).
  recycle(std::move(b.storage));
  // A pipeline's batch: its head was freed when its first part passed the batch on.
  if (!b.unit) return;
  const Time now = sim_.now();
  cluster::Host& host = fleet_->host(inst->loc.host);
  if (inst->batch_cut) {
    // Cut at its host's revocation (cut_batch), which ended the batch then.
    inst->batch_cut = false;
  } else {
    stats_.batch_finished(*inst, *b.unit, requests);
    if (inst->gpu != nullptr) inst->gpu->batch_finished(now);
    ++inst->batches;
  }
  const bool released = inst->holds_activations;
  release_activations(*inst);
  transition(*inst, InstanceEvent::kBatchDone, now);  // after ++batches: the view's both
  if (inst->stop_after_batch || !host.available) {
    terminate(*inst);
  } else {
    became_idle(*inst);
  }
  if (released) pump_memory_waiting();
}

bool ControlPlane::activations_fit(const Inst& inst) const {
  if (inst.activation_gb <= 0 || inst.loc.gpu < 0) return true;
  // Its own device (Inst::gpu, set wherever loc.gpu >= 0), not a walk from the host: this
  // runs for every idle instance on every arrival of a queue without idle sets.
  const auto& g = inst.gpu != nullptr
                      ? *inst.gpu
                      : *fleet_->host(inst.loc.host).gpus[static_cast<std::size_t>(inst.loc.gpu)];
  // The tolerance of GpuDevice::hold().
  return g.place_memory_gb(inst.loc.slice) - g.reserved_gb(inst.loc.slice) + 1e-9 >=
         inst.activation_gb;
}

void ControlPlane::release_activations(Inst& inst) {
  if (!inst.holds_activations) return;
  inst.holds_activations = false;
  fleet_->host(inst.loc.host)
      .gpus[static_cast<std::size_t>(inst.loc.gpu)]
      ->unhold(inst.loc.slice, inst.activation_gb);
  accounting_.activations_changed(sim_.now(), -inst.activation_gb);
}

void ControlPlane::pump_memory_waiting() {
  std::vector<Queue*> waiting;
  waiting.swap(memory_waiting_);
  for (Queue* q : waiting)
    pump(*q);  // a queue still short of memory adds itself again
}

}  // namespace sim::platform::serverless
