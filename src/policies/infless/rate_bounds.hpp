#pragma once
/// INFless eq. (1): the request rate an instance of batch size b must receive, [r_low, r_up].

namespace sim::policy::infless {

struct RateBounds {
  double r_low = 0.0;  ///< req/s needed to fill a batch of b before the SLO budget runs out
  double r_up = 0.0;   ///< req/s the instance serves when always busy
};

/// INFless eq. (1): r_up = floor(1 / t_exec) * b and r_low = ceil(1 / (t_slo - t_exec)) * b
/// (seconds in, req/s out). The paper's example: t_slo = 0.2, t_exec = 0.05, b = 4 -> [28, 80].
/// t_exec >= t_slo gives r_low = infinity (no rate lets such an instance meet the SLO).
RateBounds rate_bounds(double t_exec_s, double t_slo_s, int batch);

}  // namespace sim::policy::infless
