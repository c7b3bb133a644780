#pragma once
/// The four autoscalers the Flashpoint thesis uses as a controlled variable (§3.1, §8.4):
/// TSK (TorchServe on Kubernetes: queue latency), ATL (Atoll: 99th-percentile arrival rate x
/// average execution time), OWK (OpenWhisk on Kubernetes: GPU utilisation) and SM* (SageMaker:
/// invocations per instance). Each computes a desired replica count per function; a common
/// base turns it into starts and stops, with a scale-down stabilisation window. Each exposes
/// one threshold (`threshold_name()`) so that `dcsim calibrate` can match runs on resources.

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "partitioning.hpp"
#include "sim/policy/autoscaler.hpp"

namespace sim::policy::flashpoint {

struct ScalingLimits {
  int min_replicas = 0;
  int max_replicas = 1600;
  /// Scale-down stabilisation: the replica count applied is the largest desired count of this
  /// window, now included (Kubernetes HPA without `behavior`: stabilizeRecommendation; the
  /// SageMaker scale-in cooldown). Defaults per autoscaler in register.cpp.
  Time scale_down_window = seconds(60);
  /// How often the autoscaler decides. The metrics are sampled at every platform tick, but
  /// starts and stops are emitted only at t0, t0 + period, ... (the deployed systems evaluate
  /// periodically: Kubernetes HPA every 15 s, SageMaker target tracking on 1-minute metrics).
  /// Zero: at every tick. The scenario defaults per autoscaler are in register.cpp.
  Time evaluation_period;
  /// Charged to simulated time with the platform's charge_decision_time (thesis §3.1: actions
  /// take effect after the wall time of the decision).
  Time decision_time;
  /// Kubernetes HPA's scale-up policies (behavior.scaleUp, selectPolicy Max): within any
  /// period the count may grow to at most max(base x (1 + percent / 100), base + pods), base
  /// being the count at the period's start. Zero period: no limit (the thesis gives none).
  Time scale_up_period;
  double scale_up_percent = 100.0;
  int scale_up_pods = 4;
};

/// What bounds the number of parts of a scale-up's plan.
enum class PartitionCap : std::uint8_t {
  /// §4.2.6: at most the replicas the scale-up adds; a scale-up by n uses n GPUs, as
  /// floor(n / p) replicas of p parts and n mod p full ones (a scale-up by one never
  /// partitions). Every GPU of a partitioned replica counts as a replica.
  kReplicasAdded,
  /// §8.1.2's testbed: "partition schemes that use more than 10 machines are not considered
  /// ... the best partition plan given the limited number of machines is used", i.e. the plan
  /// is bounded by the machines available, not by the replicas added. A scale-up by n starts
  /// n replicas, each of the same plan with at most floor(G / n) parts, G the whole GPUs no
  /// instance holds on available hosts (less those the same decision already gave to other
  /// functions); below 2 parts, n full replicas. So a scale-up by one may take several idle
  /// GPUs, and model completion (§4.2.5) turns them into full replicas. A partitioned replica
  /// counts as one replica (its head) until it is completed, so that the desired-count
  /// comparison does not remove what was just added; once completed, its parts are full
  /// replicas the autoscaler keeps or removes like any other.
  kFreeGpus,
};

/// Model partitioning in the autoscaler (§4.2.6): a scale-up uses the precalculated plan for
/// E(x) (eq. 4.14) with at most as many partitions as `cap` allows; scale-down evicts
/// partitioned replicas first, the ones with most GPUs first.
struct PartitioningOptions {
  bool enabled = false;
  int max_partitions = 0;  ///< 0: the number of layers (§4.2.2)
  long max_x = 3000;       ///< X of §4.2.2
  bool complete = true;    ///< model completion (§4.2.5)
  bool pipelined = true;   ///< §4.2.1 pipelining; false: one batch in a replica at a time
  PartitionCap cap = PartitionCap::kReplicasAdded;
  /// kFreeGpus counts a partitioned replica once (see there).
  [[nodiscard]] bool replica_per_partitioned() const {
    return enabled && cap == PartitionCap::kFreeGpus;
  }
};

/// Whole GPUs (GpuView::instances == 0, not reconfiguring) on available hosts: what the
/// kFreeGpus cap may give to one scale-up.
int free_gpus(const PlatformView& view);

/// What the scale-ups of a run looked like (thesis Fig. 6.2 and Fig. 8.10): one record per
/// function per evaluation that asked for replicas (whether or not the platform started them).
struct ScaleUpRecord {
  Time at;
  int added = 0;     ///< instances (GPUs) asked for
  int running = 0;   ///< ready (idle or busy) replicas when it was decided
  int parts = 1;     ///< parts of the partitioned replicas it started (1: full replicas only)
  int replicas = 0;  ///< replicas asked for (a partitioned replica once; = added without MP)
  /// Instances (GPUs) of `added` the platform could not start (no room, e.g. no idle GPU
  /// under the free-gpus cap), as reported through Autoscaler::started.
  int unplaced = 0;
};

/// Fig. 6.2 / Fig. 8.10 as a summary block: scale-up count, starts per scale-up, the
/// distribution of added / running (deciles of the finite ratios; scale-ups from zero running
/// replicas counted apart) and scale-ups by parts. Null when there were no evaluations.
/// A scale-up the platform could not start at all (every instance unplaced) is not a scale-up
/// here: it is counted under `rejected` (with the replicas and instances it asked for). One
/// that started some of its instances counts with those it started ("added" = added -
/// unplaced) and under `partially_placed`.
nlohmann::json scale_up_statistics(const std::vector<ScaleUpRecord>& records,
                                   std::uint64_t evaluations);

/// Counts used by the HPA-style rules: live (not draining) instances, each part of a
/// partitioned replica counted (one GPU each) unless `replica_per_partitioned` (then once, by
/// its head), and ready (idle or busy) and busy ones. A partitioned replica is ready when its
/// head is (the platform readies the head once every part is); counted per part, its parts are
/// then ready too (they serve in its pipeline) and all busy while the head is (issue #20). The
/// head of a pipelined replica is busy for the bottleneck interval max(E, N) per batch (eq.
/// 4.3), i.e. while the pipeline runs at its capacity; a part's own stage may compute for a
/// shorter share of it, so this is the capacity reading (equal to the stages' utilisation when
/// they are balanced, above it otherwise). A replica not pipelined runs one stage at a time, so
/// there p busy parts overstate its compute p-fold (every matrix scenario pipelines).
struct ReplicaCounts {
  int live = 0;
  int ready = 0;
  int busy = 0;
};
ReplicaCounts count_replicas(const PlatformView& view, std::uint32_t function,
                             bool replica_per_partitioned = false);

/// Desired count -> Decisions. Stops idle instances first, then cold-starting ones, then busy
/// ones (they drain), newest first within each group.
class ReplicaAutoscaler : public Autoscaler {
 public:
  explicit ReplicaAutoscaler(ScalingLimits limits, PartitioningOptions mp = {})
      : limits_(limits), mp_(mp) {}
  /// Samples every function's metric (desired()) at every call; decides only when an
  /// evaluation is due (limits.evaluation_period).
  Decisions decide(const PlatformView& view) final;
  /// The metric's desired replica count before limits and stabilisation (for tests). Called at
  /// every tick, so that windowed metrics see every sample.
  virtual int desired(const FunctionView& f, const PlatformView& view) = 0;
  [[nodiscard]] nlohmann::json statistics() const override {
    return scale_up_statistics(scale_up_log_, evaluations_);
  }
  /// Marks the record of the scale-up `s` belongs to with the instances that did not start.
  void started(const StartInstance& s, int started) override;
  [[nodiscard]] const std::vector<ScaleUpRecord>& scale_ups() const { return scale_up_log_; }

