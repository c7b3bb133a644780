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
  if (!std::isfinite(ns) || std::fabs(ns) > 9.2e18) throw_not_a_time(ns, what);
  return static_cast<std::int64_t>(ns);
}

// Rounding by truncation and the exact fractional part, inline: std::round and std::ceil are
// libm calls on baseline x86-64 and cost more than the rest of seconds(). The results equal
// std::round / std::ceil for every input: checked_ns accepts |ns| <= 9.2e18 < 2^63, so the
// truncation is defined; below 2^52 both the truncated value and ns - truncated are exact
// doubles, and from 2^52 on ns is an integer (fraction 0). Checking ns before rounding accepts
// the same values as checking the rounded value, since rounding moves only values below 2^52.

/// std::round(ns) (halves away from zero) as an integer, after checking ns.
inline std::int64_t round_ns(double ns, const char* what) {
  const std::int64_t whole = checked_ns(ns, what);
  const double frac = ns - static_cast<double>(whole);
  // Branch-free: the fraction is as good as random, so a branch would be mispredicted often.
  return whole + static_cast<std::int64_t>(frac >= 0.5) - static_cast<std::int64_t>(frac <= -0.5);
}

/// std::ceil(ns) as an integer, after checking ns.
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
