#include <gtest/gtest.h>

#include "fixture.hpp"
#include "sim/traces/generators.hpp"
#include "sim/traces/series_arrival_source.hpp"
#include "sim/traces/series_transforms.hpp"
#include "sim/traces/trace_stats.hpp"

namespace sim::traces {
namespace {

using testing::drain;
using testing::intervals;
using testing::total;
using testing::VectorSeries;

std::unique_ptr<CountSeries> series(std::vector<std::uint64_t> counts, Time length = seconds(1)) {
  return std::make_unique<VectorSeries>(intervals(length, counts));
}

TEST(Window, KeepsTheOverlapProportionallyAndRebases) {
  // Intervals of 10 s with 100, 200, 300; window [5 s, 25 s): half of the first (50), all of the
  // second (200), half of the third (150).
  auto w = make_window(series({100, 200, 300}, seconds(10)), seconds(5), seconds(20), true);
  const auto bins = drain(*w);
  ASSERT_EQ(bins.size(), 3u);
  EXPECT_EQ(bins[0].start, Time::zero());
  EXPECT_EQ(bins[0].length, seconds(5));
  EXPECT_EQ(bins[0].total(), 50u);
  EXPECT_EQ(bins[1].start, seconds(5));
  EXPECT_EQ(bins[1].total(), 200u);
  EXPECT_EQ(bins[2].length, seconds(5));
  EXPECT_EQ(bins[2].total(), 150u);
}

TEST(Rescale, ErrorDiffusionKeepsTheTotal) {
  // 10 intervals of 3 scaled by 0.5: exact total 15, each bin 1 or 2.
  auto r = make_rescale(series(std::vector<std::uint64_t>(10, 3)), 0.5);
  const auto bins = drain(*r);
  EXPECT_EQ(total(bins), 15u);
  for (const auto& b : bins) {
    EXPECT_GE(b.total(), 1u);
    EXPECT_LE(b.total(), 2u);
  }
}

TEST(Rescale, ReachesATargetMeanWithinHalfAPercent) {
  // A bursty series (mean 37.4/s over 1000 s); target mean 5000/s.
  std::vector<std::uint64_t> counts;
  for (int i = 0; i < 1000; ++i)
    counts.push_back(static_cast<std::uint64_t>(10 + (i * 37) % 55));
  RescaleTarget target;
  target.mean_rate = 5000.0;
  auto probe = series(counts);
  const double k = rescale_factor(*probe, target);
  auto out = make_rescale(series(counts), k);
  // Measured on the arrivals, as the platform sees them.
  WorkloadLabels labels;
  SeriesArrivalSource src(std::move(out), Placement::kPoisson, RandomStream(1), {}, labels);
  const double n = static_cast<double>(drain(src).size());
  EXPECT_NEAR(n / 1000.0, 5000.0, 0.005 * 5000.0);
}

TEST(Rescale, ReachesATargetPeakWithinHalfAPercent) {
  // 10-ms counts, peak measured over 1-s bins (Protean scales Twitter to a peak of ~5000 rps).
  std::vector<std::uint64_t> counts;
  for (int i = 0; i < 30000; ++i)
    counts.push_back(static_cast<std::uint64_t>(20 + (i % 700 == 0 ? 40 : (i * 13) % 17)));
  RescaleTarget target;
  target.peak_rate = 5000.0;
  target.peak_bin = seconds(1);
  auto probe = series(counts, ms(10));
  const double k = rescale_factor(*probe, target);
  auto out = make_rescale(series(counts, ms(10)), k);
  const TraceStats s = compute_series_stats(*out, seconds(1));
  EXPECT_NEAR(s.peak_rate, 5000.0, 0.005 * 5000.0);
}

TEST(Rescale, TimestampTracesAreReplicatedOrThinned) {
  // 100 points scaled by 2.5: each point becomes 2 or 3 arrivals, 250 in all.
  std::vector<CountBin> pts;
  for (int i = 0; i < 100; ++i) {
    CountBin b;
    b.start = ms(i);
    b.length = Time::zero();
    b.counts = {{0, 1}};
    pts.push_back(b);
  }
  auto r = make_rescale(std::make_unique<VectorSeries>(pts), 2.5);
  EXPECT_EQ(total(drain(*r)), 250u);
}

TEST(Rescale, RejectsEndlessAndEmptySeries) {
  RescaleTarget t;
  t.mean_rate = 10;
  auto endless = make_poisson(5, Time::max(), RandomStream(1));
  EXPECT_THROW(rescale_factor(*endless, t), std::invalid_argument);
  auto empty = series({0, 0});
  EXPECT_THROW(rescale_factor(*empty, t), std::invalid_argument);
  t.peak_rate = 3;
  auto both = series({1});
  EXPECT_THROW(rescale_factor(*both, t), std::invalid_argument);
}

TEST(Compress, DividesTimesKeepsCounts) {
  auto c = make_compress(series({4, 6}, seconds(10)), 4.0);
  const auto bins = drain(*c);
  ASSERT_EQ(bins.size(), 2u);
  EXPECT_EQ(bins[1].start, ms(2500));
  EXPECT_EQ(bins[1].length, ms(2500));
  EXPECT_EQ(bins[1].total(), 6u);
}

TEST(Ramp, RisesLinearlyOverItsDurationThenLeavesCountsAlone) {
  // Bins of 1 s with 100 each, ramp over 4 s: midpoints 0.5, 1.5, 2.5, 3.5 s scale by 1/8, 3/8,
  // 5/8, 7/8 (12.5 -> 12 or 13 by error diffusion, 37.5, 62.5, 87.5: total exactly 200); the
  // bins from 4 s on keep their 100.
  auto r = make_ramp(series(std::vector<std::uint64_t>(6, 100)), seconds(4));
  const auto bins = drain(*r);
  ASSERT_EQ(bins.size(), 6u);
  EXPECT_NEAR(static_cast<double>(bins[0].total()), 12.5, 0.5);
  EXPECT_NEAR(static_cast<double>(bins[1].total()), 37.5, 0.5);
  EXPECT_NEAR(static_cast<double>(bins[2].total()), 62.5, 0.5);
  EXPECT_NEAR(static_cast<double>(bins[3].total()), 87.5, 0.5);
  EXPECT_EQ(bins[0].total() + bins[1].total() + bins[2].total() + bins[3].total(), 200u);
  EXPECT_EQ(bins[4].total(), 100u);
  EXPECT_EQ(bins[5].total(), 100u);
  EXPECT_EQ(bins[5].start, seconds(5));
}

TEST(Ramp, RejectsANonPositiveDuration) {
  EXPECT_THROW(make_ramp(series({1}), Time::zero()), std::invalid_argument);
}

TEST(Prerun, PlaysTheStartThenTheShiftedSeries) {
  // Bins of 10 s with 100, 200, 300, prerun 15 s: the replay keeps [0, 15 s) (100, then half
  // of the second bin: 100 over [10 s, 15 s)), then the whole series from 15 s on.
  auto p = make_prerun(series({100, 200, 300}, seconds(10)), series({100, 200, 300}, seconds(10)),
                       seconds(15));
  const auto bins = drain(*p);
  ASSERT_EQ(bins.size(), 5u);
  EXPECT_EQ(bins[0].start, Time::zero());
  EXPECT_EQ(bins[0].total(), 100u);
  EXPECT_EQ(bins[1].start, seconds(10));
  EXPECT_EQ(bins[1].length, seconds(5));
  EXPECT_EQ(bins[1].total(), 100u);
  EXPECT_EQ(bins[2].start, seconds(15));
  EXPECT_EQ(bins[2].total(), 100u);
  EXPECT_EQ(bins[3].start, seconds(25));
  EXPECT_EQ(bins[3].total(), 200u);
  EXPECT_EQ(bins[4].start, seconds(35));
  EXPECT_EQ(bins[4].length, seconds(10));
  EXPECT_EQ(bins[4].total(), 300u);
}

TEST(Prerun, RejectsANonPositiveDuration) {
  EXPECT_THROW(make_prerun(series({1}), series({1}), Time::zero()), std::invalid_argument);
}

}  // namespace
}  // namespace sim::traces
