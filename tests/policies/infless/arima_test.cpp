// ARIMA(p, d, 0) one-step forecasts (Shahrad et al. §4.2's out-of-bounds branch of HHP),
// hand-computed.

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "infless/arima.hpp"

namespace sim::policy::infless {
namespace {

double forecast(const std::vector<double>& s, int p, int d) {
  return arima_forecast(s, ArimaOrder{p, d});
}

// x_t = 2 + 0.5 x_{t-1} from 0: 0, 2, 3, 3.5, 3.75, 3.875. The least-squares AR(1) fit is exact
// (c = 2, phi = 0.5): next = 2 + 0.5 * 3.875 = 3.9375.
TEST(Arima, RecoversAnExactAutoregression) {
  EXPECT_NEAR(forecast({0, 2, 3, 3.5, 3.75, 3.875}, 1, 0), 3.9375, 1e-12);
}

// 1, 3, 2, 4 with AR(1): pairs (1, 3), (3, 2), (2, 4); mean x 2, mean y 3, Sxy = -1, Sxx = 2:
// phi = -0.5, c = 3 + 0.5 * 2 = 4; next = 4 - 0.5 * 4 = 2.
TEST(Arima, LeastSquaresWhenTheFitIsNotExact) {
  EXPECT_NEAR(forecast({1, 3, 2, 4}, 1, 0), 2.0, 1e-12);
}

// A linear trend 1..5 differenced once is constant 1: ARIMA(0, 1, 0) with drift gives 5 + 1.
// ARIMA(1, 1, 0): the differences are constant, so the lag is collinear with the intercept and
// the order falls back to p = 0, the same forecast. d = 2 on 1, 4, 9, 16 (squares): second
// differences 2, 2 -> first difference 7 + 2 = 9 -> 16 + 9 = 25.
TEST(Arima, DifferencesAndIntegratesBack) {
  EXPECT_NEAR(forecast({1, 2, 3, 4, 5}, 0, 1), 6.0, 1e-12);
  EXPECT_NEAR(forecast({1, 2, 3, 4, 5}, 1, 1), 6.0, 1e-12);
  EXPECT_NEAR(forecast({1, 4, 9, 16}, 0, 2), 25.0, 1e-12);
}

// Too short for the order: AR(1) needs three values, so two give their mean; one value is its
// own forecast (d lowered to 0); a constant series is singular for AR(1) and gives its mean.
TEST(Arima, FallsBackToSmallerOrders) {
  EXPECT_NEAR(forecast({10, 20}, 1, 0), 15.0, 1e-12);
  EXPECT_NEAR(forecast({7}, 1, 1), 7.0, 1e-12);
  EXPECT_NEAR(forecast({5, 5, 5, 5}, 1, 0), 5.0, 1e-12);
  EXPECT_THROW(forecast({}, 1, 0), std::invalid_argument);
  EXPECT_THROW(forecast({1}, -1, 0), std::invalid_argument);
}

}  // namespace
}  // namespace sim::policy::infless
