#include "arima.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace sim::policy::infless {

namespace {

/// Solves a x = b (n x n, row-major) by Gaussian elimination with partial pivoting; false
/// when a pivot is negligible against the matrix's largest entry (singular).
bool solve(std::vector<double> a, std::vector<double> b, std::size_t n, std::vector<double>& x) {
  double scale = 0.0;
  for (const double v : a)
    scale = std::max(scale, std::fabs(v));
  if (scale == 0.0) return false;
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    for (std::size_t r = col + 1; r < n; ++r) {
      if (std::fabs(a[r * n + col]) > std::fabs(a[pivot * n + col])) pivot = r;
    }
    if (std::fabs(a[pivot * n + col]) <= 1e-12 * scale) return false;
    if (pivot != col) {
      for (std::size_t k = 0; k < n; ++k)
        std::swap(a[col * n + k], a[pivot * n + k]);
      std::swap(b[col], b[pivot]);
    }
    for (std::size_t r = col + 1; r < n; ++r) {
      const double f = a[r * n + col] / a[col * n + col];
      for (std::size_t k = col; k < n; ++k)
        a[r * n + k] -= f * a[col * n + k];
      b[r] -= f * b[col];
    }
  }
  x.assign(n, 0.0);
  for (std::size_t i = n; i-- > 0;) {
    double s = b[i];
    for (std::size_t k = i + 1; k < n; ++k)
      s -= a[i * n + k] * x[k];
    x[i] = s / a[i * n + i];
  }
  return true;
}

/// The one-step forecast of an AR(p) with intercept fitted to w by least squares; p falls back
/// as described in arima.hpp.
double ar_forecast(const std::vector<double>& w, std::size_t p) {
  // Rows t = p .. m-1 give m - p equations for p + 1 unknowns.
  while (p > 0 && w.size() < 2 * p + 1)
    --p;
  for (; p > 0; --p) {
    const std::size_t n = p + 1;  // unknowns: c, phi_1 .. phi_p
    std::vector<double> xtx(n * n, 0.0), xty(n, 0.0);
    for (std::size_t t = p; t < w.size(); ++t) {
      std::vector<double> row(n);
      row[0] = 1.0;
      for (std::size_t i = 1; i <= p; ++i)
        row[i] = w[t - i];
      for (std::size_t r = 0; r < n; ++r) {
        xty[r] += row[r] * w[t];
        for (std::size_t k = 0; k < n; ++k)
          xtx[r * n + k] += row[r] * row[k];
      }
    }
    std::vector<double> beta;
    if (!solve(xtx, xty, n, beta)) continue;  // collinear lags: a smaller order
    double next = beta[0];
    for (std::size_t i = 1; i <= p; ++i)
      next += beta[i] * w[w.size() - i];
    return next;
  }
  double sum = 0.0;
  for (const double v : w)
    sum += v;
  return sum / static_cast<double>(w.size());
}

}  // namespace

double arima_forecast(std::span<const double> series, ArimaOrder order) {
  if (series.empty()) throw std::invalid_argument("arima_forecast: an empty series");
  if (order.p < 0 || order.d < 0) throw std::invalid_argument("arima_forecast: a negative order");
  const auto d = std::min(static_cast<std::size_t>(order.d), series.size() - 1);
  // levels[k]: the series differenced k times.
  std::vector<std::vector<double>> levels{std::vector<double>(series.begin(), series.end())};
  for (std::size_t k = 1; k <= d; ++k) {
    const auto& prev = levels.back();
    std::vector<double> next(prev.size() - 1);
    for (std::size_t i = 1; i < prev.size(); ++i)
      next[i - 1] = prev[i] - prev[i - 1];
    levels.push_back(std::move(next));
  }
  double forecast = ar_forecast(levels.back(), static_cast<std::size_t>(order.p));
  // Integrate back: x_{n+1} = x_n + (difference forecast), level by level.
  for (std::size_t k = d; k-- > 0;)
    forecast += levels[k].back();
  return forecast;
}

}  // namespace sim::policy::infless
