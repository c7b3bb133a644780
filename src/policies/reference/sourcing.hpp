#pragma once
/// Reference cold-start sourcing.

#include "sim/policy/cold_start_sourcing.hpp"

namespace sim::policy::reference {

/// "cloud-store": every cold start downloads from the cloud object store.
class CloudStoreSourcing final : public ColdStartSourcing {
 public:
  SourceChoice choose(const SourcingRequest&) override { return {SourceKind::kStore, -1}; }
  [[nodiscard]] bool reads_live_hosts() const override { return false; }
};

/// "local-first": the host's own cached copy, else the lowest-numbered host holding one, else
/// the store.
class LocalFirstSourcing final : public ColdStartSourcing {
 public:
  /// chain: downloads (from a host or the store) ask for chained multicast (SourceChoice).
  explicit LocalFirstSourcing(bool chain = false) : chain_(chain) {}
  SourceChoice choose(const SourcingRequest& request) override;
  [[nodiscard]] bool reads_live_hosts() const override { return false; }

 private:
  bool chain_;
};

}  // namespace sim::policy::reference
