#pragma once
/// Per-function latency SLOs for INFless policies: the platform's views carry no SLO, so a
/// policy is told them (a default plus per-function overrides by function name).

#include <map>
#include <string>

#include "sim/engine/time.hpp"

namespace sim::policy::infless {

struct SloMap {
  Time fallback = seconds(0.2);
  std::map<std::string, Time, std::less<>> by_function;
  [[nodiscard]] Time of(const std::string& function) const {
    auto it = by_function.find(function);
    return it == by_function.end() ? fallback : it->second;
  }
};

}  // namespace sim::policy::infless