 protected:
  /// count_replicas as this autoscaler's partitioning options count.
  [[nodiscard]] ReplicaCounts counts(const PlatformView& view, std::uint32_t function) const {
    return count_replicas(view, function, mp_.replica_per_partitioned());
  }

 private:
  bool evaluation_due(Time now);
  /// `gpus_left`: the kFreeGpus budget left in this decision (decreased by what it starts).
  void scale_up(const FunctionView& f, int n, int ready, int& gpus_left, Decisions& d, Time now);
  ScalingLimits limits_;
  PartitioningOptions mp_;
  std::optional<Time> next_evaluation_;
  std::uint64_t evaluations_ = 0;
  std::vector<ScaleUpRecord> scale_up_log_;
  std::map<std::uint32_t, std::deque<std::pair<Time, int>>> history_;  ///< by function
  /// Scale-ups within the last scale_up_period (time, replicas added), by function.
  std::map<std::uint32_t, std::deque<std::pair<Time, int>>> scale_ups_;
  std::map<std::uint32_t, PlanTable> plans_;  ///< by function
};

/// TSK: Kubernetes HPA on TorchServe's queue latency (thesis §3.1, default target 7 s). The
/// metric is TorchServe's QueueTime, recorded per dequeued request: the mean queue wait of the
/// requests dequeued within `window` (FunctionView::dequeued / dequeued_wait_s). TorchServe's
/// Kubernetes deployment (the thesis's reference [1]) gives HPA this metric as an External
/// metric with a Value target, for which HPA computes desired = ceil(ready x latency /
/// target): cold-starting replicas are not multiplied, and a result below the live count is a
/// scale-down that the stabilisation window holds. Within 10% of the target: unchanged (HPA
/// default tolerance). No request dequeued in the window: 0 latency if the queue is empty,
/// else no metric (the count is kept).
class QueueLatencyAutoscaler final : public ReplicaAutoscaler {
 public:
  QueueLatencyAutoscaler(ScalingLimits limits, double target_s, Time window = seconds(15),
                         PartitioningOptions mp = {})
      : ReplicaAutoscaler(limits, mp), target_s_(target_s), window_(window) {}
  int desired(const FunctionView& f, const PlatformView& view) override;

