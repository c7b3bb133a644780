#pragma once
/// Flashpoint Fig. 3.2b's "desired" instances: what the autoscaler asks for after each tick's
/// decision, whether or not the cluster can place it yet. A statistics subscriber whose value
/// the time series records (column instances_desired); it writes no summary block.

#include "statistics.hpp"

namespace sim::platform::serverless {

class DesiredInstances final : public StatsSubscriber {
 public:
  void autoscaler_decided(const policy::Decisions& d, const Instances& instances) override;
  void write_summary(nlohmann::json& /*out*/, const SummaryInputs& /*in*/) const override {}
  /// After the last tick's autoscaler decision.
  [[nodiscard]] double value() const { return desired_; }

 private:
  double desired_ = 0.0;
};

}  // namespace sim::platform::serverless
