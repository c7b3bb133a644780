// Gaussian-process Bayesian optimisation over a 2-D box (MBS+'s configuration search).

#include "bayesian_search.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace sim::policy::harmonybatch {

namespace {

// splitmix64: a portable generator (std distributions differ between standard libraries,
// which would break byte-identical plans across compilers).
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  double uniform() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53;
  }

 private:
  std::uint64_t state_;
};

using Point = std::array<double, 2>;

double matern52(const Point& a, const Point& b, double l) {
  const double d = std::hypot(a[0] - b[0], a[1] - b[1]) / l;
  const double s = std::sqrt(5.0) * d;
  return (1.0 + s + s * s / 3.0) * std::exp(-s);
}

// The GP posterior on the evaluated points (Cholesky of K + noise I).
class Posterior {
 public:
  Posterior(const std::vector<Point>& x, const std::vector<double>& y, double l) : x_(x), l_(l) {
    const std::size_t n = x.size();
    double mean = 0.0;
    for (double v : y)
      mean += v;
    mean /= static_cast<double>(n);
    double var = 0.0;
    for (double v : y)
      var += (v - mean) * (v - mean);
    const double sd = var > 0.0 ? std::sqrt(var / static_cast<double>(n)) : 1.0;
    chol_.assign(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j <= i; ++j) {
        double s = matern52(x[i], x[j], l) + (i == j ? 1e-6 : 0.0);
        for (std::size_t k = 0; k < j; ++k)
          s -= chol_[i * n + k] * chol_[j * n + k];
        chol_[i * n + j] = i == j ? std::sqrt(std::max(s, 1e-12)) : s / chol_[j * n + j];
      }
    }
    alpha_.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      alpha_[i] = (y[i] - mean) / sd;
    solve_lower(alpha_);
    solve_upper(alpha_);
  }

  // UCB on the normalised scale (the argmax is the same as on the original scale).
  [[nodiscard]] double ucb(const Point& p, double kappa) const {
    const std::size_t n = x_.size();
    std::vector<double> k(n);
    for (std::size_t i = 0; i < n; ++i)
      k[i] = matern52(p, x_[i], l_);
    double mu = 0.0;
    for (std::size_t i = 0; i < n; ++i)
      mu += k[i] * alpha_[i];
    solve_lower(k);
    double v = 0.0;
    for (double e : k)
      v += e * e;
    return mu + kappa * std::sqrt(std::max(1.0 - v, 0.0));
  }

 private:
  void solve_lower(std::vector<double>& b) const {
    const std::size_t n = x_.size();
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t k = 0; k < i; ++k)
        b[i] -= chol_[i * n + k] * b[k];
      b[i] /= chol_[i * n + i];
    }
  }
  void solve_upper(std::vector<double>& b) const {
    const std::size_t n = x_.size();
    for (std::size_t i = n; i-- > 0;) {
      for (std::size_t k = i + 1; k < n; ++k)
        b[i] -= chol_[k * n + i] * b[k];
      b[i] /= chol_[i * n + i];
    }
  }

  std::vector<Point> x_;
  double l_;
  std::vector<double> chol_;
  std::vector<double> alpha_;
};

}  // namespace

BayesianSearchResult bayesian_maximise(const std::function<double(double, double)>& f,
                                       std::array<double, 2> lo, std::array<double, 2> hi,
                                       const BayesianSearchOptions& o) {
  if (o.initial_points < 1 || o.iterations < 0) {
    throw std::invalid_argument("Bayesian search: need >= 1 initial point and >= 0 iterations");
  }
  Random rng(o.seed);
  std::vector<Point> x;  // on the unit box
  std::vector<double> y;
  BayesianSearchResult result;
  auto evaluate = [&](const Point& u) {
    const double v = f(lo[0] + u[0] * (hi[0] - lo[0]), lo[1] + u[1] * (hi[1] - lo[1]));
    x.push_back(u);
    y.push_back(v);
    if (result.evaluations == 0 || v > result.best_value) {
      result.best_value = v;
      result.best_x = {lo[0] + u[0] * (hi[0] - lo[0]), lo[1] + u[1] * (hi[1] - lo[1])};
    }
    ++result.evaluations;
  };
  for (int k = 0; k < o.initial_points; ++k) {
    const double a = rng.uniform();
    evaluate({a, rng.uniform()});
  }
  for (int it = 0; it < o.iterations; ++it) {
    const Posterior gp(x, y, o.length_scale);
    // Candidates: the corners (a bounded optimiser often ends on the box's edge) and random
    // points; the best UCB not already evaluated is evaluated next.
    std::vector<Point> candidates{{0.0, 0.0}, {0.0, 1.0}, {1.0, 0.0}, {1.0, 1.0}};
    for (int c = 0; c < o.candidates; ++c) {
      const double a = rng.uniform();
      candidates.push_back({a, rng.uniform()});
    }
    const Point* best = nullptr;
    double best_ucb = 0.0;
    for (const auto& c : candidates) {
      bool seen = false;
      for (const auto& e : x)
        seen = seen || (e[0] == c[0] && e[1] == c[1]);
      if (seen) continue;
      const double u = gp.ucb(c, o.kappa);
      if (best == nullptr || u > best_ucb) {
        best = &c;
        best_ucb = u;
      }
    }
    if (best == nullptr) break;
    evaluate(*best);
  }
  return result;
}

}  // namespace sim::policy::harmonybatch
