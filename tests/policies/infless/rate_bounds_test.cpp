// INFless eq. (1) and the dispatch rules (i)-(iii) of §3.2, hand-computed.

#include <gtest/gtest.h>

#include <cmath>

#include "infless/dispatch_rules.hpp"
#include "infless/rate_bounds.hpp"

namespace sim::policy::infless {
namespace {

// The paper's example (§3.2): SLO 200 ms, t_exec 50 ms, b = 4:
// r_up = floor(1 / 0.05) * 4 = 20 * 4 = 80; r_low = ceil(1 / 0.15) * 4 = 7 * 4 = 28.
TEST(RateBounds, PaperExampleGives28To80) {
  const RateBounds r = rate_bounds(0.05, 0.2, 4);
  EXPECT_DOUBLE_EQ(r.r_low, 28.0);
  EXPECT_DOUBLE_EQ(r.r_up, 80.0);
}

// t_exec = 0.1 s: 1 / 0.1 is 10.000000000000002 in floating point; floor/ceil must still give
// r_up = 10 * 2 = 20 and (SLO 0.2) r_low = ceil(1 / 0.1) * 2 = 20.
TEST(RateBounds, ExactReciprocalsAreNotShiftedByRounding) {
  const RateBounds r = rate_bounds(0.1, 0.2, 2);
  EXPECT_DOUBLE_EQ(r.r_up, 20.0);
  EXPECT_DOUBLE_EQ(r.r_low, 20.0);
}

TEST(RateBounds, ExecutionLongerThanSloHasNoFeasibleRate) {
  EXPECT_TRUE(std::isinf(rate_bounds(0.3, 0.2, 1).r_low));
}

// Two instances [28, 80] and [10, 20]: R_min = 38, R_max = 100. alpha = 0.8:
// rule (ii) holds for 0.8 * 38 + 0.2 * 100 = 50.4 <= R <= 100.
TEST(DispatchRules, OverloadGivesEveryInstanceItsUpperBound) {
  const RateBounds b[] = {{28, 80}, {10, 20}};
  const DispatchPlan p = dispatch_rates(130.0, b, 0.8);
  EXPECT_EQ(p.which, DispatchCase::kOverload);
  EXPECT_DOUBLE_EQ(p.rates[0], 80.0);
  EXPECT_DOUBLE_EQ(p.rates[1], 20.0);
  EXPECT_DOUBLE_EQ(p.residual, 30.0);  // 130 - 100 goes to the scaling engine
}

// R = 80: r_i = r_up_i - (100 - 80) / (100 - 38) * (r_up_i - r_low_i):
// 80 - 20/62 * 52 = 63.2258..., 20 - 20/62 * 10 = 16.7742...; they sum to R.
TEST(DispatchRules, ProportionalRuleSplitsByRangeSize) {
  const RateBounds b[] = {{28, 80}, {10, 20}};
  const DispatchPlan p = dispatch_rates(80.0, b, 0.8);
  EXPECT_EQ(p.which, DispatchCase::kProportional);
  EXPECT_NEAR(p.rates[0], 80.0 - 20.0 / 62.0 * 52.0, 1e-12);
  EXPECT_NEAR(p.rates[1], 20.0 - 20.0 / 62.0 * 10.0, 1e-12);
  EXPECT_NEAR(p.rates[0] + p.rates[1], 80.0, 1e-12);
  EXPECT_DOUBLE_EQ(p.r_min, 38.0);
  EXPECT_DOUBLE_EQ(p.r_max, 100.0);
}

// The band's lower edge 50.4 is in (ii); 50 is below it: rule (iii).
TEST(DispatchRules, ReleaseBelowAlphaWeightedBand) {
  const RateBounds b[] = {{28, 80}, {10, 20}};
  EXPECT_EQ(dispatch_rates(50.4, b, 0.8).which, DispatchCase::kProportional);
  EXPECT_EQ(dispatch_rates(50.0, b, 0.8).which, DispatchCase::kRelease);
  EXPECT_EQ(dispatch_rates(0.0, b, 0.8).which, DispatchCase::kIdle);
}

// R = 50 with [28, 80] and [10, 20]: releasing [10, 20] leaves [28, 80], whose band floor is
// 0.8 * 28 + 0.2 * 80 = 38.4 <= 50: one release. Releasing [28, 80] instead would leave
// R_max = 20 < 50, so it is not a candidate.
TEST(DispatchRules, ReleaseSetRestoresRuleTwo) {
  const RateBounds b[] = {{28, 80}, {10, 20}};
  const auto r = release_set(50.0, b, 0.8);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], 1u);
}

// Three [28, 80] instances and R = 60: floors 0.8*84+0.2*240 = 115.2, then 0.8*56+0.2*160 =
// 76.8 (> 60, release again), then 38.4 <= 60: two releases, the later instances first.
TEST(DispatchRules, ReleaseSetStopsWhenOneInstanceSuffices) {
  const RateBounds b[] = {{28, 80}, {28, 80}, {28, 80}};
  const auto r = release_set(60.0, b, 0.8);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], 2u);
  EXPECT_EQ(r[1], 1u);
}

}  // namespace
}  // namespace sim::policy::infless
