#pragma once
/// Per-invocation function billing (ServerlessConfig::billing; HarmonyBatch §III's cost
/// model: a price per invocation plus resource-seconds of vCPU, memory and GPU memory). A
/// statistics subscriber: it bills every finished batch and writes the summary's
/// function_billing block. Added only when the scenario configures billing.

#include <cstdint>
#include <map>

#include <nlohmann/json.hpp>

#include "model.hpp"
#include "statistics.hpp"

namespace sim::platform::serverless {

class Billing final : public StatsSubscriber {
 public:
  explicit Billing(FunctionBilling prices) : prices_(prices) {}

  void batch_finished(const Inst& inst, const gpu::JobResult& result,
                      std::size_t requests) override;
  /// Adds function_billing to `out`.
  void write_summary(nlohmann::json& out, const SummaryInputs& in) const override;

 private:
  struct Tally {
    double usd = 0.0;
    double billed_s = 0.0;
    std::uint64_t invocations = 0;
    std::uint64_t requests = 0;
  };
  FunctionBilling prices_;
  std::map<std::uint32_t, Tally> by_fn_;  ///< by function id
};

}  // namespace sim::platform::serverless
