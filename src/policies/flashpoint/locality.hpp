#pragma once
/// Locality-aware autoscaling (Flashpoint thesis §5.2) and the placement/sourcing of the
/// comparison systems (§8.2.2).
///
/// - LocalityPlacement: the two-stage Pareto-optimal greedy receiver selection of Listing 5.1
///   (first GPUs on hosts that already hold the model, then one GPU per new host), or, with
///   spread_new_hosts = false, the affinity of Atoll and GPU-enabled FaaS (hosts holding the
///   model first, then the first GPU with room).
/// - HierarchicalSourcing: local host memory, then a remote host's memory, then the cloud store
///   (§5.2.2), each level switchable, with chained multicast (§6.2) and download sharing
///   (§5.2.4) as options. Remote senders are mapped evenly to receivers (§6.2, Listing 7.1).

#include <map>
#include <string>

#include "sim/policy/cold_start_sourcing.hpp"
#include "sim/policy/placement.hpp"

namespace sim::policy::flashpoint {

/// A host "holds" a model when its bytes sit in the host's memory (HostView::cached_models).
bool host_holds(const HostView& host, const std::string& model);

class LocalityPlacement final : public Placement {
 public:
  explicit LocalityPlacement(bool spread_new_hosts) : spread_(spread_new_hosts) {}
  std::optional<Location> place(const PlacementRequest& request, const PlatformView& view) override;

 private:
  bool spread_;
};

class HierarchicalSourcing final : public ColdStartSourcing {
 public:
  enum class Local : std::uint8_t { kOff, kBytes, kLoaded };
  enum class Senders : std::uint8_t { kCached, kLive };
  struct Config {
    Local local = Local::kLoaded;  ///< use the host's own copy (kLoaded: skip the load stage)
    bool remote = true;            ///< use another host's copy (remote memory pooling)
    /// Which other hosts may send (with `remote`): kCached, every host keeping the bytes in
    /// memory, pooled copies of stopped replicas included (§5.2.1); kLive, only hosts running a
    /// replica of the model, the senders of §6.1.2 ("half of the running replicas can act as
    /// sources"), §6.2 and Listing 7.1.
    Senders senders = Senders::kCached;
    bool chain = false;  ///< chained multicast from the store or a remote sender
    bool share = true;   ///< download sharing for unchained downloads
    /// A remote host sends the model loaded (the receiver skips the load stage). false: the
    /// thesis's Fig. 5.3b (§5.2.3): transfer, load, then copy to the GPU.
    bool remote_loaded = false;
  };
  explicit HierarchicalSourcing(Config c) : config_(c) {}
  SourceChoice choose(const SourcingRequest& request) override;
  [[nodiscard]] bool reads_live_hosts() const override { return config_.senders == Senders::kLive; }

 private:
  Config config_;
  std::map<std::string, std::size_t> next_sender_;  ///< per model: even sender mapping
};

}  // namespace sim::policy::flashpoint
