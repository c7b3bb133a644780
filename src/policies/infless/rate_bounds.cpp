#include "rate_bounds.hpp"

#include <cmath>
#include <limits>

namespace sim::policy::infless {

namespace {
// 1 / 0.1 is 10.000000000000002 in binary floating point: the bounds are integers per batch
// slot, so round away representation noise before floor/ceil.
constexpr double kNoise = 1e-9;
}  // namespace

RateBounds rate_bounds(double t_exec_s, double t_slo_s, int batch) {
  RateBounds r;
  const double b = static_cast<double>(batch);
  // INFless eq. (1).
  r.r_up = t_exec_s > 0 ? std::floor(1.0 / t_exec_s + kNoise) * b
                        : std::numeric_limits<double>::infinity();
  r.r_low = t_slo_s > t_exec_s ? std::ceil(1.0 / (t_slo_s - t_exec_s) - kNoise) * b
                               : std::numeric_limits<double>::infinity();
  return r;
}

}  // namespace sim::policy::infless