 private:
  double target_s_;
  Time window_;
  struct Sample {
    Time at;
    std::uint64_t dequeued = 0;
    double wait_s = 0.0;
  };
  std::map<std::uint32_t, std::deque<Sample>> samples_;  ///< by function
};

/// ATL: the 99th percentile of the per-tick arrival rate over `window`, times the average
/// execution time, divided by `target_utilisation` (1 = exactly the concurrency the p99 rate
/// needs) (thesis §3.1, §8.1.2).
class ArrivalPercentileAutoscaler final : public ReplicaAutoscaler {
 public:
  ArrivalPercentileAutoscaler(ScalingLimits limits, double target_utilisation, Time window,
                              double percentile, PartitioningOptions mp = {})
      : ReplicaAutoscaler(limits, mp),
        target_(target_utilisation),
        window_(window),
        percentile_(percentile) {}
  int desired(const FunctionView& f, const PlatformView& view) override;

 private:
  double target_;
  Time window_;
  double percentile_;
  struct Series {
    std::uint64_t last_arrivals = 0;
    Time last;
    bool started = false;
    std::deque<std::pair<Time, double>> rates;
  };
  std::map<std::uint32_t, Series> series_;
};

/// OWK: Kubernetes HPA on GPU utilisation (the thesis replaces CPU by GPU utilisation), target
/// 60%: desired = ceil(sum of the ready instances' busy fractions / target); instances still
/// cold-starting count as 0% (HPA's rule for unready pods), so one step grows the count at most
/// 1/target-fold (the thesis: about two times). Busy fractions are sampled at every tick and
/// averaged over `window`.
class UtilisationAutoscaler final : public ReplicaAutoscaler {
 public:
  UtilisationAutoscaler(ScalingLimits limits, double target, Time window,
                        PartitioningOptions mp = {})
      : ReplicaAutoscaler(limits, mp), target_(target), window_(window) {}
  int desired(const FunctionView& f, const PlatformView& view) override;

 private:
  double target_;
  Time window_;
  std::map<std::uint32_t, std::deque<std::pair<Time, double>>> samples_;  ///< busy fraction
};

/// SM*: SageMaker target tracking on InvocationsPerInstance (per minute): desired =
/// ceil(invocations per minute / target). target 0: half of one instance's capacity,
/// 0.5 * 60 / execution time (AWS's recommended safety factor 0.5).
class InvocationsAutoscaler final : public ReplicaAutoscaler {
 public:
  InvocationsAutoscaler(ScalingLimits limits, double target_per_minute, int window,
                        PartitioningOptions mp = {})
      : ReplicaAutoscaler(limits, mp), target_(target_per_minute), window_(window) {}
  int desired(const FunctionView& f, const PlatformView& view) override;

 private:
  double target_;
  int window_;
};

/// The scenario key of each autoscaler's resource threshold (for `dcsim calibrate`): "tsk" ->
/// "target_queue_latency", ... Empty for an unknown type.
std::string threshold_name(const std::string& autoscaler_type);

}  // namespace sim::policy::flashpoint
