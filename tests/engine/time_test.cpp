#include "sim/engine/time.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "sim/engine/random.hpp"

namespace sim {
namespace {

TEST(Time, NamedConstructorsAgree) {
  EXPECT_EQ(seconds(1.5).ns(), 1'500'000'000);
  EXPECT_EQ(ms(20).ns(), 20'000'000);
  EXPECT_EQ(us(7).ns(), 7'000);
  EXPECT_EQ(ns(3).ns(), 3);
  EXPECT_EQ(minutes(2), seconds(120));
  EXPECT_EQ(hours(1), seconds(3600));
}

TEST(Time, SecondsRoundToNearestButCeilRoundsUp) {
  // 1e-9 * 0.4 s is below half a nanosecond: nearest gives 0, ceil gives 1 ns.
  EXPECT_EQ(seconds(0.4e-9).ns(), 0);
  EXPECT_EQ(ceil_seconds(0.4e-9).ns(), 1);
  // An exactly representable value is not pushed up by ceil.
  EXPECT_EQ(ceil_seconds(2.0).ns(), 2'000'000'000);
}

TEST(Time, InlineRoundingEqualsLibm) {
  // seconds() and ceil_seconds() round inline; they must agree with std::round / std::ceil
  // everywhere: halves, the largest double below 0.5, both signs, near 2^52 and 2^53, and
  // values spread over the whole accepted range.
  std::vector<double> ns = {0.0,
                            -0.0,
                            0.5,
                            -0.5,
                            1.5,
                            -1.5,
                            2.5,
                            -2.5,
                            0.49999999999999994,
                            -0.49999999999999994,
                            4503599627370495.5,
                            -4503599627370495.5,
                            4503599627370497.0,
                            9007199254740993.0,
                            9.2e18,
                            -9.2e18};
  // Halves and their neighbours where the grid step changes (the add in round_ns rounds).
  for (const double base : {0.0, 1.0, 2.0, 1024.0, 0x1.0p51, 0x1.0p52 - 1.0, 0x1.0p52, 0x1.0p53}) {
    for (const double half : {base + 0.5, base + 1.5, base - 0.5}) {
      for (const double v : {std::nextafter(half, 0.0), half, std::nextafter(half, 1e300)}) {
        ns.push_back(v);
        ns.push_back(-v);
      }
    }
  }
  std::uint64_t state = 12345;
  for (int i = 0; i < 100000; ++i) {
    // Random mantissa and a random binary exponent in [-20, 62].
    const std::uint64_t r = splitmix64(state);
    const double m = static_cast<double>(r >> 11) * 0x1.0p-53;
    const int e = static_cast<int>(r % 83) - 20;
    const double v = std::ldexp(m, e);
    if (std::fabs(v) <= 9.2e18) ns.push_back((r & 1U) != 0 ? -v : v);
  }
  for (const double v : ns) {
    EXPECT_EQ(detail::round_ns(v, "test"), static_cast<std::int64_t>(std::round(v))) << v;
    EXPECT_EQ(detail::ceil_ns(v, "test"), static_cast<std::int64_t>(std::ceil(v))) << v;
    const double s = v * 1e-9;
    if (std::fabs(s * 1e9) > 9.2e18) continue;
    EXPECT_EQ(seconds(s).ns(), static_cast<std::int64_t>(std::round(s * 1e9))) << v;
    EXPECT_EQ(ceil_seconds(s).ns(), static_cast<std::int64_t>(std::ceil(s * 1e9))) << v;
  }
}

TEST(Time, ArithmeticAndComparison) {
  EXPECT_EQ(seconds(1) + ms(500), seconds(1.5));
  EXPECT_EQ(seconds(1) - ms(1), ms(999));
  EXPECT_EQ(ms(3) * 4, ms(12));
  EXPECT_DOUBLE_EQ(ms(3) / ms(12), 0.25);
  EXPECT_LT(ms(1), us(1001));
  EXPECT_GT(Time::max(), hours(1e6));
}

TEST(Time, RejectsUnrepresentableValues) {
  EXPECT_THROW(seconds(1e12), std::out_of_range);
  EXPECT_THROW(seconds(std::nan("")), std::out_of_range);
}

TEST(Time, ToStringUsesLargestExactUnit) {
  EXPECT_EQ(to_string(seconds(3)), "3s");
  EXPECT_EQ(to_string(ms(1500)), "1500ms");
  EXPECT_EQ(to_string(us(12)), "12us");
  EXPECT_EQ(to_string(ns(5)), "5ns");
  EXPECT_EQ(to_string(Time::max()), "max");
}

}  // namespace
}  // namespace sim
