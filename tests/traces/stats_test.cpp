#include "sim/traces/trace_stats.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "fixture.hpp"
#include "sim/traces/trace_error.hpp"

namespace sim::traces {
namespace {

using testing::intervals;
using testing::ScratchDir;
using testing::VectorSeries;

TEST(TraceStats, HandComputedSeries) {
  // Counts 4, 8, 2, 6 per second: mean 20 / 4 s = 5/s; median of {2,4,6,8} = (4+6)/2 = 5;
  // peak 8 (second 1); peak-to-mean = peak-to-median = 1.6.
  VectorSeries s(intervals(seconds(1), {4, 8, 2, 6}));
  std::ostringstream csv;
  const TraceStats t = compute_series_stats(s, std::nullopt, &csv);
  EXPECT_EQ(t.requests, 20u);
  EXPECT_DOUBLE_EQ(t.duration_s, 4.0);
  EXPECT_DOUBLE_EQ(t.mean_rate, 5.0);
  EXPECT_DOUBLE_EQ(t.median_rate, 5.0);
  EXPECT_DOUBLE_EQ(t.peak_rate, 8.0);
  EXPECT_DOUBLE_EQ(t.min_rate, 2.0);
  EXPECT_EQ(t.peak_at, seconds(1));
  EXPECT_DOUBLE_EQ(t.peak_to_mean, 1.6);
  EXPECT_DOUBLE_EQ(t.peak_to_median, 1.6);
  EXPECT_EQ(csv.str(), "time_s,rate_per_s,requests\n0,4,4\n1,8,8\n2,2,2\n3,6,6\n");

  // 2-s bins: 12 and 8 -> rates 6 and 4, median 5, peak 6.
  VectorSeries s2(intervals(seconds(1), {4, 8, 2, 6}));
  const TraceStats t2 = compute_series_stats(s2, seconds(2));
  EXPECT_DOUBLE_EQ(t2.peak_rate, 6.0);
  EXPECT_DOUBLE_EQ(t2.median_rate, 5.0);
}

TEST(TraceStats, BinNeverShorterThanTheTraceInterval) {
  // Per-minute counts asked for 1-s bins: the bin stays one minute; 600/min = 10/s.
  VectorSeries s(intervals(minutes(1), {600, 1200}));
  const TraceStats t = compute_series_stats(s, seconds(1));
  EXPECT_EQ(t.bin, minutes(1));
  EXPECT_DOUBLE_EQ(t.peak_rate, 20.0);
  EXPECT_DOUBLE_EQ(t.mean_rate, 15.0);
}

TEST(TraceStats, PointsPartialLastBinAndGaps) {
  // Points at 0.5, 1.5, 2.2 s: bins of 1 s from 0.5; [0.5,1.5) holds 1, [1.5,2.5) holds 2 but
  // is cut by the end at 2.2 s, so only the first is full. Mean = 3 / 1.7 s.
  std::vector<CountBin> pts;
  for (double t : {0.5, 1.5, 2.2}) {
    CountBin b;
    b.start = seconds(t);
    b.length = Time::zero();
    b.counts = {{0, 1}};
    pts.push_back(b);
  }
  VectorSeries s(pts);
  const TraceStats t = compute_series_stats(s, std::nullopt);
  EXPECT_EQ(t.full_bins, 1u);
  EXPECT_DOUBLE_EQ(t.peak_rate, 1.0);
  EXPECT_NEAR(t.mean_rate, 3.0 / 1.7, 1e-12);

  // A gap of two seconds between intervals counts as two zero bins: median of {5, 0, 0, 5} = 2.5.
  std::vector<CountBin> gap = intervals(seconds(1), {5});
  CountBin late;
  late.start = seconds(3);
  late.length = seconds(1);
  late.counts = {{0, 5}};
  gap.push_back(late);
  VectorSeries g(gap);
  const TraceStats tg = compute_series_stats(g, std::nullopt);
  EXPECT_EQ(tg.full_bins, 4u);
  EXPECT_DOUBLE_EQ(tg.median_rate, 2.5);
  EXPECT_DOUBLE_EQ(tg.mean_rate, 10.0 / 4.0);
}

// Statistics cost follows the data, not span / bin: two points an hour apart in 1-ns bins are
// 3.6e12 bins, of which all but two are empty (this used to walk every one of them).
TEST(TraceStats, TinyBinsOverALongSpanAreCountedInBulk) {
  std::vector<CountBin> pts;
  for (const Time t : {Time::zero(), seconds(3600), seconds(3600) + Time::from_ns(1)}) {
    CountBin b;
    b.start = t;
    b.length = Time::zero();
    b.counts = {{0, 1}};
    pts.push_back(b);
  }
  VectorSeries s(pts);
  const TraceStats t = compute_series_stats(s, Time::from_ns(1));
  // Bins 0 .. 3.6e12: all full except the last one (cut by the end); three hold one request.
  EXPECT_EQ(t.full_bins, 3'600'000'000'001u);
  EXPECT_DOUBLE_EQ(t.peak_rate, 1e9);
  EXPECT_DOUBLE_EQ(t.median_rate, 0.0);
  EXPECT_DOUBLE_EQ(t.min_rate, 0.0);
  // The rate CSV has one row per bin, so there the bin count is limited, with a clear error.
  VectorSeries again(pts);
  std::ostringstream csv;
  try {
    compute_series_stats(again, Time::from_ns(1), &csv);
    FAIL() << "3.6e12 CSV rows were accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("choose a wider bin"), std::string::npos) << e.what();
  }
}

TEST(TraceInfo, DetectsReadersAndPrintsStatistics) {
  ScratchDir dir;
  const std::string tw = dir.write("tw.txt", "1 2 3 4 \n");
  EXPECT_EQ(detect_reader(tw), "twitter");
  EXPECT_EQ(detect_reader(dir.write("w.csv", "29\n30\n")), "wikipedia");
  EXPECT_EQ(detect_reader(dir.write("pv.csv", "2010-05-01 00:00:00;9436801\n")), "wikipedia");
  EXPECT_EQ(detect_reader(dir.write("az.csv", "HashOwner,HashApp,HashFunction,Trigger,1\n")),
            "azure2019");
  EXPECT_EQ(detect_reader(dir.write("a21.csv", "app,func,end_timestamp,duration\n")), "azure2021");
  EXPECT_EQ(detect_reader(dir.write("r.csv", "second,requests\n0,1\n")), "csv_rates");
  EXPECT_THROW(detect_reader(dir.write("x.txt", "hello world\n")), TraceError);

  TraceInfoOptions opt;
  opt.rate_csv = dir.file("rate.csv");
  // 1+2+3+4 = 10 requests in 4 s: mean 2.5/s, median 2.5, peak 4 -> ratios 1.6.
  const TraceStats t = compute_trace_stats(tw, opt);
  EXPECT_EQ(t.reader, "twitter");
  EXPECT_EQ(t.requests, 10u);
  EXPECT_DOUBLE_EQ(t.peak_to_mean, 1.6);
  std::ostringstream out;
  print_trace_info(t, out);
  EXPECT_NE(out.str().find("peak-to-median:  1.600\n"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("mean rate:       2.500 /s\n"), std::string::npos) << out.str();
  std::ifstream csv(opt.rate_csv);
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, "time_s,rate_per_s,requests");
  EXPECT_FALSE(std::filesystem::exists(opt.rate_csv + ".tmp"));
}

}  // namespace
}  // namespace sim::traces
