#pragma once
/// Reference GPU partitioner and procurement policies.

#include <optional>
#include <set>

#include "sim/policy/gpu_partitioner.hpp"
#include "sim/policy/procurement.hpp"

namespace sim::policy::reference {

/// "static": keeps every GPU's configured MIG geometry.
class StaticPartitioner final : public GpuPartitioner {
 public:
  Decisions decide(const PlatformView&) override { return {}; }
};

/// "none": never requests or releases a VM.
class NoProcurement final : public Procurement {
 public:
  Decisions decide(const PlatformView&) override { return {}; }
};

/// "replace-revoked": for every host under revocation notice, requests one VM of the same
/// host template in `market` (none: the template's own market). Protean §4.5: a revoked
/// spot VM is replaced; the replacement arrives after the provisioning delay.
class ReplaceRevoked final : public Procurement {
 public:
  explicit ReplaceRevoked(std::optional<Market> market) : market_(market) {}
  Decisions decide(const PlatformView& view) override;

 private:
  std::optional<Market> market_;
  std::set<int> replaced_;
};

}  // namespace sim::policy::reference
