#pragma once
/// Protean's container management at every control tick (§4.2, §4.4):
/// - reactive scale-up to one container per batch, n_c = ceil(n_r / batch_size) per model,
///   counted where the batches are formed (ContainerScope; under kNode a node's own backlog
///   gets its containers on that node);
/// - delayed termination: a model's surplus containers stop only after they have been surplus
///   for a whole surplus period (~10 min); an idle surplus container also gives way at once
///   when a needed container finds no room (assumption: the paper does not say what happens
///   when memory runs out);
/// - placement of each new container by Algorithm 1 (strict: least eq. 2 slowdown over slices
///   not fully tagged; best-effort: first-fit on the smallest slices), or load-balanced by free
///   memory for the baselines;
/// - the GPU reconfigurator (Algorithm 2). It lives here, not in a gpu_partitioner, because the
///   platform reconfigures only a GPU without instances and only an autoscaler can stop them:
///   a GPU chosen for reconfiguration is drained (no new containers, its containers stopped)
///   and reconfigured once empty, at most max_reconfiguring of the GPUs at a time.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cluster_places.hpp"
#include "reconfiguration_planner.hpp"
#include "sim/policy/autoscaler.hpp"

namespace sim::policy::protean {

enum class ContainerPlacement : std::uint8_t {
  kJobDistribution,  ///< Protean Algorithm 1
  kSpread,           ///< the place with the most free memory (Naive Slicing, Molecule)
  /// the place with the least free memory that still fits (best fit): batches consolidated
  /// onto as few GPUs as possible (INFless/Llama, Protean §1, §6.1.1)
  kConsolidate
};

/// What Algorithm 2's pred_BE_num counts (the paper: "from curr_request_queue get
/// curr_queue_info"; it does not define the count further).
enum class BestEffortCount : std::uint8_t {
  kInFlight,         ///< queued + arriving during one batch on 7g (n_r of §4.2)
  kIntervalArrivals  ///< arrivals during the monitor interval (one control tick)
};

/// Until when a reconfigured GPU counts against the ~30% of GPUs that may reconfigure at once
/// (§4.4: "to keep overall GPU downtime low").
enum class ReconfiguringUntil : std::uint8_t {
  /// until the MIG downtime is over (dcsim before 2026-11-27): a GPU whose new slices still
  /// wait for their containers' cold starts no longer counts, so the next GPUs start draining
  kDowntime,
  /// until the GPU serves again: one of its containers is ready (idle or busy), or none was
  /// placed on it in the decision after its downtime (nothing to wait for). Reconfiguring needs
  /// every process on the GPU gone (§2.1), so its containers restart before it serves
  kServing
};

/// What becomes of a reconfigured GPU's containers. Reconfiguring ends every process on the GPU
/// (§2.1), so its warm containers of every model are stopped in the drain; the paper does not
/// say how they come back.
enum class AfterReconfiguration : std::uint8_t {
  /// only the containers the load needs (n_c, §4.2) are started again, by the normal
  /// autoscaler, wherever Algorithm 1 places them (dcsim before 2026-11-27)
  kNeeded,
  /// when the GPU serves again, every container it held when its drain began is started again
  /// on its new slices (a cold start through the normal start path), largest batch footprint
  /// first (then function id), each on the slice of that GPU with the least free memory that
  /// still holds it by the platform's memory rule (policy::container_fits: its resident memory,
  /// plus room for one batch of the largest activations there; best fit); one that fits
  /// nowhere is not restored. They are warm idle containers, not containers started for a
  /// batch, so Protean's estimate charges them as idle ones (AdmissionMemory).
  /// The normal autoscaler then continues (the restored containers count as live; surplus
  /// ones stop after the surplus period)
  kRestore
};

struct ProteanAutoscalerConfig {
  Time surplus_period = seconds(600);
  ContainerPlacement placement = ContainerPlacement::kJobDistribution;
  bool reconfigure = true;
  ReconfigurationConfig reconfiguration;
  double ewma_alpha = 0.5;
  BestEffortCount best_effort_count = BestEffortCount::kInFlight;
  double max_reconfiguring_fraction = 0.3;
  ReconfiguringUntil reconfiguring_until = ReconfiguringUntil::kServing;
  AfterReconfiguration after_reconfiguration = AfterReconfiguration::kNeeded;
  double strict_sm_cap = 1.0;  ///< GPUlet: SM cap of strict containers under MPS
  ContainerCount container_count = ContainerCount::kInFlight;
  /// n_c per worker node from its share and its own queue, per node from an even share of
  /// everything, or per cluster (ContainerScope)
  ContainerScope container_scope = ContainerScope::kNode;
  /// W of Algorithm 2 line 1: the reconfigurator (EWMA sample, geometry choice, wait counter)
  /// runs once per W; also kIntervalBatches' window (assumption: the control tick)
  double monitor_interval_s = 1.0;
  BestEffortMemory best_effort_memory = BestEffortMemory::kRequests;
  /// what Algorithm 1's admission charges each live container (AdmissionMemory)
  AdmissionMemory admission_memory = AdmissionMemory::kPlatform;
  /// how Algorithm 1's ascending order of resources breaks ties of memory (SliceOrder)
  SliceOrder slice_order = SliceOrder::kMemoryThenCompute;
};

class ProteanAutoscaler final : public Autoscaler {
 public:
  explicit ProteanAutoscaler(ProteanAutoscalerConfig config)
      : config_(std::move(config)), predictor_(config_.ewma_alpha) {}
  Decisions decide(const PlatformView& view) override;

  /// Where a new container of `f` goes among `places` (already loaded with the live
  /// instances), or nullopt when none has room. Exposed for the placement policies and tests.
  static std::optional<std::size_t> place_container(const FunctionView& f,
                                                    const std::vector<Place>& places,
                                                    ContainerPlacement mode,
                                                    SliceOrder by = SliceOrder::kMemoryThenCompute);

 private:
  void reconfigurator(const PlatformView& view, Decisions& d);
  void drain(const PlatformView& view, Decisions& d);

  ProteanAutoscalerConfig config_;
  EwmaPredictor predictor_;
  std::map<std::uint32_t, std::uint64_t> last_best_effort_arrivals_;
  std::map<std::pair<int, int>, MismatchCounter> counters_;
  std::map<std::pair<int, int>, std::vector<std::string>> draining_;  ///< GPU -> target
  GpuSet reconfigured_now_;  ///< reconfigured this tick: no containers there until it is done
  /// reconfigured GPUs not yet serving (ReconfiguringUntil::kServing) -> whether a decision
  /// after their downtime has already found no instance on them
  std::map<std::pair<int, int>, bool> recovering_;
  /// AfterReconfiguration::kRestore: GPU -> the functions of the containers it held when its
  /// drain began (one entry per container), and whether its reconfiguration has been issued
  struct Held {
    std::vector<std::uint32_t> functions;
    bool reconfigured = false;
  };
  std::map<std::pair<int, int>, Held> held_;
  std::set<InstanceId> stopping_;
  std::map<std::uint32_t, Time> surplus_since_;
  std::optional<Time> last_monitor_;  ///< when Algorithm 2 last ran
};

}  // namespace sim::policy::protean
