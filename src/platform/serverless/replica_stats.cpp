#include "replica_stats.hpp"

#include <string>

namespace sim::platform::serverless {

using nlohmann::json;

void PartitionedReplicas::write_summary(json& out, const SummaryInputs& /*in*/) const {
  if (by_parts_.empty()) return;
  json by_parts = json::object();
  std::uint64_t started = 0;
  for (const auto& [parts, n] : by_parts_) {
    by_parts[std::to_string(parts)] = n;
    started += n;
  }
  out["partitioned_replicas"] = {{"started", started}, {"by_parts", by_parts}};
}

}  // namespace sim::platform::serverless
