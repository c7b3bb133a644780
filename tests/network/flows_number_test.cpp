// `dcsim flows` writes its times and byte counts through a path of its own where it can prove
// the text equals fmt's shortest round trip ("{}"); here the two are compared on random and
// edge values (every output byte of the tool must stay the same).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <system_error>

#include "sim/engine/time.hpp"
#include "sim/network/flows_tool.hpp"

namespace sim::net {
namespace {

std::string seconds_text(std::int64_t ns) {
  char buf[detail::kNumberChars];
  return std::string(buf, detail::write_seconds(buf, ns));
}

std::string double_text(double v) {
  char buf[detail::kNumberChars];
  return std::string(buf, detail::write_double(buf, v));
}

TEST(FlowsNumbers, SecondsAreWrittenAsFmtWritesThem) {
  std::mt19937_64 rng(7);
  std::size_t checked = 0;
  const auto check = [&](std::int64_t ns) {
    ASSERT_EQ(seconds_text(ns), fmt::format("{}", Time::from_ns(ns).to_seconds())) << ns << " ns";
    ++checked;
  };
  // Every magnitude from 1 ns to 9.2e18 ns, with few and many significant digits.
  for (std::int64_t scale = 1; scale <= std::numeric_limits<std::int64_t>::max() / 10;
       scale *= 10) {
    for (int k = 0; k < 20000; ++k) {
      const std::int64_t ns =
          static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(scale * 10));
      check(ns);
      check(ns / 1000 * 1000);  // trailing zeros
      check(ns - ns % scale);   // one significant digit
    }
  }
  for (const std::int64_t ns :
       {std::int64_t{0}, std::int64_t{1}, std::int64_t{99999}, std::int64_t{100000},
        std::int64_t{999999999}, std::int64_t{1000000000}, std::int64_t{8283644158},
        std::int64_t{999999999999999}, std::int64_t{1000000000000000}, std::int64_t{-5},
        std::int64_t{-8283644158}, std::numeric_limits<std::int64_t>::max(),
        std::numeric_limits<std::int64_t>::min()}) {
    check(ns);
  }
  EXPECT_GT(checked, 1000000u);
}

std::string near_text(double v, int e10, int min_digits = 16) {
  char buf[detail::kNumberChars];
  char* end = detail::write_shortest(buf, v, e10, min_digits);
  return end == nullptr ? std::string("(none)") : std::string(buf, end);
}

int significant_digits(const std::string& text) {
  int n = 0;
  bool leading = true;
  for (const char c : text) {
    if (c < '0' || c > '9') continue;
    if (leading && c == '0') continue;
    leading = false;
    ++n;
  }
  return n;
}

std::string fixed_text(std::uint64_t n, int p) {
  char buf[detail::kNumberChars];
  return std::string(buf, detail::write_fixed(buf, n, p));
}

TEST(FlowsNumbers, FixedPoint) {
  EXPECT_EQ(fixed_text(0, 0), "0");
  EXPECT_EQ(fixed_text(0, 9), "0");
  EXPECT_EQ(fixed_text(7, 0), "7");
  EXPECT_EQ(fixed_text(7, 1), "0.7");
  EXPECT_EQ(fixed_text(7, 3), "0.007");
  EXPECT_EQ(fixed_text(70, 1), "7");
  EXPECT_EQ(fixed_text(1050, 2), "10.5");
  EXPECT_EQ(fixed_text(4659492270, 9), "4.65949227");
  EXPECT_EQ(fixed_text(8283644158000001, 15), "8.283644158000001");
  EXPECT_EQ(fixed_text(99999999999999999, 0), "99999999999999999");
  EXPECT_EQ(fixed_text(99999999999999999, 17), "0.99999999999999999");
  EXPECT_EQ(fixed_text(12345678901234567, 20), "0.00012345678901234567");
  EXPECT_EQ(fixed_text(10000000000000000, 16), "1");
  EXPECT_EQ(fixed_text(1000000000, 9), "1");
  EXPECT_EQ(fixed_text(1000000001, 9), "1.000000001");
}

// The times write_seconds once left to fmt (n * 1e-9 not the double nearest to n / 10^9, or n of
// 16 digits), now written by write_shortest.
TEST(FlowsNumbers, NearDecimalsOfTimes) {
  // The cloud mix's first finish: 8283644158 ns * 1e-9 is 8.28364415800000131..., one ulp
  // (1.8e-15) above 8.28364415799999953..., the double nearest to 8.283644158; 16 digits are
  // needed, and 8.283644158000001 is the 16-digit decimal nearest to it (3.1e-16 away, under half
  // an ulp).
  const double v = Time::from_ns(8283644158).to_seconds();
  ASSERT_NE(v, 8283644158.0 / 1e9);
  EXPECT_EQ(near_text(v, 0), "8.283644158000001");
  EXPECT_EQ(seconds_text(8283644158), "8.283644158000001");
  // Its duration in the same row: 16.15978511600000189..., one ulp (3.6e-15) above the double
  // nearest to 16.159785116; 17 digits, 16.159785116000002 the nearest of them.
  EXPECT_EQ(seconds_text(16159785116), "16.159785116000002");

  std::mt19937_64 rng(13);
  std::size_t near = 0;
  std::size_t none = 0;
  for (int k = 0; k < 400000; ++k) {
    const int digits = 6 + static_cast<int>(rng() % 11);  // ns of 6..16 digits
    std::int64_t low = 1;
    for (int i = 1; i < digits; ++i)
      low *= 10;
    const auto ns = low + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(9 * low));
    const double t = Time::from_ns(ns).to_seconds();
    const std::string expected = fmt::format("{}", t);
    ASSERT_EQ(seconds_text(ns), expected) << ns << " ns";
    const bool exact = t == static_cast<double>(ns) / 1e9;
    if (exact && digits < 16) continue;
    const std::string text = near_text(t, digits - 10, exact || digits == 16 ? 1 : 16);
    if (text == "(none)") {
      ++none;
      continue;
    }
    ASSERT_EQ(text, expected) << ns << " ns";
    ++near;
  }
  EXPECT_GT(near, 100000u);
  EXPECT_LT(none, near / 1000);
}

