#pragma once
/// Flashpoint Fig. 8.10: how many parts the partitioned replicas of a run were cut into. A
/// statistics subscriber fed with replica starts; it writes the summary's
/// partitioned_replicas block only when such a replica started, so other scenarios' summaries
/// are unchanged.

#include <cstdint>
#include <map>

#include <nlohmann/json.hpp>

#include "statistics.hpp"

namespace sim::platform::serverless {

class PartitionedReplicas final : public StatsSubscriber {
 public:
  void replica_started(int parts) override { ++by_parts_[parts]; }
  /// Adds partitioned_replicas {started, by_parts} when any started.
  void write_summary(nlohmann::json& out, const SummaryInputs& in) const override;

 private:
  std::map<int, std::uint64_t> by_parts_;  ///< replicas started, by their number of parts
};

}  // namespace sim::platform::serverless
