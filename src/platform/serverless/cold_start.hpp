#pragma once
/// Cold starts (DESIGN.md "Cold start"): the sourcing policy's choice, then download (shared
/// downloads, chained multicast, or flows on the network), the runtime stage (container and
/// serving-runtime start, when configured), load and copy; the log of their
/// stage durations. When an instance's model is on its device, the cold start reports it
/// through `ready`; the control plane decides what the instance does next.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model.hpp"
#include "sim/network/flow_network.hpp"
#include "sim/network/transfer_manager.hpp"

namespace sim::platform::serverless {

/// The network a cold start moves bytes over; all null without a network section.
struct ColdStartNetwork {
  net::FlowNetwork* flows = nullptr;
  net::TransferManager* transfers = nullptr;
  std::optional<net::NodeId> store;
  bool topology = false;  ///< a network section exists (then a store is required)
};

class ColdStarts {
 public:
  ColdStarts(const ServerlessConfig& config, Simulation& sim, ColdStartNetwork network,
             Hosts& hosts, Instances& instances, policy::ColdStartSourcing& sourcing,
             DecisionCounts& counts, std::function<void(Inst&)> ready);
  ~ColdStarts();

  /// Logs the cold start of `inst` (in `instances` already) and begins its download.
  void begin(Inst& inst);
  /// `inst` stops: leaves its transfer, shared downloads and chains (cancelled when nobody
  /// else waits).
  void cancel(Inst& inst);

  [[nodiscard]] const std::vector<ColdStartRecord>& log() const { return log_; }
  /// Adds instances_started and cold_starts to `out`.
  void write_summary(nlohmann::json& out) const;

 private:
  struct PendingDownload;
  struct Chain;

  Inst* find(InstanceId id);
  /// Hosts other than `except` where a ready whole instance of `fn` runs, ascending.
  [[nodiscard]] std::vector<int> live_hosts(const Fn& fn, int except) const;
  void join_chain(Inst& inst, const policy::SourceChoice& choice);
  void launch_chain(std::uint64_t chain);
  void download_done(InstanceId id);
  void runtime_done(InstanceId id);
  void start_load(Inst& inst);
  void load_done(InstanceId id);
  void copy_done(InstanceId id);

  const ServerlessConfig& config_;
  Simulation& sim_;
  ColdStartNetwork net_;
  Hosts& hosts_;
  Instances& instances_;
  policy::ColdStartSourcing& sourcing_;
  DecisionCounts& counts_;
  std::function<void(Inst&)> ready_;

  std::map<std::pair<std::string, int>, std::unique_ptr<PendingDownload>> downloads_;
  std::map<std::uint64_t, std::unique_ptr<Chain>> chains_;          ///< by serial
  std::map<std::pair<std::string, int>, std::uint64_t> gathering_;  ///< (model, source) -> chain
  std::uint64_t next_chain_ = 1;
  std::uint64_t chained_ = 0;  ///< cold starts served by a chain
  /// Launched chains by the cold starts they serve at launch (issue #20: how many cold starts
  /// share a chain, the reach of multicast).
  std::map<std::size_t, std::uint64_t> chain_sizes_;
  std::vector<ColdStartRecord> log_;
};

}  // namespace sim::platform::serverless
