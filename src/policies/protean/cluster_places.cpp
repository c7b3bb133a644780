#include "cluster_places.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "reconfiguration_planner.hpp"

namespace sim::policy::protean {

bool is_strict(const FunctionView& f) {
  return f.arrivals == 0 || 2 * f.strict_arrivals >= f.arrivals;
}

double rdf_on(const FunctionView& f, const std::string& profile) {
  if (profile.empty()) return 1.0;
  const auto it = f.rdf.find(profile);
  return it != f.rdf.end() ? it->second : 1.0;
}

namespace {

// n_r's arrival term (§4.2): the arrival rate (first rate window) over one 7g batch or one
// monitor interval.
double requests_to_come(const FunctionView& f, ContainerCount count, double interval_s) {
  const double rate = f.arrival_rate.empty() ? 0.0 : f.arrival_rate.front();
  return rate * (count == ContainerCount::kInFlight ? f.batch_latency_s : interval_s);
}

// Whether n_r counts the requests already queued (every reading but kIntervalArrivals).
bool counts_queue(ContainerCount count) {
  return count != ContainerCount::kIntervalArrivals;
}

}  // namespace

int containers_needed(const FunctionView& f, ContainerCount count, double interval_s, int nodes) {
  const double queued = counts_queue(count) ? static_cast<double>(f.queue_length) : 0.0;
  const double n_r = requests_to_come(f, count, interval_s) + queued;
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
  worker_hosts(view, out);
  return out;
}

void worker_hosts(const PlatformView& view, std::vector<int>& out) {
  out.clear();
  for (const auto& h : view.hosts)
    if (h.available && !h.gpus.empty()) out.push_back(h.index);
  std::sort(out.begin(), out.end());
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
  // Under kIntervalArrivals no queue is counted: the pool is the arrivals alone and a node's
  // backlog adds nothing there (at_node stays empty).
  const bool queue = counts_queue(count);
  const double pool =
      requests_to_come(f, count, interval_s) +
      (queue ? static_cast<double>(f.queue_length - std::min(held, f.queue_length)) : 0.0);
  const double batch = std::max(1, f.config.max_batch);
  const int k = std::max(1, std::min(nodes, static_cast<int>(std::ceil(pool - 1e-9))));
  const double share = pool / k;
  const int for_share = static_cast<int>(std::ceil(share / batch - 1e-9));
  need.anywhere = k * for_share;
  for (const auto& [h, q] : f.node_queues) {
    if (!queue || !std::binary_search(workers.begin(), workers.end(), h)) continue;
    const int at =
        static_cast<int>(std::ceil((share + static_cast<double>(q)) / batch - 1e-9)) - for_share;
    if (at > 0) need.at_node[h] = at;
  }
  return need;
}

std::vector<Place> cluster_places(const PlatformView& view, LoadScope scope, const GpuSet& excluded,
                                  AdmissionMemory memory) {
  std::vector<Place> out;
  PlaceScratch scratch;
  cluster_places(view, scope, excluded, out, scratch, memory);
  return out;
}

namespace {

// Lays out every GPU's slots (scratch's flat index) and returns the number of slots.
std::size_t lay_out_slots(const PlatformView& view, PlaceScratch& s) {
  constexpr std::size_t kNone = PlaceScratch::kNone;
  s.host_at.clear();
  s.gpu_begin.clear();
  s.slot_begin.clear();
  s.mig.clear();
  std::size_t slots = 0;
  for (std::size_t k = 0; k < view.hosts.size(); ++k) {
    const auto& h = view.hosts[k];
    // Host indices are distinct (the platform's are positions); were one repeated, the
    // instances there would count on its last host.
    if (h.index >= 0) {
      const auto hi = static_cast<std::size_t>(h.index);
      if (s.host_at.size() <= hi) s.host_at.resize(hi + 1, kNone);
      s.host_at[hi] = k;
    }
    s.gpu_begin.push_back(s.slot_begin.size());
    for (const GpuView& gv : h.gpus) {
      s.slot_begin.push_back(slots);
      s.mig.push_back(gv.mig ? 1 : 0);
      slots += gv.mig ? gv.slices.size() : 1;
    }
  }
  s.gpu_begin.push_back(s.slot_begin.size());
  s.slot_begin.push_back(slots);
  return slots;
}

// Fills `p`'s fields from a place's view, reusing p's string.
void fill_place(Place& p, Location at, const std::string& profile, bool exclusive, int instances,
                double memory_gb, double memory_free_gb, double load_free_gb, double resident_gb,
                double activation_room_gb) {
  p.location = at;
  if (p.profile != profile || p.compute_slices == 0) {
    p.profile = profile;
    p.compute_slices = profile_compute_slices(profile);
  }
  p.exclusive = exclusive;
  p.instances = instances;
  p.load = SliceLoad{};
  p.load.memory_gb = memory_gb;
  p.load.memory_free_gb = load_free_gb;
  p.platform_free_gb = memory_free_gb;
  p.resident_gb = resident_gb;
  p.activation_room_gb = activation_room_gb;
}

}  // namespace

std::size_t place_at(const PlaceScratch& s, const Location& l) {
  constexpr std::size_t kNone = PlaceScratch::kNone;
  if (l.host < 0 || static_cast<std::size_t>(l.host) >= s.host_at.size()) return kNone;
  const std::size_t h = s.host_at[static_cast<std::size_t>(l.host)];
  if (h == kNone || l.gpu < 0) return kNone;
  const std::size_t g = s.gpu_begin[h] + static_cast<std::size_t>(l.gpu);
  if (g >= s.gpu_begin[h + 1]) return kNone;
  const std::size_t first = s.slot_begin[g];
  const std::size_t n = s.slot_begin[g + 1] - first;
  if (s.mig[g] == 0) return l.slice == -1 ? s.place[first] : kNone;
  if (l.slice < 0 || static_cast<std::size_t>(l.slice) >= n) return kNone;
  return s.place[first + static_cast<std::size_t>(l.slice)];
}

void cluster_places(const PlatformView& view, LoadScope scope, const GpuSet& excluded,
                    std::vector<Place>& out, PlaceScratch& scratch, AdmissionMemory memory) {
  // The view's free memory is what the platform holds: every live container's resident
  // memory (its weights, or its footprint under batch-footprint) and the running batches'
  // activations. kBusy and kLive under kPlatform take it as it is; kLive under kBatchFootprint
  // gives back the activations held and charges every live container's batch (see
  // AdmissionMemory).
  const bool charge_batches =
      scope == LoadScope::kLive && memory == AdmissionMemory::kBatchFootprint;
  auto live_free = [&](double free_gb, double activations_gb) {
    return charge_batches ? free_gb + activations_gb : free_gb;
  };
  static const std::string kWholeGpu;
  scratch.place.assign(lay_out_slots(view, scratch), PlaceScratch::kNone);
  std::size_t n = 0;
  auto next = [&](std::size_t slot) -> Place& {
    if (n == out.size()) out.emplace_back();
    scratch.place[slot] = n;
    return out[n++];
  };
  for (std::size_t k = 0; k < view.hosts.size(); ++k) {
    const auto& h = view.hosts[k];
    if (!h.available) continue;
    for (std::size_t g = 0; g < h.gpus.size(); ++g) {
      const GpuView& gv = h.gpus[g];
      const int gi = static_cast<int>(g);
      if (gv.reconfiguring || (!excluded.empty() && excluded.count({h.index, gi}) > 0)) continue;
      const bool exclusive = gv.sharing == GpuSharing::kExclusive;
      const std::size_t first = scratch.slot_begin[scratch.gpu_begin[k] + g];
      if (!gv.mig) {
        fill_place(next(first), {h.index, gi, -1}, kWholeGpu, exclusive, gv.instances, gv.memory_gb,
                   gv.memory_free_gb, live_free(gv.memory_free_gb, gv.activations_gb),
                   gv.resident_gb, gv.activation_room_gb);
        continue;
      }
      for (std::size_t s = 0; s < gv.slices.size(); ++s) {
        const SliceView& sv = gv.slices[s];
        if (!sv.enabled) continue;
        fill_place(next(first + s), {h.index, gi, static_cast<int>(s)}, sv.profile, exclusive,
                   sv.instances, sv.memory_gb, sv.memory_free_gb,
                   live_free(sv.memory_free_gb, sv.activations_gb), sv.resident_gb,
                   sv.activation_room_gb);
      }
    }
  }
  out.resize(n);
  for (const auto& i : view.instances) {
    if (i.state == InstanceState::kTerminated) continue;
    const bool running = i.state == InstanceState::kBusy || i.state == InstanceState::kDraining;
    if (scope == LoadScope::kBusy && !running) continue;
    const std::size_t p = place_at(scratch, i.location);
    if (p == PlaceScratch::kNone) continue;
    const FunctionView* f = view.function(i.function);
    if (f == nullptr) continue;
    SliceLoad& load = out[p].load;
    (is_strict(*f) ? load.strict_fbr : load.best_effort_fbr) += f->fbr;
    // kLive under kBatchFootprint: each container counts at its footprint (the resident part
    // is already out of the view's free memory, the activations of its batch, running or to
    // come, are taken here).
    if (charge_batches) load.memory_free_gb -= f->activation_gb;
  }
}

void tag_places(std::vector<Place>& places, const PlatformView& view, ContainerCount count,
                double interval_s, ContainerScope scope, SliceOrder by) {
  PlaceScratch scratch;
  tag_places(places, view, count, interval_s, scope, scratch, by);
}

void tag_places(std::vector<Place>& places, const PlatformView& view, ContainerCount count,
                double interval_s, ContainerScope scope, PlaceScratch& scratch, SliceOrder by) {
  double be_mem = 0.0;
  double be_fbr = 0.0;
  worker_hosts(view, scratch.workers);
  for (const auto& f : view.functions) {
    if (!f.gpu || is_strict(f)) continue;
    const int n = container_need(f, count, interval_s, scope, scratch.workers).total();
    be_mem += n * f.device_memory_gb;
    be_fbr += n * f.fbr;
  }
  auto& order = scratch.order;
  ascending_order(places, order, by);
  scratch.rank.resize(order.size());
  for (std::size_t r = 0; r < order.size(); ++r)
    scratch.rank[order[r]] = r;
  if (places.empty() || be_mem <= 0) return;
  // The places by GPU (host, then GPU), each GPU's in ascending order: a map by GPU of the
  // places taken in ascending order, flat.
  auto& by_gpu = scratch.by_gpu;
  by_gpu.assign(order.begin(), order.end());
  std::sort(by_gpu.begin(), by_gpu.end(), [&](std::size_t a, std::size_t b) {
    const Location& la = places[a].location;
    const Location& lb = places[b].location;
    if (la.host != lb.host) return la.host < lb.host;
    if (la.gpu != lb.gpu) return la.gpu < lb.gpu;
    return scratch.rank[a] < scratch.rank[b];
  });
  std::size_t gpus = 0;
  for (std::size_t k = 0; k < by_gpu.size(); ++k) {
    const Location& l = places[by_gpu[k]].location;
    const Location* prev = k > 0 ? &places[by_gpu[k - 1]].location : nullptr;
    if (prev == nullptr || prev->host != l.host || prev->gpu != l.gpu) ++gpus;
  }
  const double per_gpu = be_mem / static_cast<double>(gpus);
  const double fbr_per_gb = be_fbr / be_mem;
  for (std::size_t begin = 0; begin < by_gpu.size();) {
    const Location& first = places[by_gpu[begin]].location;
    std::size_t end = begin + 1;
    while (end < by_gpu.size() && places[by_gpu[end]].location.host == first.host &&
           places[by_gpu[end]].location.gpu == first.gpu)
      ++end;
    // Algorithm 1 lines 2-8 over this GPU's places (tag_slices, without its vectors).
    double left = per_gpu;
    for (std::size_t k = begin; k < end; ++k) {
      SliceLoad& l = places[by_gpu[k]].load;
      double tag = 0.0;
      if (!(left <= 0)) {  // line 8: stop once no BE memory is left
        const double available = l.memory_gb;
        tag = available > 0 ? std::min(1.0, left / available) : 1.0;
        left = std::max(0.0, left - available);
      }
      l.tag = tag;
      l.tagged_best_effort_fbr = tag * l.memory_gb * fbr_per_gb;
    }
    begin = end;
  }
}

std::vector<std::size_t> ascending_order(const std::vector<Place>& places, SliceOrder by) {
  std::vector<std::size_t> order;
  ascending_order(places, order, by);
  return order;
}

void ascending_order(const std::vector<Place>& places, std::vector<std::size_t>& order,
                     SliceOrder by) {
  order.resize(places.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  // "Ascending order of resources" (§4.3): memory first, then (kMemoryThenCompute) the
  // compute slices, then the index (places are in location order), without the temporary
  // buffer std::stable_sort allocates.
  const bool compute = by == SliceOrder::kMemoryThenCompute;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const double ma = places[a].load.memory_gb;
    const double mb = places[b].load.memory_gb;
    if (ma < mb) return true;
    if (mb < ma) return false;
    if (compute && places[a].compute_slices != places[b].compute_slices)
      return places[a].compute_slices < places[b].compute_slices;
    return a < b;
  });
}

}  // namespace sim::policy::protean
