#pragma once
/// The cluster's hosts over the run: the hosts of the configuration at time zero, VMs the
/// procurement policy requests and releases, and spot revocations (notice, then revocation).
/// Owns the hosts and their GPUs; tells the control plane what happened through FleetEvents
/// (it does not touch instances), and writes the summary's GPU, host, cost and spot blocks.

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "model.hpp"
#include "sim/engine/random.hpp"
#include "sim/network/topology.hpp"
#include "sim/policy/decisions.hpp"

namespace sim::platform::serverless {

/// What the fleet reports upward.
class FleetEvents {
 public:
  virtual ~FleetEvents() = default;
  /// `host` got its spot revocation notice and is no longer available: drain its instances.
  virtual void revocation_notice(int host) = 0;
  /// What was still running on a host at its revocation.
  struct RevokedWork {
    std::uint64_t batches = 0;   ///< batches still running
    std::uint64_t requests = 0;  ///< their requests, when cut (SpotRevokedBatches); else 0
  };
  /// `host` is revoked now; its running batches finish or are cut (spot_revoked_batches).
  virtual RevokedWork revoked(int host) = 0;
  /// `host` is being released (procurement) and is no longer available: drain its instances.
  virtual void releasing(int host) = 0;
  /// The fleet accepted a request for a VM of `host_template` (procurement), replacing the
  /// host `replaces` (-1: none); it comes up after the provisioning delay.
  virtual void vm_requested(int host_template, int replaces) = 0;
  /// A requested VM came up as `host`.
  virtual void host_added(int host) = 0;
};

class Fleet {
 public:
  /// `topology` may be null (no network section); `catalog` and `topology` must outlive it.
  Fleet(const ServerlessConfig& config, const gpu::ModelCatalog& catalog, Simulation& sim,
        const net::Topology* topology, DecisionCounts& counts, FleetEvents& events);

  /// The configured hosts and scheduled revocations, at time zero.
  void build();
  /// Requests and releases of VMs (Decisions::request_vms, release_vms).
  void apply(const policy::Decisions& d);

  [[nodiscard]] Hosts& hosts() { return hosts_; }
  [[nodiscard]] const Hosts& hosts() const { return hosts_; }
  [[nodiscard]] cluster::Host& host(int h) { return *hosts_[static_cast<std::size_t>(h)]; }
  /// The cluster-wide index of the GPU at `loc` (a record's device).
  [[nodiscard]] int global_gpu(const policy::Location& loc) const;
  [[nodiscard]] int pending_vms() const { return pending_vms_; }

  /// Adds gpu_utilisation, gpu_busy_seconds, gpus, hosts, cost_usd and spot to `out`.
  void write_summary(nlohmann::json& out, Time end) const;

 private:
  void add_host(int template_index, cluster::Market market, bool at_start);
  void schedule_spot(cluster::Host& host, bool at_start);
  /// Interval model: one draw with probability P_rev for `host`, then the next interval's.
  void spot_draw(int host);
  /// `host` gets its notice now for a revocation at `at` (ignored if already noticed).
  void revocation_notice(int host, Time at);
  /// `host` stops taking work; its instances drain.
  void drain(int host);
  void revoke(int host);

  const ServerlessConfig& config_;
  const gpu::ModelCatalog& catalog_;
  Simulation& sim_;
  const net::Topology* topology_;
  DecisionCounts& counts_;
  FleetEvents& events_;
  RandomStream spot_rng_;
  Hosts hosts_;
  std::vector<std::vector<int>> gpu_ids_;  ///< host -> gpu -> global device index
  int next_gpu_id_ = 0;
  int pending_vms_ = 0;
  std::uint64_t spot_notices_ = 0;
  std::uint64_t spot_revocations_ = 0;
  std::uint64_t revocation_overruns_ = 0;
  std::uint64_t revocation_cut_requests_ = 0;
  std::uint64_t vms_provisioned_ = 0;
};

}  // namespace sim::platform::serverless
