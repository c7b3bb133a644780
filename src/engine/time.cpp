#include "sim/engine/time.hpp"

#include <cstdlib>

namespace sim {

void detail::throw_not_a_time(double ns, const char* what) {
  throw std::out_of_range(std::string(what) + ": value is not a representable time (" +
                          std::to_string(ns) + " ns)");
}

std::string to_string(Time t) {
  const std::int64_t v = t.ns();
  if (v == std::numeric_limits<std::int64_t>::max()) return "max";
  // Pick the largest unit that represents the value exactly.
  struct Unit {
    std::int64_t ns;
    const char* suffix;
  };
  constexpr Unit units[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "us"}};
  for (const auto& u : units) {
    if (v % u.ns == 0) return std::to_string(v / u.ns) + u.suffix;
  }
  return std::to_string(v) + "ns";
}

}  // namespace sim
