#include "resource_efficiency.hpp"

#include <algorithm>

namespace sim::policy::infless {

double conversion_factor(double cpu_gflops_per_thread, double gpu_gflops) {
  return cpu_gflops_per_thread / (gpu_gflops / 100.0);
}

double unified_resource(double threads, double gpu_percent, double beta) {
  return beta * threads + gpu_percent;
}

double resource_efficiency(double r_up, double demand, double server_available, double e_max) {
  return efficiency_on(efficiency_numerator(r_up, demand, e_max), demand, server_available);
}

double efficiency_numerator(double r_up, double demand, double e_max) {
  // INFless eq. (10).
  return r_up / demand / e_max;
}

double efficiency_on(double numerator, double demand, double server_available) {
  const double fragment = std::max(kMinFragment, 1.0 - demand / server_available);
  return numerator / fragment;
}

}  // namespace sim::policy::infless
