#include "sim/policy/memory_rule.hpp"

namespace sim::policy {

bool memory_fits(double free_gb, double container_resident_gb, double place_resident_gb,
                 double largest_activation_gb, double capacity_gb) {
  if (free_gb < container_resident_gb) return false;
  return largest_activation_gb <= 0.0 ||
         place_resident_gb + largest_activation_gb <= capacity_gb + kMemoryToleranceGb;
}

}  // namespace sim::policy
