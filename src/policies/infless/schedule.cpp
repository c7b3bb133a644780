#include "schedule.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "best_server.hpp"
#include "resource_efficiency.hpp"

namespace sim::policy::infless {

namespace {
constexpr double kShareEps = 1e-9;
}

double ServerState::available(double beta) const {
  double g = 0.0;
  for (const GpuSlot& s : gpus)
    if (s.usable) g += 100.0 * s.share_free;
  return unified_resource(cores_free, g, beta);
}

std::vector<ServerState> servers_of(const PlatformView& view) {
  std::vector<ServerState> out;
  for (const HostView& h : view.hosts) {
    if (!h.available) continue;
    ServerState s;
    s.host = h.index;
    s.cores_free = h.cores_free;
    s.memory_free_bytes = h.memory_free_bytes;
    for (std::size_t g = 0; g < h.gpus.size(); ++g) {
      const GpuView& gv = h.gpus[g];
      GpuSlot slot;
      slot.gpu = static_cast<int>(g);
      slot.usable =
          !gv.mig && !gv.reconfiguring && (gv.sharing == GpuSharing::kMps || gv.instances == 0);
      slot.memory_free_gb = gv.memory_free_gb;
      s.gpus.push_back(slot);
    }
    out.push_back(std::move(s));
  }
  // Each GPU's share is reduced by its instances', in the view's order. Servers are found by
  // host index (a host appears once), not by a scan of all servers per instance.
  std::vector<int> at(view.hosts.size(), -1);
  for (std::size_t k = 0; k < out.size(); ++k) {
    const auto h = static_cast<std::size_t>(out[k].host);
    if (h >= at.size()) at.resize(h + 1, -1);
    at[h] = static_cast<int>(k);
  }
  for (const InstanceView& i : view.instances) {
    if (i.config.cpu_threads <= 0 || i.location.gpu < 0 || i.location.host < 0) continue;
    const auto h = static_cast<std::size_t>(i.location.host);
    if (h >= at.size() || at[h] < 0) continue;
    for (GpuSlot& g : out[static_cast<std::size_t>(at[h])].gpus)
      if (g.gpu == i.location.gpu) g.share_free -= i.config.gpu_share;
  }
  for (ServerState& s : out)
    for (GpuSlot& g : s.gpus)
      g.share_free = std::max(0.0, g.share_free);
  return out;
}

int gpu_for(const ServerState& s, const Configuration& c, const ScheduleOptions& o) {
  if (s.cores_free < c.threads || s.memory_free_bytes < o.model_bytes) return -1;
  const double share = c.gpu_percent / 100.0;
  int best = -1;
  for (std::size_t k = 0; k < s.gpus.size(); ++k) {
    const GpuSlot& g = s.gpus[k];
    if (!g.usable || g.share_free + kShareEps < share || g.memory_free_gb < o.device_memory_gb)
      continue;
    // Best fit inside the server: the GPU with the least free share that still fits.
    if (best < 0 || g.share_free < s.gpus[static_cast<std::size_t>(best)].share_free)
      best = static_cast<int>(k);
  }
  return best;
}

void book(ServerState& s, int gpu_slot, const Configuration& c, const ScheduleOptions& o) {
  GpuSlot& g = s.gpus.at(static_cast<std::size_t>(gpu_slot));
  s.cores_free -= c.threads;
  s.memory_free_bytes -= o.model_bytes;
  g.share_free = std::max(0.0, g.share_free - c.gpu_percent / 100.0);
  g.memory_free_gb -= o.device_memory_gb;
}

int place_first_fit(std::uint32_t function, const Configuration& c, const ScheduleOptions& o,
                    int count, std::vector<ServerState>& servers, std::vector<StartInstance>& out) {
  for (int n = 0; n < count; ++n) {
    bool placed = false;
    for (ServerState& s : servers) {
      const int g = gpu_for(s, c, o);
      if (g < 0) continue;
      book(s, g, c, o);
      out.push_back({function, 1, instance_config(c),
                     Location{s.host, s.gpus[static_cast<std::size_t>(g)].gpu, -1}});
      placed = true;
      break;
    }
    if (!placed) return n;
  }
  return count;
}

InstanceConfig instance_config(const Configuration& c) {
  InstanceConfig ic;
  ic.max_batch = c.batch;
  ic.cpu_threads = c.threads;
  ic.gpu_share = c.gpu_percent / 100.0;
  return ic;
}

std::vector<PlacedInstance> schedule(double residual_rps, const ScheduleOptions& options,
                                     const LatencyPredictor& predictor,
                                     std::vector<ServerState>& servers) {
  std::vector<PlacedInstance> out;
  // Each batch size's configurations, once: they depend on the batch and the SLO only.
  std::vector<std::vector<Configuration>> configs_of;
  configs_of.reserve(options.batches.size());
  // e_max: eq. (10)'s numerator is normalised by the best r_up per unified resource of any
  // profiled configuration of this function at its SLO.
  double e_max = 0.0;
  for (int b : options.batches) {
    configs_of.push_back(configurations(predictor, b, options.t_slo_s));
    for (const Configuration& c : configs_of.back()) {
      const double budget = b == 1 ? options.t_slo_s : options.t_slo_s / 2.0;
      if (c.t_exec_s > budget) continue;
      e_max =
          std::max(e_max, c.bounds.r_up / unified_resource(c.threads, c.gpu_percent, options.beta));
    }
  }
  if (e_max <= 0.0) return out;
  // beta C_j + G_j of each server, in order, kept up to date: a placement books one server.
  std::optional<ServersByAvailable> by_available;
  if (options.resource_scheduling) by_available.emplace(servers, options.beta);
  // INFless Algorithm 1, lines 2-15.
  while (residual_rps > 0.0 && static_cast<int>(out.size()) < options.max_instances) {
    bool placed = false;
    for (std::size_t bi = 0; bi < options.batches.size(); ++bi) {
      const int b = options.batches[bi];
      const auto candidates = available_configs(configs_of[bi], b, residual_rps, options.t_slo_s);
      if (candidates.empty()) continue;  // try the next largest batch size
      std::optional<std::size_t> best_k;
      std::size_t best_j = 0;
      int best_gpu = -1;
      if (options.resource_scheduling) {
        // The largest e_ij; ties go to the first configuration, then the first server.
        if (const auto found = by_available->best(candidates, servers, options, e_max)) {
          best_k = found->config;
          best_j = found->server;
          best_gpu = found->gpu;
        }
      } else {
        // RS ablation (§5.2: "selecting only the resource configuration with the maximum
        // throughput"), on the first server: no fragment term. Throughput per unified
        // resource by default -- the paper's "throughput" of Figs. 12 and 18, and the paper
        // explains RS's share by fragments alone ("their instances generate few resource
        // fragments even without RS") -- or r_up itself.
        const auto score = [&options](const Configuration& c) {
          return options.rs_off_per_resource
                     ? c.bounds.r_up / unified_resource(c.threads, c.gpu_percent, options.beta)
                     : c.bounds.r_up;
        };
        std::size_t k = 0;
        for (std::size_t q = 1; q < candidates.size(); ++q)
          if (score(candidates[q]) > score(candidates[k])) k = q;
        for (std::size_t j = 0; j < servers.size(); ++j) {
          const int g = gpu_for(servers[j], candidates[k], options);
          if (g >= 0) {
            best_k = k;
            best_j = j;
            best_gpu = g;
            break;
          }
        }
      }
      if (!best_k) continue;  // no server has room for this batch size
      const Configuration& c = candidates[*best_k];
      ServerState& s = servers[best_j];
      book(s, best_gpu, c, options);
      if (options.resource_scheduling) by_available->changed(best_j, s);
      out.push_back({c, Location{s.host, s.gpus[static_cast<std::size_t>(best_gpu)].gpu, -1}});
      residual_rps -= c.bounds.r_up;
      placed = true;
      break;  // scale for the rest of R_k, from the largest batch size again
    }
    if (!placed) break;  // nothing fits any more (the paper's loop would spin)
  }
  return out;
}

}  // namespace sim::policy::infless
