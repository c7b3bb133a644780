#pragma once
/// Pipelined partitioned replicas with a network (Flashpoint thesis §4.2.1, Fig. 4.6, Table
/// 4.1): a blocking flow shop of 2p - 1 stations, part 0, cut 0, part 1, ..., part p-1. A part's
/// station executes its layers (E_k, the layer profile's execution times, as without a
/// network); a cut's station sends the cut layer's output (output bytes x batch size) from the
/// part's host NIC to the next part's as a flow on the FlowNetwork, so it shares links with (and
/// slows) cold-start downloads (N_k). Parts on one host use no network: the hop takes the output
/// bytes x batch size at host_bandwidth (the time used without a network). Every station holds
/// one batch; a station that finished passes its batch on only when the next one is empty
/// (backpressure), and the head takes a new batch only when part 0 is empty.
/// With identical batches and no contention, a blocking flow shop admits one batch every
/// max over stations = max(E, N) (eq. 4.3), and an unobstructed batch leaves the last part
/// I = sum E_k + sum N_k after its dispatch (eq. 4.4 with x = 1): the fixed-time model's numbers.
/// Batches in flight finish even if the replica stops meanwhile (as without a network).
///
/// Reports upward (BatchEvents): batch_finished when a batch leaves the last part, head_admits
/// when part 0 is free (or, not pipelined, when the batch left the last part).
/// Without a network a pipelined replica runs on fixed times (eq. 4.3-4.4): a batch leaves I
/// after its dispatch and the head admits the next max(E, N) after it; the same runner runs
/// both, so a replica's batches end through the one completion path either way.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "batch_runner.hpp"
#include "model.hpp"
#include "sim/network/flow_network.hpp"

namespace sim::platform::serverless {

/// A batch in a pipeline and what its requests' records need.
struct PipelineBatch {
  std::vector<Request> requests;
  BatchTimes times;  ///< start: its dispatch (part 0 was empty); finish: when it leaves
  std::uint64_t serial = 0;
};

/// The batch runner of pipelined partitioned replicas' heads (Inst::pipeline_latency_s > 0).
class Pipelines final : public BatchRunner {
 public:
  /// `flows`: null without a network (fixed times only; make() needs it).
  Pipelines(Simulation& sim, Hosts& hosts, net::FlowNetwork* flows, BatchEvents& events);
  ~Pipelines() override;

  /// Runs `batch` through the head's Pipeline (inst.pipeline), or on fixed times without one.
  std::vector<Request> run(Inst& head, std::vector<Request> batch, BatchTimes times) override;

  /// A pipeline for the replica headed by `head` of `fn`, cut after the layers `cut_after`, its
  /// parts at `locs`; returns its serial (> 0). Not `pipelined`: `admit` only when a batch
  /// left the last part (one batch in the replica at a time).
  std::uint64_t make(InstanceId head, const Fn& fn, const std::vector<int>& cut_after,
                     const std::vector<policy::Location>& locs, bool pipelined = true);
  /// Starts `batch` at part 0 (empty: the head was idle).
  void submit(std::uint64_t serial, PipelineBatch batch);
  /// The head is gone or completed: the pipeline drains, then goes.
  void detach(std::uint64_t serial);

 private:
  struct Pipeline;

  void work(std::uint64_t pipeline, std::size_t station);
  void done(std::uint64_t pipeline, std::size_t station);
  void advance(std::uint64_t pipeline, std::size_t station);

  Simulation& sim_;
  Hosts& hosts_;
  net::FlowNetwork* flows_;
  BatchEvents& events_;
  std::map<std::uint64_t, std::unique_ptr<Pipeline>> pipelines_;  ///< by serial
  std::uint64_t next_ = 1;
};

}  // namespace sim::platform::serverless
