#include "locality.hpp"

#include <algorithm>

namespace sim::policy::flashpoint {

bool host_holds(const HostView& host, const std::string& model) {
  return std::binary_search(host.cached_models.begin(), host.cached_models.end(), model);
}

namespace {

/// The first whole GPU of `host` with room for one more exclusive instance of `f`, or -1.
int free_gpu(const HostView& host, const FunctionView& f) {
  if (!host.available || host.memory_free_bytes < f.model_bytes) return -1;
  for (std::size_t g = 0; g < host.gpus.size(); ++g) {
    const GpuView& gpu = host.gpus[g];
    if (gpu.mig || gpu.reconfiguring) continue;
    if (gpu.sharing == GpuSharing::kExclusive && gpu.instances > 0) continue;
    if (!container_fits(f, gpu)) continue;  // the platform's memory rule
    return static_cast<int>(g);
  }
  return -1;
}

bool has_instance(const PlatformView& view, std::uint32_t function, int host) {
  for (const auto& i : view.instances)
    if (i.function == function && i.location.host == host) return true;
  return false;
}

}  // namespace

// Flashpoint Listing 5.1: stage 1 fills GPUs on hosts that already hold the model (the fastest
// cold start: local memory -> GPU); stage 2 takes one GPU on each host new to the model, which
// primes more hosts for later bursts. The view is updated after every placement, so a host
// primed earlier in this batch has an instance but no copy yet and is skipped by both stages.
std::optional<Location> LocalityPlacement::place(const PlacementRequest& request,
                                                 const PlatformView& view) {
  const FunctionView& f = *request.function;
  for (const auto& h : view.hosts) {
    if (!host_holds(h, f.model)) continue;
    if (const int g = free_gpu(h, f); g >= 0) return Location{h.index, g, -1};
  }
  if (spread_) {
    for (const auto& h : view.hosts) {
      if (host_holds(h, f.model) || has_instance(view, f.id, h.index)) continue;
      if (const int g = free_gpu(h, f); g >= 0) return Location{h.index, g, -1};
    }
  }
  // Nothing left in the stages above (or affinity only): the first GPU with room.
  for (const auto& h : view.hosts)
    if (const int g = free_gpu(h, f); g >= 0) return Location{h.index, g, -1};
  return std::nullopt;
}

SourceChoice HierarchicalSourcing::choose(const SourcingRequest& r) {
  SourceChoice c;
  c.share = config_.share;
  if (r.local_copy && config_.local != Local::kOff) {
    c.kind = SourceKind::kLocalMemory;
    c.host = r.host;
    c.loaded = config_.local == Local::kLoaded;
    return c;
  }
  c.chain = config_.chain;
  const std::vector<int>& senders =
      config_.senders == Senders::kLive ? r.live_hosts : r.remote_hosts;
  if (config_.remote && !senders.empty()) {
    // Senders in turn: receivers spread evenly over the hosts holding the model.
    std::size_t& next = next_sender_[r.model];
    c.kind = SourceKind::kRemoteHost;
    c.host = senders[next % senders.size()];
    c.loaded = config_.remote_loaded;
    ++next;
    return c;
  }
  c.kind = SourceKind::kStore;
  c.host = -1;
  return c;
}

}  // namespace sim::policy::flashpoint
