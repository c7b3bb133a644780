#pragma once
/// INFless operator-profile instances (cpu_threads > 0): the CPU threads and SM shares they
/// held over time and the unallocated share of the servers that hold any (INFless Fig. 17b,
/// Table 4) and the throughput they could serve (INFless §5.3: the "theoretical throughput
/// upper bound" of Fig. 18a). Fed with instance and tick events; writes the summary's
/// operator_instances block only when such instances ran, so other scenarios' summaries are
/// unchanged.

#include <cstdint>

#include <nlohmann/json.hpp>

#include "model.hpp"
#include "statistics.hpp"

namespace sim::platform::serverless {

class OperatorStats final : public StatsSubscriber {
 public:
  void instance_ended(const Inst& inst, Time now) override;
  /// A control tick's view: samples the free CPU and SM shares.
  void tick(const policy::PlatformView& v) override;
  void write_summary(nlohmann::json& out, const SummaryInputs& in) const override;

  /// The requests per second an instance serves at most: full batches back to back,
  /// max_batch / t_exec(max_batch) on its own unit (the executed latency, so the bound of what
  /// the simulation can deliver). INFless's eq. (1) r_up = floor(1 / t_exec) * b is the same
  /// bound in whole batches per second, with t_exec its predictor's (+10%).
  static double capacity_rps(const Inst& inst);

 private:
  std::uint64_t instances_ended_ = 0;
  double thread_seconds_ = 0.0;  ///< of terminated instances
  double share_seconds_ = 0.0;
  double capacity_request_seconds_ = 0.0;  ///< capacity_rps x lifetime, terminated instances
  double free_cpu_sum_ = 0.0;
  double free_gpu_sum_ = 0.0;
  std::uint64_t samples_ = 0;
};

}  // namespace sim::platform::serverless
