#pragma once
/// INFless Algorithm 1 (Schedule): greedy, largest batch first, configuration and server by
/// the resource efficiency of eq. (10); the residual rate is reduced by each new instance's
/// r_up until it is covered.

#include <vector>

#include "configuration_space.hpp"
#include "sim/policy/decisions.hpp"
#include "sim/policy/platform_view.hpp"

namespace sim::policy::infless {

struct GpuSlot {
  int gpu = 0;
  bool usable = true;         ///< MPS, not MIG, not reconfiguring
  double share_free = 1.0;    ///< 1 - SM shares of operator-profile instances on it
  double memory_free_gb = 0;  ///< GPU memory not reserved
};

/// What Algorithm 1 knows about server j: its free CPU threads and GPU SM shares (M).
struct ServerState {
  int host = 0;
  double cores_free = 0.0;
  double memory_free_bytes = 0.0;
  std::vector<GpuSlot> gpus;
  /// beta C_j + G_j with C_j the free threads and G_j the free SM percent of all its GPUs.
  [[nodiscard]] double available(double beta) const;
};

/// The available servers of the view with the SM shares of its live operator-profile
/// instances subtracted (the view gives free cores and memory; SM shares come from instances).
std::vector<ServerState> servers_of(const PlatformView& view);

struct ScheduleOptions {
  std::vector<int> batches;  ///< B, descending
  double t_slo_s = 0.2;
  double beta = 0.45;
  /// false: the RS ablation (Fig. 11): take the configuration with the maximum throughput and
  /// the first server it fits on, ignoring eq. (10)'s server term (the fragment).
  bool resource_scheduling = true;
  /// The RS ablation's "maximum throughput": true, per unified resource (r_up / (beta c + g),
  /// the paper's throughput of Figs. 12 and 18); false, r_up itself.
  bool rs_off_per_resource = true;
  int max_instances = 1000000;  ///< a safety bound on one call
  double model_bytes = 0.0;
  double device_memory_gb = 0.0;
};

struct PlacedInstance {
  Configuration config;
  Location location;
};

/// Where configuration `c` fits on server `s` (GPU: the fullest one with room, best fit), or
/// gpu = -1 when it does not.
int gpu_for(const ServerState& s, const Configuration& c, const ScheduleOptions& o);

/// Books the instance's resources on the server.
void book(ServerState& s, int gpu_slot, const Configuration& c, const ScheduleOptions& o);

/// The baselines' placement (INFless §5.1: they have no resource scheduling): up to `count`
/// instances of `c` for `function`, each on the first server (in index order) with room,
/// booked on `servers` and appended to `out`. Returns how many were placed; it stops at the
/// first that fits nowhere.
int place_first_fit(std::uint32_t function, const Configuration& c, const ScheduleOptions& o,
                    int count, std::vector<ServerState>& servers, std::vector<StartInstance>& out);

/// INFless Algorithm 1: instances covering `residual_rps`, in launch order. `servers` is
/// updated with every placement (lines 13-14).
std::vector<PlacedInstance> schedule(double residual_rps, const ScheduleOptions& options,
                                     const LatencyPredictor& predictor,
                                     std::vector<ServerState>& servers);

/// The InstanceConfig of an operator-profile instance with this configuration.
InstanceConfig instance_config(const Configuration& c);

}  // namespace sim::policy::infless
