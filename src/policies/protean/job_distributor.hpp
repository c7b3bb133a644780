#pragma once
/// Protean Algorithm 1 at dispatch: which idle container (and so which slice) runs a batch.
/// A strict batch goes to the slice with the least eq. (2) slowdown among slices not fully
/// tagged for best-effort memory; a best-effort batch is packed first-fit onto the smallest
/// slices. Needs the platform view (co-runners of every slice).

#include "sim/policy/dispatcher.hpp"

namespace sim::policy::protean {

class JobDistributor final : public Dispatcher {
 public:
  std::optional<InstanceId> choose(const DispatchView& view) override;
  [[nodiscard]] bool wants_platform_view() const override { return true; }
};

}  // namespace sim::policy::protean