// Any double in [1e-4, 2^53), from random bits and with few digits: the shortest decimal of any
// length (min_digits 1), and of 16 or 17 digits (min_digits 16) where fmt's has that many.
TEST(FlowsNumbers, ShortestOfAnyDouble) {
  std::mt19937_64 rng(17);
  std::size_t written = 0;
  std::size_t short_ones = 0;
  std::size_t undecided = 0;  // non-integral below 1e13, left to fmt
  for (int k = 0; k < 600000; ++k) {
    const int e10 = -4 + static_cast<int>(rng() % 20);
    const double lo = std::pow(10.0, e10);
    double v = lo + static_cast<double>(rng() >> 11) * 0x1p-53 * (9.0 * lo);
    if (k % 3 == 1) {
      // A decimal of few digits, and the doubles next to it.
      const double step = lo * std::pow(10.0, -static_cast<double>(1 + rng() % 16));
      v = std::nextafter(std::round(v / step) * step, (rng() % 3 == 0) ? 0.0 : 1e300);
      if (k % 2 == 0) v = std::round(v / step) * step;
    }
    if (!(v >= lo && v < 10.0 * lo) || v >= 0x1p53) continue;
    const std::string expected = fmt::format("{}", v);
    const int digits = significant_digits(expected);
    const std::string any = near_text(v, e10, 1);
    if (any != "(none)") {
      ASSERT_EQ(any, expected) << v;
      ++written;
      if (digits < 16) ++short_ones;
    } else if (std::floor(v) != v) {
      // Above 1e13 a double has at most 2 fractional bits, and the 17-digit decimals (as the
      // 16-digit ones above 1e14) tie more often: two nearest ones, both reading back.
      if (e10 < 13) ++undecided;
    }
    if (digits >= 16) {
      const std::string text = near_text(v, e10);
      if (text != "(none)") {
        ASSERT_EQ(text, expected) << v;
      }
    }
  }
  EXPECT_GT(written, 300000u);
  EXPECT_GT(short_ones, 50000u);
  EXPECT_LT(undecided, written / 1000);
  // The edges: the smallest significand (an uneven rounding interval) and the largest.
  EXPECT_EQ(near_text(1.0, 0), "(none)");
  EXPECT_EQ(near_text(1.5, 0, 1), "1.5");
  EXPECT_EQ(near_text(1e6 + 0.25, 6, 1), "1000000.25");
  EXPECT_EQ(near_text(8283644158.0, 9, 1), "(none)");  // integral: fmt writes it
  EXPECT_EQ(near_text(std::nextafter(2.0, 0.0), 0), "1.9999999999999998");
  EXPECT_EQ(near_text(std::nextafter(1.0, 2.0), 0), "1.0000000000000002");
}

