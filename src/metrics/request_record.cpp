#include "sim/metrics/request_record.hpp"

#include <algorithm>

namespace sim::metrics {

bool extends(const NameTables& grown, const NameTables& current) {
  auto prefix = [](const std::vector<std::string>& g, const std::vector<std::string>& c) {
    return g.size() >= c.size() && std::equal(c.begin(), c.end(), g.begin());
  };
  return prefix(grown.functions, current.functions) &&
         prefix(grown.applications, current.applications);
}

std::string_view to_string(RequestClass c) {
  switch (c) {
    case RequestClass::kStrict:
      return "strict";
    case RequestClass::kBestEffort:
      return "best_effort";
  }
  return "invalid";
}

std::string_view to_string(Outcome o) {
  switch (o) {
    case Outcome::kOk:
      return "ok";
    case Outcome::kSloMiss:
      return "slo_miss";
    case Outcome::kDropped:
      return "dropped";
  }
  return "invalid";
}

}  // namespace sim::metrics
