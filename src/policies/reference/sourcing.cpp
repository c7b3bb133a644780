#include "sourcing.hpp"

namespace sim::policy::reference {

SourceChoice LocalFirstSourcing::choose(const SourcingRequest& request) {
  if (request.local_copy) return {SourceKind::kLocalMemory, request.host};
  if (!request.remote_hosts.empty()) {
    return {SourceKind::kRemoteHost, request.remote_hosts.front(), chain_};
  }
  return {SourceKind::kStore, -1, chain_};
}

}  // namespace sim::policy::reference
