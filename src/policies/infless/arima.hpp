#pragma once
/// A one-step ARIMA(p, d, 0) forecast, for the hybrid histogram policy's out-of-bounds branch
/// (Shahrad et al., "Serverless in the Wild", ATC '20, §4.2: when too many of an application's
/// idle times exceed the histogram's range, the next idle time is forecast with ARIMA).
///
/// The series is differenced d times; an autoregression of order p with an intercept,
///   w_t = c + phi_1 w_{t-1} + ... + phi_p w_{t-p},
/// is fitted to the differenced series by least squares (the conditional sum of squares, which
/// for a model without moving-average terms is the ordinary least-squares problem, solved in
/// closed form), and its one-step forecast is integrated back d times. No moving-average terms
/// (q = 0): they need an iterative likelihood fit, and the forecast must be deterministic and
/// cheap at every control tick. When the series is too short for the order, or the normal
/// equations are singular (a constant series), the order falls back to the largest p that can
/// be fitted, down to p = 0 (the mean of the differenced series).

#include <span>

namespace sim::policy::infless {

struct ArimaOrder {
  int p = 1;  ///< autoregressive terms
  int d = 0;  ///< differences
};

/// The next value of `series` (oldest first; at least one value). d is lowered to
/// series.size() - 1 when the series is shorter than d + 1. Throws std::invalid_argument for an
/// empty series or a negative order.
double arima_forecast(std::span<const double> series, ArimaOrder order);

}  // namespace sim::policy::infless
