#include "cluster_policies.hpp"

namespace sim::policy::reference {

Decisions ReplaceRevoked::decide(const PlatformView& view) {
  Decisions d;
  for (const auto& h : view.hosts) {
    if (h.revocation_at && replaced_.insert(h.index).second) {
      d.request_vms.push_back({h.host_template, market_, h.index});
    }
  }
  return d;
}

}  // namespace sim::policy::reference
