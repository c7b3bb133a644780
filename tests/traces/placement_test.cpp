// The count-to-arrivals rule: every interval's count is preserved exactly, arrivals are in time
// order, and each placement puts them where it says.

#include <gtest/gtest.h>

#include <cmath>

#include "fixture.hpp"
#include "sim/traces/series_arrival_source.hpp"

namespace sim::traces {
namespace {

using testing::drain;
using testing::intervals;
using testing::VectorSeries;

std::vector<Arrival> place(std::vector<CountBin> bins, Placement p, std::size_t substreams = 1,
                           std::uint64_t seed = 7) {
  WorkloadLabels labels;
  SeriesArrivalSource src(std::make_unique<VectorSeries>(std::move(bins), substreams), p,
                          RandomStream(seed), {}, labels);
  return drain(src);
}

TEST(Placement, PreservesEveryIntervalsCountForAllRules) {
  const std::vector<std::uint64_t> counts = {0, 1, 7, 1000, 3, 0, 250};
  for (const Placement p : {Placement::kPoisson, Placement::kUniform, Placement::kEven}) {
    const auto arrivals = place(intervals(seconds(1), counts), p);
    std::vector<std::uint64_t> per_interval(counts.size(), 0);
    Time last = Time::zero();
    for (const auto& a : arrivals) {
      ASSERT_GE(a.time, last) << "arrivals out of order";
      last = a.time;
      ++per_interval.at(static_cast<std::size_t>(a.time.ns() / seconds(1).ns()));
    }
    EXPECT_EQ(per_interval, counts) << "placement " << static_cast<int>(p);
  }
}

TEST(Placement, EvenSpacingIsExact) {
  // 4 arrivals in [10 s, 11 s): at 10 + (i + 1/2) / 4 s = 10.125, 10.375, 10.625, 10.875.
  CountBin b;
  b.start = seconds(10);
  b.length = seconds(1);
  b.counts = {{0, 4}};
  const auto a = place({b}, Placement::kEven);
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a[0].time, ms(10125));
  EXPECT_EQ(a[3].time, ms(10875));
}

TEST(Placement, UniformPutsOneArrivalInEachSlot) {
  CountBin b;
  b.start = Time::zero();
  b.length = seconds(1);
  b.counts = {{0, 10}};
  const auto a = place({b}, Placement::kUniform);
  ASSERT_EQ(a.size(), 10u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].time.ns() / ms(100).ns(), static_cast<std::int64_t>(i));
  }
}

TEST(Placement, PoissonPositionsAreUniformWithinTheInterval) {
  // 100000 arrivals in one interval: positions are i.i.d. uniform, so the count in each tenth is
  // Binomial(1e5, 0.1): mean 10000, sd sqrt(1e5 * 0.1 * 0.9) = 94.9. Allow 5 sd.
  CountBin b;
  b.start = Time::zero();
  b.length = seconds(1);
  b.counts = {{0, 100000}};
  const auto a = place({b}, Placement::kPoisson);
  std::vector<int> tenth(10, 0);
  for (const auto& x : a)
    ++tenth.at(static_cast<std::size_t>(x.time.ns() / ms(100).ns()));
  for (int c : tenth)
    EXPECT_NEAR(c, 10000, 5 * 94.9);
}

TEST(Placement, SubstreamsMergeByTimeAndPointsShareTheirTime) {
  CountBin p;
  p.start = seconds(2);
  p.length = Time::zero();
  p.counts = {{0, 2}, {1, 1}};
  const auto a = place({p}, Placement::kPoisson, 2);
  ASSERT_EQ(a.size(), 3u);
  for (const auto& x : a)
    EXPECT_EQ(x.time, seconds(2));
  // Ties go to the lower sub-stream first.
  EXPECT_EQ(a[0].function, a[1].function);
  EXPECT_NE(a[1].function, a[2].function);
}

TEST(Placement, PointBinsDrawAsIntervalsOfOneNanosecondDo) {
  // A 1 ns interval places every arrival at its start through the cursors; a point bin is
  // served without them but must leave the stream where they would (one draw per arrival,
  // none for kEven), so the interval after it gets the same times.
  for (const Placement p : {Placement::kPoisson, Placement::kUniform, Placement::kEven}) {
    std::vector<CountBin> bins(3);
    bins[0].start = seconds(1);
    bins[0].counts = {{0, 2}, {1, 0}, {2, 3}};
    bins[1].start = seconds(2);
    bins[1].counts = {{1, 1}};
    bins[2].start = seconds(3);
    bins[2].length = seconds(1);
    bins[2].counts = {{0, 5}, {1, 4}, {2, 6}};
    std::vector<CountBin> one_ns = bins;
    one_ns[0].length = Time::from_ns(1);
    one_ns[1].length = Time::from_ns(1);
    const auto points = place(bins, p, 3);
    const auto cursors = place(one_ns, p, 3);
    ASSERT_EQ(points.size(), 21u);
    ASSERT_EQ(points.size(), cursors.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
      EXPECT_EQ(points[i].time, cursors[i].time) << i;
      EXPECT_EQ(points[i].function, cursors[i].function) << i;
    }
  }
}

TEST(Placement, StopsAtTheHorizonAndIsDeterministic) {
  WorkloadLabels labels;
  SeriesArrivalSource src(std::make_unique<VectorSeries>(intervals(seconds(1), {50, 50, 50})),
                          Placement::kPoisson, RandomStream(3), {}, labels, seconds(1));
  const auto a = drain(src);
  for (const auto& x : a)
    EXPECT_LE(x.time, seconds(1));
  EXPECT_GE(a.size(), 50u);
  const auto b1 = place(intervals(seconds(1), {20, 30}), Placement::kPoisson, 1, 11);
  const auto b2 = place(intervals(seconds(1), {20, 30}), Placement::kPoisson, 1, 11);
  ASSERT_EQ(b1.size(), b2.size());
  for (std::size_t i = 0; i < b1.size(); ++i)
    EXPECT_EQ(b1[i].time, b2[i].time);
}

}  // namespace
}  // namespace sim::traces
