// Per-instance dispatch (DispatchScope::kInstance): the gateway sends each arrival to one ready
// instance of its queue group, and the request waits in that instance's own queue, as
// OpenFaaS's gateway proxies a request to one replica of the function and the replica serves
// what it was sent (a platform without a batch-aware dispatcher). Requests that
// arrive while no instance is ready wait in the cluster-wide queue (the gateway holds them),
// which an instance drains first when it becomes idle (became_idle). A request in the queue of
// an instance that stops is routed again (reroute_stranded).

#include <algorithm>

#include "control_plane.hpp"

namespace sim::platform::serverless {

// Kubernetes routes a service's traffic to its ready endpoints only: not to a pod that is
// still starting, nor to one that is terminating (a draining instance finishes its batch).
bool ControlPlane::instance_routable(const Inst& inst) const {
  const bool ready =
      inst.life.state() == InstanceState::kIdle || inst.life.state() == InstanceState::kBusy;
  return ready && !inst.stop_after_batch && inst.part() <= 0 &&
         fleet_->host(inst.loc.host).available;
}

Queue& ControlPlane::instance_queue(Queue& cluster, const Inst& inst) {
  auto& slot = cluster.replicas[inst.id];
  if (!slot) {
    slot = std::make_unique<Queue>();
    slot->members = cluster.members;
    slot->host = inst.loc.host;
    slot->instance = inst.id;
    slot->cluster = &cluster;
    node_queues_.push_back(slot.get());
  }
  return *slot;
}

Queue& ControlPlane::route_instance(Queue& cluster) {
  // The group's ready instances, member by member and each member's in id order (a queue
  // group's members are few), counted first and then walked to the chosen one: this runs on
  // every arrival.
  const auto for_each_ready = [&](auto&& visit) {
    for (const Fn* f : cluster.members) {
      for (const InstanceId id : f->instances) {
        const Inst* i = find(id);
        if (i != nullptr && instance_routable(*i) && !visit(*i)) return;
      }
    }
  };
  std::size_t ready = 0;
  for_each_ready([&](const Inst&) { return ++ready, true; });
  if (ready == 0) return cluster;
  const Inst* chosen = nullptr;
  if (config_.gateway == GatewayRoute::kRoundRobin) {
    std::size_t k = cluster.next++ % ready;
    for_each_ready([&](const Inst& i) {
      if (k-- > 0) return true;
      chosen = &i;
      return false;
    });
  } else {
    // Least loaded: queued requests plus the batch running; ties to the lower id.
    std::size_t best = 0;
    for_each_ready([&](const Inst& i) {
      const auto q = cluster.replicas.find(i.id);
      const std::size_t load = (q == cluster.replicas.end() ? 0 : q->second->requests.size()) +
                               (i.life.state() == InstanceState::kBusy ? 1 : 0);
      if (chosen == nullptr || load < best) {
        best = load;
        chosen = &i;
      }
      return true;
    });
  }
  return instance_queue(cluster, *chosen);
}

std::size_t ControlPlane::instance_queues() const {
  std::size_t n = 0;
  for (const auto& q : queues_)
    n += q->replicas.size();
  return n;
}

// What refers to a replica's queue: its cluster queue's `replicas` (the owner), node_queues_,
// memory_waiting_, its pending `wake` event, and, within one event only, the locals of
// pump(), reroute_stranded() and pump_memory_waiting(). This runs from tick(), an event of its
// own, so none of those locals is alive. A queue is freed once
//  - its replica has ended (find() is null): nothing creates its queue again, since
//    instance_queue() is reached only for a live instance (became_idle, route_instance);
//  - it is empty: reroute_stranded() (scheduled by stop() and terminate()) has sent its
//    requests back through the gateway; a queue still holding some waits for a later tick;
//  - its wake is not pending: the event captures the queue's address. Not cancelled, since a
//    cancelled event would change the run's event count; it fires on an empty queue (pump()
//    does nothing) and the queue goes at a later tick.
// Dropping it from node_queues_ and memory_waiting_ changes no behaviour: both are walked
// only to pump queues or count requests, and an empty queue has none. The other queues keep
// their order.
void ControlPlane::free_ended_queues() {
  if (config_.dispatch_scope != DispatchScope::kInstance) return;
  std::size_t kept = 0;
  for (std::size_t k = 0; k < node_queues_.size(); ++k) {
    Queue* q = node_queues_[k];
    const bool unreachable = q->instance != 0 && find(q->instance) == nullptr &&
                             q->requests.empty() && !q->wake.pending();
    if (!unreachable) {
      node_queues_[kept++] = q;
      continue;
    }
    memory_waiting_.erase(std::remove(memory_waiting_.begin(), memory_waiting_.end(), q),
                          memory_waiting_.end());
    q->cluster->replicas.erase(q->instance);  // frees *q
  }
  node_queues_.resize(kept);
}

}  // namespace sim::platform::serverless
