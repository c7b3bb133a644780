#pragma once
/// Simulated time: a signed 64-bit count of nanoseconds (DESIGN.md, "Time").
///
/// There is no floating-point clock. Doubles appear only inside fluid models (rates, remaining
/// bytes); when such a model computes a finish time it converts with `ceil_seconds`, which rounds
/// up to the next nanosecond so that nothing finishes early.

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace sim {

class Time {
 public:
  constexpr Time() = default;

  static constexpr Time from_ns(std::int64_t ns) { return Time(ns); }
  static constexpr Time zero() { return Time(0); }
  /// The largest representable time; use it (or std::optional<Time>) instead of sentinels.
  static constexpr Time max() { return Time(std::numeric_limits<std::int64_t>::max()); }

  [[nodiscard]] constexpr std::int64_t ns() const { return ns_; }
  [[nodiscard]] constexpr double to_seconds() const { return static_cast<double>(ns_) * 1e-9; }
  [[nodiscard]] constexpr double to_ms() const { return static_cast<double>(ns_) * 1e-6; }

  constexpr auto operator<=>(const Time&) const = default;

  constexpr Time& operator+=(Time o) {
    ns_ += o.ns_;
    return *this;
  }
  constexpr Time& operator-=(Time o) {
    ns_ -= o.ns_;
    return *this;
  }
  friend constexpr Time operator+(Time a, Time b) { return Time(a.ns_ + b.ns_); }
  friend constexpr Time operator-(Time a, Time b) { return Time(a.ns_ - b.ns_); }
  friend constexpr Time operator*(Time a, std::int64_t k) { return Time(a.ns_ * k); }
  friend constexpr Time operator*(std::int64_t k, Time a) { return Time(a.ns_ * k); }
  friend constexpr Time operator/(Time a, std::int64_t k) { return Time(a.ns_ / k); }
  /// Ratio of two durations.
  friend constexpr double operator/(Time a, Time b) {
    return static_cast<double>(a.ns_) / static_cast<double>(b.ns_);
  }

 private:
  constexpr explicit Time(std::int64_t ns) : ns_(ns) {}
  std::int64_t ns_ = 0;
};

namespace detail {
/// Throws the std::out_of_range of checked_ns. Out of line, so that building the message does
/// not keep checked_ns (on the path of every scheduled event) from being inlined.
[[noreturn]] void throw_not_a_time(double ns, const char* what);

inline std::int64_t checked_ns(double ns, const char* what) {
  // 9.2e18 ns is about 292 years: anything beyond (or NaN) is an input error, not a time.
  // One comparison: it is false for NaN (and for infinities, which are beyond).
  if (!(std::fabs(ns) <= 9.2e18)) [[unlikely]]
    throw_not_a_time(ns, what);
  return static_cast<std::int64_t>(ns);
}

// Rounding inline: std::round and std::ceil are libm calls on baseline x86-64 and cost more
// than the rest of seconds(). The results equal std::round / std::ceil for every input:
// checked_ns accepts |ns| <= 9.2e18 < 2^63, so the truncation is defined. Checking ns before
// rounding accepts the same values as checking the rounded value, since rounding moves only
// values below 2^52.

/// std::round(ns) (halves away from zero) as an integer, after checking ns.
///
/// Computed as trunc(ns + h) for ns >= 0 (trunc(ns - h) below) with h = 0.5 - 2^-54, the
/// largest double below 0.5. For ns in [2^k, 2^(k+1)), k >= 0, with ulp u >= 2^-52, write
/// ns = n + f: if f <= 0.5 - u the exact sum is at most n + 1 - u - 2^-54, which rounds below
/// n + 1 (the grid step there is u or 2u); if f >= 0.5 it is at least n + 1 - 2^-54, which
/// rounds to n + 1 or above (2^-54 is less than half a step), and it stays below n + 2. Below
/// 0.5 the sum is at most 1 - 2^-53 < 1; from 0.5 to 1 it is 1 - 2^-54 (rounding to 1 by
/// ties-to-even, as round(0.5) = 1) or more, below 1.5; from 2^52 on h is below half an ulp
/// and ns is kept. Negative ns mirror this (truncation is toward zero).
/// Why: the time drawn by a model is on the dependency path to its event's key (in the hold
/// model: a draw, a logarithm, this rounding, the insertion), and shortening that path made
/// the model faster. The older form
/// (truncate, convert back, subtract, compare the fraction with +-0.5, add the comparisons)
/// gives the same results with a conversion to double, a subtraction and a comparison more on
/// that path; this one is an add and a conversion, and the sign is a branch (predicted: model
/// times are rarely negative) rather than a copysign (two more operations on the path).
/// Measured 2026-11-27 (hold model, SimPy draw, N = 1e5, interleaved): about +7%
/// (bench/performance-notes.md, Session 17).
inline std::int64_t round_ns(double ns, const char* what) {
  checked_ns(ns, what);
  constexpr double kHalfDown = 0.49999999999999994;
  if (ns >= 0.0) [[likely]]
    return static_cast<std::int64_t>(ns + kHalfDown);
  return static_cast<std::int64_t>(ns - kHalfDown);
}

/// std::ceil(ns) as an integer, after checking ns: the truncation plus one if a fraction is
/// left (below 2^52 both the truncated value and ns - truncated are exact doubles; from 2^52
/// on ns is an integer).
inline std::int64_t ceil_ns(double ns, const char* what) {
  const std::int64_t whole = checked_ns(ns, what);
  return whole + static_cast<std::int64_t>(ns - static_cast<double>(whole) > 0.0);
}
}  // namespace detail

constexpr Time ns(std::int64_t v) {
  return Time::from_ns(v);
}
constexpr Time us(std::int64_t v) {
  return Time::from_ns(v * 1000);
}
constexpr Time ms(std::int64_t v) {
  return Time::from_ns(v * 1000000);
}
/// Seconds, rounded to the nearest nanosecond.
inline Time seconds(double s) {
  return Time::from_ns(detail::round_ns(s * 1e9, "seconds"));
}
/// Seconds, rounded up to the next nanosecond: use for computed finish times.
inline Time ceil_seconds(double s) {
  return Time::from_ns(detail::ceil_ns(s * 1e9, "ceil_seconds"));
}
inline Time minutes(double m) {
  return seconds(m * 60.0);
}
inline Time hours(double h) {
  return seconds(h * 3600.0);
}

/// "1.5s", "20ms", "350ns": the shortest exact rendering for messages and file names.
std::string to_string(Time t);

}  // namespace sim
