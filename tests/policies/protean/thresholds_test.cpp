// Algorithm 2's profiled thresholds (calc_Lthresh / calc_Hthresh, profiled_thresholds.hpp),
// against eq. 2 worked by hand. The profiles are made up with round numbers so the crossings
// can be computed on paper; they are not the catalog's.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "protean/profiled_thresholds.hpp"
#include "protean/reconfiguration_planner.hpp"

namespace sim::policy::protean {
namespace {

const std::vector<std::string> kSmall{"1g.5gb", "2g.10gb"};
const std::vector<std::string> kThree{"3g.20gb"};

// A ResNet 50-like strict model (FBR 0.48) with a MobileNet-like BE model (FBR 0.22, 3.5 GB
// per 128-batch).
ThresholdProfile hi_strict_li_best_effort() {
  return {0.48, {{"1g.5gb", 4.3}, {"2g.10gb", 2.375}, {"3g.20gb", 1.7333}}, 0.22, 3.5, 128};
}

// A MobileNet-like strict model (FBR 0.22; RDF 2.2, 1.5, 1.25) with a ResNet 50-like BE model
// (FBR 0.48, 6.5 GB per 128-batch).
ThresholdProfile li_strict_hi_best_effort() {
  return {0.22, {{"1g.5gb", 2.2}, {"2g.10gb", 1.5}, {"3g.20gb", 1.25}}, 0.48, 6.5, 128};
}

// A language-model-like pair: strict FBR 0.7 (RDF 6, 3, 2), BE FBR 0.6, 2.5 GB per 4-batch.
ThresholdProfile vhi_pair() {
  return {0.7, {{"1g.5gb", 6.0}, {"2g.10gb", 3.0}, {"3g.20gb", 2.0}}, 0.6, 2.5, 4};
}

TEST(ProfiledThresholds, StrictEtaOnASliceSetFollowsAlgorithm1) {
  const auto p = hi_strict_li_best_effort();
  // No BE: (1g, 2g) -> the 2g, eta = 2.375 x max{0.48, 1}; the 3g: 1.7333.
  EXPECT_NEAR(strict_eta_on(kSmall, 0.0, p), 2.375, 1e-12);
  EXPECT_NEAR(strict_eta_on(kThree, 0.0, p), 1.7333, 1e-12);
  // One BE batch (3.5 GB): the 1g is tagged 0.7 (FBR 0.7 x 5 / 3.5 x 0.22 = 0.22, eta 4.3),
  // the 2g stays free (2.375); on the 3g 0.48 + 0.22 = 0.70 < 1: still 1.7333.
  EXPECT_NEAR(strict_eta_on(kSmall, 3.5, p), 2.375, 1e-12);
  EXPECT_NEAR(strict_eta_on(kThree, 3.5, p), 1.7333, 1e-12);
  // 14 GB: the 1g fully tagged (left out), the 2g tagged 0.9 -> BE FBR 9 / 3.5 x 0.22 =
  // 0.565714, eta = 2.375 x 1.045714 = 2.483571; the 3g: 4 batches, 0.48 + 0.88 = 1.36,
  // eta = 1.7333 x 1.36 = 2.357288.
  EXPECT_NEAR(strict_eta_on(kSmall, 14.0, p), 2.375 * (0.48 + 9.0 / 3.5 * 0.22), 1e-12);
  EXPECT_NEAR(strict_eta_on(kThree, 14.0, p), 1.7333 * 1.36, 1e-12);
}

TEST(ProfiledThresholds, NeverPreferredWhenTheThreeGAlwaysWins) {
  // HI strict, LI BE: on the 3g eta exceeds the free 2g's 2.375 only past 4.05 BE batches
  // (1.7333 x (0.48 + 0.22 b) > 2.375), by when BE have spilled onto the 2g, whose eta grows
  // faster (2.375 x 0.22 against 1.7333 x 0.22 per batch): (1g, 2g) is preferred at no count.
  const auto c = profiled_threshold_counts(kSmall, kThree, hi_strict_li_best_effort());
  EXPECT_EQ(c.capacity, 548);  // floor(15 / 3.5 x 128 = 548.57)
  EXPECT_GT(c.low, c.high);
  const auto t = profiled_thresholds(kSmall, kThree, hi_strict_li_best_effort());
  EXPECT_TRUE(std::isinf(t.low));
}

TEST(ProfiledThresholds, LowThresholdWhereTheSharedThreeGFallsBehind) {
  // LI strict, HI BE. The 3g shared with n BE requests: 1.25 x max{0.22 + 0.48 n / 128, 1},
  // above the (1g, 2g) side's 1.5 once 0.22 + 0.48 n / 128 > 1.2, n > 261.33: at 261,
  // 1.25 x 1.19875 = 1.4984 < 1.5; at 262, 1.25 x 1.2025 = 1.5031 > 1.5. The (1g, 2g) side
  // stays at 1.5 up to the set's capacity: its 2g holds at most 10 GB of BE, FBR 10 / 6.5 x
  // 0.48 = 0.738, 0.22 + 0.738 < 1. Capacity floor(15 / 6.5 x 128 = 295.4) = 295.
  const auto p = li_strict_hi_best_effort();
  const auto c = profiled_threshold_counts(kSmall, kThree, p);
  EXPECT_EQ(c.low, 262);
  EXPECT_EQ(c.high, 295);
  EXPECT_EQ(c.capacity, 295);
  // As occupancies: 262 / 128 x 6.5 / 15 = 1703 / 1920; the high end is the whole set.
  const auto t = profiled_thresholds(kSmall, kThree, p);
  EXPECT_NEAR(t.low, 1703.0 / 1920.0, 1e-12);
  EXPECT_DOUBLE_EQ(t.high, 1.0);
}

TEST(ProfiledThresholds, HighThresholdWhereTheTwoGFillsWithBestEffort) {
  // VHI pair, b = n / 4 batches. Below 8 requests (the 1g's 5 GB) the 2g is free: 3.0; the 3g
  // is 2 x max{0.7 + 0.6 b, 1}, above 3 once b > 4/3: n = 5 gives 2.9 (fallback), n = 6 gives
  // 3.2 -> T_low = 6. Past the 1g, the 2g holds b - 2 batches: 3 x max{0.7 + 0.6 (b - 2), 1},
  // at most 2 x (0.7 + 0.6 b) while b <= 29/6: n = 19 gives 7.05 <= 7.1, n = 20 gives 7.5 >
  // 7.4 -> T_high = 19. Capacity 15 / 2.5 x 4 = 24.
  const auto c = profiled_threshold_counts(kSmall, kThree, vhi_pair());
  EXPECT_EQ(c.low, 6);
  EXPECT_EQ(c.high, 19);
  EXPECT_EQ(c.capacity, 24);
  const auto t = profiled_thresholds(kSmall, kThree, vhi_pair());
  EXPECT_NEAR(t.low, 6 * 2.5 / 4 / 15, 1e-12);    // 0.25
  EXPECT_NEAR(t.high, 19 * 2.5 / 4 / 15, 1e-12);  // 0.791667
}

TEST(ProfiledThresholds, ChooseGeometryUsesThemOnlyWhenAskedAndGivenAProfile) {
  ReconfigurationConfig c;  // fixed 0.1, 0.9
  const std::vector<std::string> with_small{"1g.5gb", "2g.10gb", "4g.20gb"};
  const std::vector<std::string> fallback{"3g.20gb", "4g.20gb"};
  EXPECT_EQ(fallback_without_large(c), kThree);
  const auto p = li_strict_hi_best_effort();  // profiled: [0.887, 1]
  // 6.5 GB (occupancy 0.433): fixed keeps (1g, 2g); profiled prefers the 3g.
  EXPECT_EQ(choose_geometry(c, 6.5, &p), with_small);
  // 14 GB (0.933): fixed says too full (> 0.9); profiled keeps (1g, 2g).
  EXPECT_EQ(choose_geometry(c, 14.0, &p), fallback);
  c.thresholds = ThresholdMode::kProfiled;
  EXPECT_EQ(choose_geometry(c, 6.5, &p), fallback);
  EXPECT_EQ(choose_geometry(c, 14.0, &p), with_small);
  // No profile (no strict or no BE model): the fixed values.
  EXPECT_EQ(choose_geometry(c, 6.5), with_small);
  // More than the set holds (17 GB): the [3g] set, which is the fallback either way.
  EXPECT_EQ(choose_geometry(c, 17.0, &p), fallback);
}

}  // namespace
}  // namespace sim::policy::protean
