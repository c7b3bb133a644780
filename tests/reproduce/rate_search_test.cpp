// The maximum-sustained-load bisection (INFless Fig. 11), on hand-made compliance curves.

#include <gtest/gtest.h>

#include "sim/reproduce/rate_search.hpp"

namespace sim::reproduce {
namespace {

using nlohmann::json;

/// A system that meets 95% up to `capacity` req/s and 50% above it, recording its probes.
struct Step {
  double capacity;
  std::vector<double> probed;
  std::optional<double> operator()(double rate) {
    probed.push_back(rate);
    return rate <= capacity ? 0.99 : 0.5;
  }
};

TEST(RateSearch, BisectsAtWholeRatesRoundingHalfToEven) {
  // [0, 1200], capacity 273: 600 miss, 300 miss, 150 hit, 225 hit, 262 hit (262.5 -> 262,
  // half to even), 281 miss (281.0), 272 hit (271.5 -> 272), 276 miss (276.5 -> 276).
  Step sys{273.0, {}};
  const auto r = search_rate({0.0, 1200.0, 8, 0.95}, std::ref(sys));
  EXPECT_EQ(sys.probed, (std::vector<double>{600, 300, 150, 225, 262, 281, 272, 276}));
  EXPECT_DOUBLE_EQ(r.rate, 272.0);
  EXPECT_DOUBLE_EQ(r.compliance, 0.99);
  ASSERT_EQ(r.probes.size(), 8U);
  EXPECT_DOUBLE_EQ(r.probes[7].compliance, 0.5);
  EXPECT_FALSE(r.interrupted);
}

TEST(RateSearch, NothingSustainedIsZero) {
  Step sys{-1.0, {}};
  const auto r = search_rate({0.0, 100.0, 3, 0.95}, std::ref(sys));
  EXPECT_EQ(sys.probed, (std::vector<double>{50, 25, 12}));  // 12.5 -> 12
  EXPECT_DOUBLE_EQ(r.rate, 0.0);
  EXPECT_DOUBLE_EQ(r.compliance, 0.0);
}

TEST(RateSearch, StopsWhenARunIsInterrupted) {
  int runs = 0;
  const auto r = search_rate({0.0, 100.0, 5, 0.95}, [&](double) -> std::optional<double> {
    return ++runs == 2 ? std::nullopt : std::optional<double>(1.0);
  });
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(runs, 2);
}

TEST(RateSearch, RejectsAnEmptyRange) {
  EXPECT_THROW(search_rate({5.0, 5.0, 3, 0.95}, [](double) { return 1.0; }), std::invalid_argument);
}

TEST(RateSearch, ComplianceCountsRequestsLeftInTheSystem) {
  // 90 met of 100 with an SLO, 20 still queued at the end: 90 / 120 = 0.75.
  const json s = {{"slo", {{"met", 90}, {"with_slo", 100}}}, {"requests_in_system_at_end", 20}};
  EXPECT_DOUBLE_EQ(search_compliance(s), 0.75);
  EXPECT_DOUBLE_EQ(search_compliance({{"slo", {{"met", 0}, {"with_slo", 0}}}}), 0.0);
}

TEST(RateSearch, BlockGivesThroughputOfEveryWorkload) {
  // 3 workloads at 272 req/s each, 99% compliant: 272 * 3 * 0.99 = 807.84 req/s meet the SLO.
  RateSearchResult r;
  r.rate = 272.0;
  r.compliance = 0.99;
  r.probes = {{600.0, 0.5}, {272.0, 0.99}};
  const auto b = search_block(r, 3);
  EXPECT_DOUBLE_EQ(b.at("throughput_rps").get<double>(), 807.84);
  EXPECT_EQ(b.at("workloads").get<int>(), 3);
  EXPECT_EQ(b.at("probes").size(), 2U);
  EXPECT_DOUBLE_EQ(b.at("probes")[0].at("rate_per_workload").get<double>(), 600.0);
}

}  // namespace
}  // namespace sim::reproduce
