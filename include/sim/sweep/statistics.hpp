#pragma once
/// Summary statistics across replications: mean, sample standard deviation and the two-sided
/// 95% confidence interval of the mean with Student's t (the replications' metric values are
/// treated as independent draws; the seeds differ).

#include <cstddef>
#include <optional>
#include <vector>

namespace sim::sweep {

/// The 0.975 quantile of Student's t with `df` >= 1 degrees of freedom: exact tabulated values
/// up to 30, the Cornish-Fisher expansion around the normal quantile above (error < 1e-6).
double student_t_975(std::size_t df);

struct Statistics {
  std::size_t n = 0;
  double mean = 0.0;
  std::optional<double> sd;      ///< sample standard deviation (n - 1); needs n >= 2
  std::optional<double> ci_low;  ///< mean -+ t(0.975, n-1) * sd / sqrt(n); needs n >= 2
  std::optional<double> ci_high;
};

/// Statistics of a non-empty sample, summed in the given order (so results are reproducible).
Statistics describe(const std::vector<double>& values);

}  // namespace sim::sweep
