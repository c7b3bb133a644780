#pragma once
/// Cold-start sourcing: where a cold start downloads the model bytes from.

#include <string>
#include <vector>

#include "sim/policy/policy.hpp"

namespace sim::policy {

enum class SourceKind : std::uint8_t { kLocalMemory, kRemoteHost, kStore };

const char* to_string(SourceKind k);

struct SourcingRequest {
  std::string model;
  double bytes = 0.0;
  int host = 0;                   ///< the host the instance starts on
  bool local_copy = false;        ///< the host already keeps the bytes in spare memory
  std::vector<int> remote_hosts;  ///< other available hosts keeping the bytes, ascending
  /// Other available hosts running a ready whole instance of the starting function (idle or
  /// busy; not
  /// cold-starting, draining or a part of a partitioned replica), ascending. A live instance
  /// holds the model whether or not the host's cache still keeps the bytes, so a host may be
  /// here and not in remote_hosts, and a host keeping only a stopped instance's copy is in
  /// remote_hosts only.
  std::vector<int> live_hosts;
};

struct SourceChoice {
  SourceKind kind = SourceKind::kStore;
  int host = -1;  ///< kRemoteHost: which one (one of remote_hosts or live_hosts)
  /// kStore or kRemoteHost: chained multicast (Flashpoint thesis §6.2). Cold starts of the same
  /// model from the same source that begin at the same simulated time and ask for a chain
  /// share one chain source -> host_1 -> host_2 -> ... (hosts in the order their cold starts
  /// began; several instances on one host share its delivery) instead of separate downloads.
  bool chain = false;
  /// kLocalMemory: the host keeps the model loaded (deserialised tensors in process memory,
  /// Flashpoint §5.2.2, Fig. 5.3a), so the load stage is skipped and only the copy to the GPU
  /// remains. false: the cached bytes are loaded again (Atoll keeps only the model data).
  /// kRemoteHost: the sender's loaded tensors are what is transferred, so the receiver skips
  /// its load (not the thesis's Fig. 5.3b, which loads after the transfer; see
  /// docs/reproduction/flashpoint.md "Fig. 8.5"). Ignored for the store.
  bool loaded = false;
  /// kStore or kRemoteHost without a chain: join a download of the same model to the same host
  /// already in flight (download sharing, Flashpoint §5.2.4). false: a download of its own.
  bool share = true;
};

class ColdStartSourcing : public Policy {
 public:
  virtual SourceChoice choose(const SourcingRequest& request) = 0;
  /// false: choose() never reads SourcingRequest::live_hosts, which the platform then leaves
  /// empty (filling it walks the function's instances on every cold start).
  [[nodiscard]] virtual bool reads_live_hosts() const { return true; }
};

}  // namespace sim::policy
