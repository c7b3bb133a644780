#include "cluster_places.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>

namespace sim::policy::protean {

bool is_strict(const FunctionView& f) {
  return f.arrivals == 0 || 2 * f.strict_arrivals >= f.arrivals;
}

double rdf_on(const FunctionView& f, const std::string& profile) {
  if (profile.empty()) return 1.0;
  const auto it = f.rdf.find(profile);
  return it != f.rdf.end() ? it->second : 1.0;
}

int containers_needed(const FunctionView& f, ContainerCount count, double interval_s, int nodes) {
  const double rate = f.arrival_rate.empty() ? 0.0 : f.arrival_rate.front();
  const double window = count == ContainerCount::kInFlight ? f.batch_latency_s : interval_s;
  const double n_r = rate * window + static_cast<double>(f.queue_length);
  const int batch = std::max(1, f.config.max_batch);
  // n_c = sum over the nodes forming batches of ceil(n_r,node / batch_size) (§4.2 applied where
  // the batches are formed, §4); a node needs a whole request to form one.
  const int requests = static_cast<int>(std::ceil(n_r - 1e-9));
  const int k = std::max(1, std::min(nodes, requests));
  return k * static_cast<int>(std::ceil(n_r / k / batch - 1e-9));
}

int worker_nodes(const PlatformView& view) {
  return std::max(1, static_cast<int>(worker_hosts(view).size()));
}

std::vector<int> worker_hosts(const PlatformView& view) {
  std::vector<int> out;
  for (const auto& h : view.hosts)
    if (h.available && !h.gpus.empty()) out.push_back(h.index);
  std::sort(out.begin(), out.end());
  return out;
}

int ContainerNeed::total() const {
  int n = anywhere;
  for (const auto& [h, k] : at_node)
    n += k;
  return n;
}

ContainerNeed container_need(const FunctionView& f, ContainerCount count, double interval_s,
                             ContainerScope scope, const std::vector<int>& workers) {
  const int nodes = std::max(1, static_cast<int>(workers.size()));
  ContainerNeed need;
  if (scope != ContainerScope::kNode) {
    need.anywhere =
        containers_needed(f, count, interval_s, scope == ContainerScope::kCluster ? 1 : nodes);
    return need;
  }
  // The queues held by worker nodes; whatever else is queued joins the pool.
  std::size_t held = 0;
  for (const auto& [h, q] : f.node_queues)
    if (std::binary_search(workers.begin(), workers.end(), h)) held += q;
  const double rate = f.arrival_rate.empty() ? 0.0 : f.arrival_rate.front();
  const double window = count == ContainerCount::kInFlight ? f.batch_latency_s : interval_s;
  const double pool =
      rate * window + static_cast<double>(f.queue_length - std::min(held, f.queue_length));
  const double batch = std::max(1, f.config.max_batch);
  const int k = std::max(1, std::min(nodes, static_cast<int>(std::ceil(pool - 1e-9))));
  const double share = pool / k;
  const int for_share = static_cast<int>(std::ceil(share / batch - 1e-9));
  need.anywhere = k * for_share;
  for (const auto& [h, q] : f.node_queues) {
    if (!std::binary_search(workers.begin(), workers.end(), h)) continue;
    const int at =
        static_cast<int>(std::ceil((share + static_cast<double>(q)) / batch - 1e-9)) - for_share;
    if (at > 0) need.at_node[h] = at;
  }
  return need;
}

namespace {

using Key = std::tuple<int, int, int>;

Key key_of(const Location& l) {
  return {l.host, l.gpu, l.slice};
}

}  // namespace

std::vector<Place> cluster_places(const PlatformView& view, LoadScope scope,
                                  const GpuSet& excluded) {
  std::vector<Place> out;
  std::map<Key, std::size_t> index;
  for (const auto& h : view.hosts) {
    if (!h.available) continue;
    for (std::size_t g = 0; g < h.gpus.size(); ++g) {
      const GpuView& gv = h.gpus[g];
      const int gi = static_cast<int>(g);
      if (gv.reconfiguring || excluded.count({h.index, gi}) > 0) continue;
      const bool exclusive = gv.sharing == GpuSharing::kExclusive;
      if (!gv.mig) {
        Place p;
        p.location = {h.index, gi, -1};
        p.exclusive = exclusive;
        p.instances = gv.instances;
        p.load.memory_gb = gv.memory_gb;
        p.load.memory_free_gb =
            scope == LoadScope::kLive ? gv.memory_free_gb + gv.activations_gb : gv.memory_gb;
        p.platform_free_gb = gv.memory_free_gb;
        p.resident_gb = gv.resident_gb;
        p.activation_room_gb = gv.activation_room_gb;
        index[key_of(p.location)] = out.size();
        out.push_back(std::move(p));
        continue;
      }
      for (std::size_t s = 0; s < gv.slices.size(); ++s) {
        const SliceView& sv = gv.slices[s];
        if (!sv.enabled) continue;
        Place p;
        p.location = {h.index, gi, static_cast<int>(s)};
        p.profile = sv.profile;
        p.exclusive = exclusive;
        p.instances = sv.instances;
        p.load.memory_gb = sv.memory_gb;
        p.load.memory_free_gb =
            scope == LoadScope::kLive ? sv.memory_free_gb + sv.activations_gb : sv.memory_gb;
        p.platform_free_gb = sv.memory_free_gb;
        p.resident_gb = sv.resident_gb;
        p.activation_room_gb = sv.activation_room_gb;
        index[key_of(p.location)] = out.size();
        out.push_back(std::move(p));
      }
    }
  }
  for (const auto& i : view.instances) {
    if (i.state == InstanceState::kTerminated) continue;
    const bool running = i.state == InstanceState::kBusy || i.state == InstanceState::kDraining;
    if (scope == LoadScope::kBusy && !running) continue;
    const auto it = index.find(key_of(i.location));
    if (it == index.end()) continue;
    const FunctionView* f = view.function(i.function);
    if (f == nullptr) continue;
    SliceLoad& load = out[it->second].load;
    (is_strict(*f) ? load.strict_fbr : load.best_effort_fbr) += f->fbr;
    // Each container counts at its footprint: the resident part is already out of the view's
    // free memory, the activations of its batch (running or to come) are taken here.
    load.memory_free_gb -= scope == LoadScope::kBusy ? f->device_memory_gb : f->activation_gb;
  }
  return out;
}

void tag_places(std::vector<Place>& places, const PlatformView& view, ContainerCount count,
                double interval_s, ContainerScope scope) {
  double be_mem = 0.0;
  double be_fbr = 0.0;
  const auto workers = worker_hosts(view);
  for (const auto& f : view.functions) {
    if (!f.gpu || is_strict(f)) continue;
    const int n = container_need(f, count, interval_s, scope, workers).total();
    be_mem += n * f.device_memory_gb;
    be_fbr += n * f.fbr;
  }
  std::map<std::pair<int, int>, std::vector<std::size_t>> by_gpu;
  for (const std::size_t i : ascending_order(places))
    by_gpu[{places[i].location.host, places[i].location.gpu}].push_back(i);
  if (by_gpu.empty() || be_mem <= 0) return;
  const double per_gpu = be_mem / static_cast<double>(by_gpu.size());
  const double fbr_per_gb = be_fbr / be_mem;
  for (const auto& [gpu, members] : by_gpu) {
    std::vector<double> memory;
    for (const auto i : members)
      memory.push_back(places[i].load.memory_gb);
    const auto tags = tag_slices(memory, per_gpu);
    for (std::size_t k = 0; k < members.size(); ++k) {
      SliceLoad& l = places[members[k]].load;
      l.tag = tags[k];
      l.tagged_best_effort_fbr = tags[k] * l.memory_gb * fbr_per_gb;
    }
  }
}

std::vector<std::size_t> ascending_order(const std::vector<Place>& places) {
  std::vector<std::size_t> order(places.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return places[a].load.memory_gb < places[b].load.memory_gb;
  });
  return order;
}

}  // namespace sim::policy::protean
