#pragma once
/// Commands policies return as values; the platform checks and applies them (STYLE.md
/// "Policies are small and return decisions as values"). A command the platform cannot apply
/// (unknown function, no room, busy GPU) is not an error: it is skipped and counted in the
/// summary under `decisions`.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/time.hpp"
#include "sim/policy/platform_view.hpp"

namespace sim::policy {

/// A partitioned replica (Flashpoint thesis §4.2): the model's layers split after the listed
/// layer indices (ascending) into cut_after.size() + 1 parts, one GPU each, that cold-start in
/// parallel and then serve requests as one pipeline. With `complete` (model completion,
/// §4.2.5) every part keeps loading the rest of the model once the replica is ready and the
/// replica then becomes that many full instances.
struct PartitionSpec {
  std::vector<int> cut_after;
  bool complete = true;
  /// §4.2.1: the head takes the next batch once part 0 passed the last one on (pipelined);
  /// false: only when the last part finished it, one batch in the replica at a time.
  bool pipelined = true;
};

/// Start `count` instances of a function. Without `config` the function's default is used;
/// without `location` the placement policy chooses.
struct StartInstance {
  std::uint32_t function = 0;
  int count = 1;
  std::optional<InstanceConfig> config;
  std::optional<Location> location;
  /// Start warm: no cold start (the instance is idle at once and its host keeps the model's
  /// bytes). For planners that set up a steady state at time zero; not counted as cold starts.
  bool warm = false;
  /// Start partitioned replicas instead (each takes cut_after.size() + 1 GPUs, every part placed
  /// by the placement policy; `location` and `warm` do not apply). The model needs layers.
  std::optional<PartitionSpec> partition = std::nullopt;
  /// The policy's own mark, ignored by the platform and handed back with the outcome
  /// (Autoscaler::started), so that an autoscaler can tell which of its decisions it was.
  std::uint64_t tag = 0;
};

/// Stop an instance: idle or cold-starting ones stop now, busy ones after their batch.
struct StopInstance {
  InstanceId id = 0;
};

/// Change a GPU's MIG geometry (profile names, e.g. {"4g.20gb", "3g.20gb"}). Only a GPU that
/// holds no live instance can be reconfigured.
struct Reconfigure {
  int host = 0;
  int gpu = 0;
  std::vector<std::string> profiles;
};

/// Provision a VM from the cluster's host template `host_template` (index into
/// cluster.hosts) in `market` (none: the template's market). It becomes a host after the
/// cluster's provisioning delay.
struct RequestVm {
  int host_template = 0;
  std::optional<Market> market;
  /// The host under revocation notice this VM replaces: with the cluster's spot_drain
  /// "replacement" that host stops taking work when this VM comes up.
  std::optional<int> replaces;
};

/// Release a host (a VM): it stops taking work, its instances drain, and it stops costing.
struct ReleaseVm {
  int host = 0;
};

struct Decisions {
  std::vector<StartInstance> start;
  std::vector<StopInstance> stop;
  std::vector<Reconfigure> reconfigure;
  std::vector<RequestVm> request_vms;
  std::vector<ReleaseVm> release_vms;
  /// Wall time the decision took, charged to simulated time when the platform's
  /// `charge_decision_time` is on (Flashpoint charges its autoscaler's compute time): the
  /// commands then take effect this much later.
  Time compute_time;

  [[nodiscard]] bool empty() const {
    return start.empty() && stop.empty() && reconfigure.empty() && request_vms.empty() &&
           release_vms.empty();
  }
};

}  // namespace sim::policy
