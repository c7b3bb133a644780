// The gateway under DispatchScope::kNode: which node's queue an arrival joins (round robin or
// least loaded over the nodes hosting a routable instance of its queue group), and the
// per-node counts it reads, kept per group while nothing they depend on changes.

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "control_plane.hpp"

namespace sim::platform::serverless {

void ControlPlane::gateway_counts(const Queue& cluster, int exclude_host,
                                  std::vector<GatewayCount>& hosts) {
  // Hosts with a routable instance of the group, with the execution units hosting those
  // instances and their running batches (by host, ascending). A node's capacity for the group
  // is its distinct execution units, not its instances: containers co-located on one
  // time-sliced or MPS-shared GPU (or MIG slice) share that unit's compute, so n co-running
  // batches each run at about 1/n speed (gpu_models/sharing_model.cpp) and a second container
  // adds no capacity. A unit is a (gpu, slice) pair (slice < 0: the whole GPU); an instance that
  // owns its unit (a CPU instance with its own cores, an INFless operator-profile instance with
  // its own SM share, a cGPU time window) is a unit of its own. Each unit counts 1, whatever its
  // size: see the least-loaded branch of route(). One entry per instance, sorted and merged, in
  // a reused vector rather than a std::map built per call.
  hosts.clear();
  for (const Fn* f : cluster.members) {
    for (const InstanceId id : f->instances) {
      const Inst* i = find(id);
      if (i == nullptr || !routable(*i) || i->loc.host == exclude_host) continue;
      hosts.push_back({i->loc.host, i->loc.gpu, i->loc.slice, i->own_unit ? i->id : 0, 1,
                       i->life.state() == InstanceState::kBusy ? 1 : 0, nullptr});
    }
  }
  std::sort(hosts.begin(), hosts.end(), [](const GatewayCount& a, const GatewayCount& b) {
    return std::tie(a.host, a.gpu, a.slice, a.own) < std::tie(b.host, b.gpu, b.slice, b.own);
  });
  std::size_t merged = 0;
  GatewayCount prev{};  // the previous entry, as sorted (equal units are adjacent)
  for (std::size_t k = 0; k < hosts.size(); ++k) {
    const GatewayCount c = hosts[k];
    if (merged > 0 && hosts[merged - 1].host == c.host) {
      const bool same_unit = prev.gpu == c.gpu && prev.slice == c.slice && prev.own == c.own;
      hosts[merged - 1].n += same_unit ? 0 : 1;
      hosts[merged - 1].busy += c.busy;
    } else {
      hosts[merged++] = c;
    }
    prev = c;
  }
  hosts.resize(merged);
}

std::vector<GatewayCount>& ControlPlane::cached_gateway_counts(Queue& cluster) {
  // The counts depend on the members' instances (their set, states, hosts, units and parts)
  // and on the hosts' availability. A state change moves its function's StateCounts; the rest
  // moves route_epoch_ (routes_changed). Both unmoved: the counts merged last are still exact.
  std::uint64_t changes = 0;
  for (const Fn* f : cluster.members)
    changes += f->states.changes();
  Queue::Gateway& g = cluster.gateway;
  if (g.epoch != route_epoch_ || g.changes != changes) {
    gateway_counts(cluster, -1, g.hosts);
    g.epoch = route_epoch_;
    g.changes = changes;
  }
#ifndef NDEBUG
  gateway_counts(cluster, -1, route_counts_);
  const auto same = [](const GatewayCount& a, const GatewayCount& b) {
    return a.host == b.host && a.n == b.n && a.busy == b.busy;
  };
  if (!std::equal(g.hosts.begin(), g.hosts.end(), route_counts_.begin(), route_counts_.end(),
                  same)) {
    throw std::logic_error("serverless platform: the gateway's cached counts are stale");
  }
#endif
  return g.hosts;
}

Queue& ControlPlane::route(Queue& cluster, int exclude_host) {
  if (config_.dispatch_scope == DispatchScope::kCluster) return cluster;
  if (config_.dispatch_scope == DispatchScope::kInstance) return route_instance(cluster);
  if (exclude_host >= 0) gateway_counts(cluster, exclude_host, route_counts_);
  std::vector<GatewayCount>& hosts =
      exclude_host >= 0 ? route_counts_ : cached_gateway_counts(cluster);
  // No node hosts the function yet: the request waits in the cluster queue, which the first
  // instances to become idle drain before their node's queue.
  if (hosts.empty()) return cluster;
  std::size_t chosen = 0;  // index into hosts
  if (config_.gateway == GatewayRoute::kRoundRobin) {
    chosen = cluster.next++ % hosts.size();
  } else {
    // Least loaded: (queued requests + running batches) per execution unit hosting a routable
    // instance (above); ties to the lower host. Every unit counts 1: the measure counts work
    // items, not seconds, and a node whose units are slower (a smaller MIG slice) builds a
    // longer queue and so receives fewer arrivals. Weighting a unit by its compute share would
    // equalise expected waits instead; docs/reproduction/protean.md ("The least-loaded gateway
    // counts execution units") gives that reading's effect on the Protean scorecard.
    double best = 0.0;
    bool first = true;
    for (std::size_t k = 0; k < hosts.size(); ++k) {
      GatewayCount& c = hosts[k];
      if (c.node == nullptr) {
        const auto q = cluster.nodes.find(c.host);
        if (q != cluster.nodes.end()) c.node = q->second.get();
      }
      const double queued = c.node == nullptr ? 0.0 : static_cast<double>(c.node->requests.size());
      const double load = (queued + c.busy) / static_cast<double>(c.n);
      if (first || load < best) {
        best = load;
        chosen = k;
        first = false;
      }
    }
  }
  GatewayCount& c = hosts[chosen];
  if (c.node == nullptr) c.node = &node_queue(cluster, c.host);
  return *c.node;
}

}  // namespace sim::platform::serverless
