#pragma once
/// Statistics of the control plane that follow instances and batches over the run: memory
/// reserved over time, function billing, GPU fragmentation at the ticks, partitioned replicas
/// started and desired instances, and (through OperatorStats) operator-profile resources. The
/// control plane reports events to it (memory reserved or freed, a batch finished, an instance
/// ended, a tick's view); it owns and writes its blocks of the summary.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model.hpp"
#include "operator_stats.hpp"
#include "sim/gpu_models/execution_unit.hpp"
#include "sim/policy/decisions.hpp"
#include "sim/policy/platform_view.hpp"

namespace sim::platform::serverless {

class Accounting {
 public:
  explicit Accounting(std::optional<FunctionBilling> billing) : billing_(std::move(billing)) {}

  /// Host memory (bytes) or GPU memory (GB) reserved (> 0) or freed (< 0) at `now`.
  void memory_changed(Time now, double host_bytes, double gpu_gb);
  /// GPU memory (GB) that running batches hold for their activations taken (> 0) or released
  /// (< 0) at `now` (ContainerMemory::kWeightsResident); counted in the GPU memory too.
  void activations_changed(Time now, double gb);
  /// Adds the split of GPU memory use into the instances' own and their batches' activations
  /// to the summary (ContainerMemory::kWeightsResident).
  void report_activations() { report_activations_ = true; }
  /// Queued requests found their instances idle but short of activation memory.
  void waited_for_memory() { ++memory_waits_; }
  /// A batch of `inst` ran from result.started to result.finished (inst.batch still holds it).
  void batch_finished(const Inst& inst, const gpu::JobResult& result);
  void instance_ended(const Inst& inst, Time now);
  /// The view of a control tick: fragmentation and operator-profile samples.
  void tick(const policy::PlatformView& v);
  void partitioned_started(int parts) { ++partitioned_by_parts_[parts]; }
  /// Mean duration of each function's batches on whole instances (Flashpoint's "GPU warm
  /// start", the unit of Fig. 8.5), from the batches reported to batch_finished.
  [[nodiscard]] std::map<std::uint32_t, double> warm_execution() const;
  /// Flashpoint Fig. 3.2b's "desired" instances once the autoscaler's decision d is applied.
  void desired(const policy::Decisions& d, const Instances& instances);
  [[nodiscard]] double desired() const { return desired_; }

  /// Adds memory_utilisation, fragmentation, instance_seconds and, when they apply,
  /// function_billing, partitioned_replicas and operator_instances to `out`. `end_view`: the
  /// platform at `end`.
  void write_summary(nlohmann::json& out, Time end, const Hosts& hosts, const Instances& instances,
                     const std::vector<std::unique_ptr<Fn>>& functions,
                     const policy::PlatformView& end_view) const;

 private:
  std::optional<FunctionBilling> billing_;
  double desired_ = 0.0;           ///< after the last tick's autoscaler decision
  double instance_seconds_ = 0.0;  ///< of terminated instances
  /// Partitioned replicas started, by their number of parts (Flashpoint Fig. 8.10).
  std::map<int, std::uint64_t> partitioned_by_parts_;
  // Memory reserved by instances, integrated over time (memory utilisation).
  Time memory_since_;
  double host_reserved_bytes_ = 0.0;
  double gpu_reserved_gb_ = 0.0;
  double host_byte_seconds_ = 0.0;
  double gpu_gb_seconds_ = 0.0;
  double activation_gb_ = 0.0;
  double activation_gb_seconds_ = 0.0;
  double activation_peak_gb_ = 0.0;  ///< most activation memory held at once, cluster-wide
  bool report_activations_ = false;
  std::uint64_t memory_waits_ = 0;
  // Function billing (ServerlessConfig::billing), by function id.
  struct BillingTally {
    double usd = 0.0;
    double billed_s = 0.0;
    std::uint64_t invocations = 0;
    std::uint64_t requests = 0;
  };
  std::map<std::uint32_t, BillingTally> billing_by_fn_;
  /// Batches on whole instances, by function id: (seconds executing, batches).
  std::map<std::uint32_t, std::pair<double, std::uint64_t>> warm_by_fn_;
  // Fragmentation sampled at every control tick.
  double fragmentation_sum_ = 0.0;
  std::uint64_t fragmentation_samples_ = 0;
  OperatorStats operators_;  ///< INFless
};

}  // namespace sim::platform::serverless