double from_chars_number(std::string_view s, bool& ok) {
  double v = 0.0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  ok = ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(v);
  return v;
}

// Number cells: the plain-decimal fast path (m / 10^k in one division) must read what
// std::from_chars reads, and everything else must still go to from_chars.
TEST(FlowsNumbers, CellsAreReadAsFromCharsReadsThem) {
  const auto check = [](const std::string& text) {
    bool ok = false;
    bool expected_ok = false;
    const double v = detail::parse_number(text, ok);
    const double expected = from_chars_number(text, expected_ok);
    ASSERT_EQ(ok, expected_ok) << text;
    if (ok) {
      ASSERT_EQ(std::bit_cast<std::uint64_t>(v), std::bit_cast<std::uint64_t>(expected)) << text;
    }
  };
  // Hand-checked: 4.659492270 is 4659492270 / 10^9, the double 4.65949227000000032...
  bool ok = false;
  EXPECT_EQ(detail::parse_number("4.659492270", ok), 4.65949227);
  EXPECT_TRUE(ok);
  EXPECT_EQ(detail::parse_number("499000000", ok), 499000000.0);
  EXPECT_EQ(detail::parse_number("0.1", ok), 0.1);
  EXPECT_EQ(detail::parse_number("9007199254740993", ok), 9007199254740992.0);  // 2^53 + 1
  for (const char* text : {"0",
                           "00",
                           "0.0",
                           "5.",
                           ".5",
                           "-5",
                           "+5",
                           "1e9",
                           "1E-3",
                           "1.5e3",
                           "inf",
                           "nan",
                           "",
                           ".",
                           "1..2",
                           "1.2.3",
                           "12a",
                           "0x10",
                           "9007199254740992",
                           "9007199254740993",
                           "18446744073709551615",
                           "99999999999999999999",
                           "123456789012345678901234",
                           "0.00000000000000000001",
                           "0.1234567890123456789",
                           "1234567890.123456789",
                           "1e400",
                           " 1",
                           "1 "}) {
    check(text);
  }
  std::mt19937_64 rng(19);
  for (int k = 0; k < 300000; ++k) {
    const int digits = 1 + static_cast<int>(rng() % 21);
    std::string text;
    for (int i = 0; i < digits; ++i)
      text += static_cast<char>('0' + rng() % 10);
    if (rng() % 4 != 0) text.insert(rng() % (text.size() + 1), ".");
    check(text);
  }
}

TEST(FlowsNumbers, DoublesAreWrittenAsFmtWritesThem) {
  std::mt19937_64 rng(11);
  const auto check = [](double v) { ASSERT_EQ(double_text(v), fmt::format("{}", v)) << v; };
  for (int k = 0; k < 200000; ++k) {
    const double mag = std::pow(10.0, static_cast<double>(rng() % 40) - 20.0);
    const double v = static_cast<double>(rng() % 1000000) * mag;
    check(v);
    check(std::floor(v));
    check(-v);
  }
  for (const double v : {0.0, -0.0, 1.0, 0.5, 499000000.0, 999999999999999.0, 1e15, 1e16, 1e300,
                         std::numeric_limits<double>::denorm_min(),
                         std::numeric_limits<double>::max(), 9007199254740993.0}) {
    check(v);
  }
}

}  // namespace
}  // namespace sim::net
