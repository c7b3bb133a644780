// `dcsim flows` writes its times and byte counts through a path of its own where it can prove
// the text equals fmt's shortest round trip ("{}"); here the two are compared on random and
// edge values (every output byte of the tool must stay the same).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

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
