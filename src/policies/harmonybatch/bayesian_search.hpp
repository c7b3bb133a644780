#pragma once
/// A small Bayesian-optimisation maximiser over a 2-D box, as MBS+ uses one per group and
/// function type (HarmonyBatch §V-A: MBS+ searches its configurations with Bayesian
/// optimisation; the original calls bayes_opt with random_state 1 and 10 iterations,
/// implementations.md §1.15). A Gaussian process with a Matérn-5/2 kernel on the box scaled to
/// [0, 1]^2 and normalised targets, an upper-confidence-bound acquisition (kappa 2.576, the
/// library's default) maximised over random candidates and the box's corners. The budget
/// (initial random points + guided iterations) is what makes MBS+ as weak as the paper's: it
/// evaluates 15 points per function type instead of the whole grid.

#include <array>
#include <cstdint>
#include <functional>

namespace sim::policy::harmonybatch {

struct BayesianSearchOptions {
  int initial_points = 5;      ///< random evaluations before the GP guides the search
  int iterations = 10;         ///< GP-guided evaluations
  std::uint64_t seed = 1;      ///< deterministic: same seed, same points
  double kappa = 2.576;        ///< UCB exploration weight
  double length_scale = 0.25;  ///< kernel length scale on the unit box (fixed, not fitted)
  int candidates = 2000;       ///< random candidates per acquisition maximisation
};

struct BayesianSearchResult {
  std::array<double, 2> best_x{};
  double best_value = 0.0;
  int evaluations = 0;
};

/// Maximises f over [lo, hi] (per coordinate) with `options.initial_points +
/// options.iterations` evaluations; returns the best evaluated point.
BayesianSearchResult bayesian_maximise(const std::function<double(double, double)>& f,
                                       std::array<double, 2> lo, std::array<double, 2> hi,
                                       const BayesianSearchOptions& options);

}  // namespace sim::policy::harmonybatch
