#pragma once
/// The neutral statistics of the control plane that follow instances and batches over the
/// run: memory reserved over time, GPU fragmentation at the ticks and instance-seconds. A
/// statistics subscriber (statistics.hpp) that the control plane also tells of memory reserved
/// or freed; it owns and writes its blocks of the summary. Paper-specific statistics are
/// subscribers of their own (billing.hpp, cold_start_stats.hpp, desired_instances.hpp,
/// operator_stats.hpp, replica_stats.hpp).

#include <cstdint>

#include <nlohmann/json.hpp>

#include "model.hpp"
#include "statistics.hpp"

namespace sim::platform::serverless {

class Accounting final : public StatsSubscriber {
 public:
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
  /// Adds the count of idle containers evicted under memory pressure to the summary
  /// (EvictIdle::kLeastRecentlyUsed).
  void report_evictions() { report_evictions_ = true; }
  void instance_evicted(const Inst& inst, Time now, std::string_view why, const Fn& for_fn,
                        InstanceId for_instance) override;
  void instance_ended(const Inst& inst, Time now) override;
  /// Samples the fragmentation.
  void tick(const policy::PlatformView& v) override;

  /// Adds memory_utilisation, fragmentation and instance_seconds to `out`.
  void write_summary(nlohmann::json& out, const SummaryInputs& in) const override;

 private:
  double instance_seconds_ = 0.0;  ///< of terminated instances
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
  bool report_evictions_ = false;
  std::uint64_t evictions_for_start_ = 0;
  std::uint64_t evictions_for_activations_ = 0;
  // Fragmentation sampled at every control tick.
  double fragmentation_sum_ = 0.0;
  std::uint64_t fragmentation_samples_ = 0;
};

}  // namespace sim::platform::serverless
