// Each reader on small fixtures written by the test: values, times, labels, and the exact
// messages for bad input (file and line named), plus lenient mode.

#include <gtest/gtest.h>

#include "fixture.hpp"
#include "sim/traces/azure2019_reader.hpp"
#include "sim/traces/rate_series_reader.hpp"
#include "sim/traces/timestamp_reader.hpp"
#include "sim/traces/trace_error.hpp"

namespace sim::traces {
namespace {

using testing::drain;
using testing::ScratchDir;
using testing::total;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const TraceError& e) {
    return e.what();
  }
  return "(no error)";
}

// Three functions, four minutes, original 2019 header.
const char* kAzure2019 =
    "HashOwner,HashApp,HashFunction,Trigger,1,2,3,4\n"
    "o1,app1,f1aaaa,http,1,0,2,0\n"
    "o1,app1,f2bbbb,queue,5,5,5,5\n"
    "o2,app2,f3cccc,timer,0,0,0,9\n";

TEST(Azure2019, AggregatesAllFunctionsPerMinute) {
  ScratchDir dir;
  const auto bins = drain(*open_azure2019(dir.write("inv.csv", kAzure2019), {}));
  ASSERT_EQ(bins.size(), 4u);
  // Column sums: 1+5+0, 0+5+0, 2+5+0, 0+5+9.
  const std::vector<std::uint64_t> expected = {6, 5, 7, 14};
  for (std::size_t m = 0; m < 4; ++m) {
    EXPECT_EQ(bins[m].start, minutes(static_cast<double>(m)));
    EXPECT_EQ(bins[m].length, minutes(1));
    EXPECT_EQ(bins[m].total(), expected[m]);
  }
}

TEST(Azure2019, SelectsByRankAndByHashPrefixPerFunction) {
  ScratchDir dir;
  const std::string path = dir.write("inv.csv", kAzure2019);
  Azure2019Options top;
  top.select = Azure2019Options::Select::kTop;
  top.top = 1;
  top.skip = 1;  // volumes 3, 20, 9: the second busiest is f3
  top.per_function = true;
  auto s = open_azure2019(path, top);
  const auto bins = drain(*s);
  ASSERT_EQ(s->substreams().size(), 1u);
  EXPECT_EQ(s->substreams()[0].function, "f3cccc");
  EXPECT_EQ(s->substreams()[0].application, "app2");
  EXPECT_EQ(total(bins), 9u);

  Azure2019Options by_hash;
  by_hash.select = Azure2019Options::Select::kHashes;
  by_hash.hashes = {"f2", "f1a"};
  by_hash.per_function = true;
  s = open_azure2019(path, by_hash);
  const auto b2 = drain(*s);
  ASSERT_EQ(s->substreams().size(), 2u);  // file order: f1 then f2
  EXPECT_EQ(s->substreams()[0].function, "f1aaaa");
  // Minute 1 holds (f1: 1) and (f2: 5) as separate sub-streams.
  const std::vector<std::pair<std::uint32_t, std::uint64_t>> m1 = {{0, 1}, {1, 5}};
  EXPECT_EQ(b2[0].counts, m1);

  by_hash.hashes = {"f"};
  EXPECT_EQ(
      error_of([&] { open_azure2019(path, by_hash); }),
      path + ":3: hash \"f\" matches several functions (lines 2 and 3); give more characters");
  by_hash.hashes = {"zz"};
  EXPECT_EQ(error_of([&] { open_azure2019(path, by_hash); }),
            path + ": no function whose HashFunction starts with \"zz\"");
}

TEST(Azure2019, ReadsTheInVitroAndMinuteRangeLayouts) {
  ScratchDir dir;
  // In-Vitro sample layout: HashFunction first, minute_N columns, no Trigger.
  const auto a = drain(*open_azure2019(
      dir.write("s.csv.gz", "HashFunction,HashOwner,HashApp,minute_1,minute_2\nf,f,f,3,4\n"), {}));
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[1].total(), 4u);
  // Minute range 480..481 (1-based): kept at 07:59 of the day when not rebased.
  Azure2019Options keep;
  keep.reader.rebase = false;
  const auto b = drain(*open_azure2019(
      dir.write("r.csv", "HashOwner,HashApp,HashFunction,Trigger,480,481\no,a,f,http,1,2\n"),
      keep));
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].start, minutes(479));
}

TEST(Azure2019, BadInputNamesFileAndLine) {
  ScratchDir dir;
  const std::string short_row =
      dir.write("a.csv", "HashOwner,HashApp,HashFunction,Trigger,1,2\no,a,f,http,1\n");
  EXPECT_EQ(error_of([&] { open_azure2019(short_row, {}); }),
            short_row + ":2: expected 6 fields as in the header, found 5");
  const std::string bad =
      dir.write("b.csv", "HashOwner,HashApp,HashFunction,Trigger,1,2\no,a,f,http,1,-3\n");
  EXPECT_EQ(error_of([&] { open_azure2019(bad, {}); }),
            bad + ":2: minute 2: expected a non-negative integer count, found \"-3\"");
  const std::string absurd =
      dir.write("c.csv", "HashOwner,HashApp,HashFunction,Trigger,1\no,a,f,http,20000000\n");
  EXPECT_EQ(
      error_of([&] { open_azure2019(absurd, {}); }),
      absurd + ":2: minute 1: count 2e+07 in 60s exceeds the limit of 6e+06 (max_rate 100000/s)");
  const std::string no_fn = dir.write("d.csv", "HashOwner,HashApp,Trigger,1\n");
  EXPECT_EQ(error_of([&] { open_azure2019(no_fn, {}); }),
            no_fn +
                ":1: missing column \"HashFunction\": expected the Azure Functions 2019 header "
                "HashOwner,HashApp,HashFunction,Trigger,1,...,1440");
  const std::string gap = dir.write("e.csv", "HashFunction,1,3\n");
  EXPECT_EQ(
      error_of([&] { open_azure2019(gap, {}); }),
      gap + ":1: minute columns must be consecutive: expected minute 2 in column 3, found \"3\"");
  // A damaged last minute name once dropped its column silently.
  const std::string damaged = dir.write("f.csv", "HashFunction,1,2,3x\nf,1,2,3\n");
  EXPECT_EQ(error_of([&] { open_azure2019(damaged, {}); }),
            damaged +
                ":1: minute columns must be consecutive: expected minute 3 in column 4, found "
                "\"3x\"");
}

TEST(Azure2019, LenientModeSkipsAndCountsBadRows) {
  ScratchDir dir;
  const std::string path =
      dir.write("a.csv",
                "HashOwner,HashApp,HashFunction,Trigger,1,2\no,a,f,http,1,x\no,a,g,http,2,3\n"
                "o,a,h,http,4\n");
  Azure2019Options opt;
  opt.reader.lenient = true;
  auto s = open_azure2019(path, opt);
  EXPECT_EQ(total(drain(*s)), 5u);  // only g
  EXPECT_EQ(s->report().skipped_rows, 2u);
  EXPECT_EQ(s->report().first_problem,
            path + ":2: minute 2: expected a non-negative integer count, found \"x\"");
}

// Five rows of the 2021 layout, not sorted by end time; arrival = end - duration.
const char* kAzure2021 =
    "app,func,end_timestamp,duration\n"
    "A,f1,10.5,0.5\n"   // 10.0
    "B,f2,3.25,3.0\n"   // 0.25
    "A,f1,12.0,1.0\n"   // 11.0
    "A,f3,10.0,9.5\n"   // 0.5
    "B,f2,30.0,0.0\n";  // 30.0

TEST(Azure2021, ReordersWithinTheWindowAndLabelsFunctions) {
  ScratchDir dir;
  const std::string path = dir.write("t.csv", kAzure2021);
  ReaderOptions no_rebase;
  no_rebase.rebase = false;
  auto s = open_timestamps(path, azure2021_options(true, seconds(60), no_rebase));
  const auto bins = drain(*s);
  std::vector<double> times;
  std::vector<std::uint32_t> subs;
  for (const auto& b : bins) {
    EXPECT_EQ(b.length, Time::zero());
    times.push_back(b.start.to_seconds());
    subs.push_back(b.counts.at(0).first);
  }
  EXPECT_EQ(times, (std::vector<double>{seconds(0.25).to_seconds(), seconds(0.5).to_seconds(),
                                        seconds(10).to_seconds(), seconds(11).to_seconds(),
                                        seconds(30).to_seconds()}));
  // Sub-streams in order of first appearance: (f1,A)=0, (f2,B)=1, (f3,A)=2.
  EXPECT_EQ(subs, (std::vector<std::uint32_t>{1, 2, 0, 0, 1}));
  ASSERT_EQ(s->substreams().size(), 3u);
  EXPECT_EQ(s->substreams()[2].function, "f3");
  EXPECT_EQ(s->substreams()[2].application, "A");
}

TEST(Azure2021, DisorderBeyondTheWindowIsAnError) {
  ScratchDir dir;
  const std::string path = dir.write("t.csv", kAzure2021);
  // Window 1 s: 0.25 is released when 10.0 has been seen, 10.0 when 11.0 has been seen; the row
  // on line 5 (start 0.5 s) then comes after 10.0 was replayed.
  EXPECT_EQ(
      error_of([&] { drain(*open_timestamps(path, azure2021_options(false, seconds(1), {}))); }),
      path +
          ":5: time stamp 0.500000 s is earlier than 10.000000 s, already replayed: rows "
          "must be in time order within reorder_window 1s");
}

TEST(Timestamps, GenericCsvWithHeaderUnitsAndErrors) {
  ScratchDir dir;
  TimestampOptions opt;
  opt.time_column = "t_ms";
  opt.unit = TimeUnit::kMilliseconds;
  opt.function_column = "model";
  opt.reader.rebase = false;
  const std::string path = dir.write("ts.csv", "t_ms,model\n100,resnet\n100,bert\n250,resnet\n");
  auto s = open_timestamps(path, opt);
  const auto bins = drain(*s);
  ASSERT_EQ(bins.size(), 3u);
  EXPECT_EQ(bins[0].start, ms(100));
  EXPECT_EQ(bins[1].start, ms(100));
  EXPECT_EQ(bins[2].start, ms(250));
  EXPECT_EQ(s->substreams()[1].function, "bert");

  const std::string dec = dir.write("dec.csv", "1.0\n2.0\n1.5\n");
  EXPECT_EQ(error_of([&] { drain(*open_timestamps(dec, {})); }),
            dec +
                ":3: time stamp 1.500000 s is earlier than 2.000000 s, already replayed: rows "
                "must be in time order (set reorder_window to accept unsorted rows)");
  const std::string neg = dir.write("neg.csv", "-1\n");
  EXPECT_EQ(error_of([&] { drain(*open_timestamps(neg, {})); }),
            neg + ":1: negative time stamp -1.000000 s");
  TimestampOptions named;
  named.time_column = "time";
  const std::string missing = dir.write("m.csv", "when,x\n1,2\n");
  EXPECT_EQ(error_of([&] { open_timestamps(missing, named); }),
            missing + ":1: missing column \"time\" (header: when,x)");

  TimestampOptions lenient;
  lenient.reader.lenient = true;
  auto l = open_timestamps(dir.write("l.csv", "1\nabc\n0.5\n3\n"), lenient);
  EXPECT_EQ(drain(*l).size(), 2u);  // 1 and 3; "abc" malformed, 0.5 decreasing
  EXPECT_EQ(l->report().skipped_rows, 2u);
}

TEST(RateSeries, TokenLayoutGivesBackToBackIntervals) {
  ScratchDir dir;
  RateSeriesOptions opt;
  opt.interval = seconds(1);
  const auto bins = drain(*open_rate_series(dir.write_gz("tw.txt.gz", "3 0 5 \n"), opt));
  ASSERT_EQ(bins.size(), 3u);
  EXPECT_EQ(bins[2].start, seconds(2));
  EXPECT_EQ(bins[2].total(), 5u);
  EXPECT_TRUE(bins[1].counts.empty());

  const std::string bad = dir.write("b.txt", "1\n2\n-4\n");
  opt.interval = ms(10);
  EXPECT_EQ(error_of([&] { drain(*open_rate_series(bad, opt)); }),
            bad + ":3: value 3: expected a non-negative integer count, found \"-4\"");
  // Lenient: the bad value's slot is kept as zero so later values keep their time.
  opt.reader.lenient = true;
  auto s = open_rate_series(dir.write("c.txt", "1\nx\n2\n"), opt);
  const auto l = drain(*s);
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[2].start, ms(20));
  EXPECT_EQ(s->report().skipped_rows, 1u);
}

// An empty or blank Twitter/Wikipedia count file is an error, as in every other reader (it was
// read as a trace of zero requests).
TEST(RateSeries, EmptyTokenFilesAreRejected) {
  ScratchDir dir;
  RateSeriesOptions opt;
  opt.interval = seconds(1);
  for (const char* content : {"", "\n\n  \n"}) {
    const std::string path = dir.write("e.txt", content);
    EXPECT_EQ(error_of([&] { drain(*open_rate_series(path, opt)); }),
              path + ": empty file: no counts");
  }
}

TEST(RateSeries, CsvInfersIntervalsOrUsesAFixedOneWithGaps) {
  ScratchDir dir;
  RateSeriesOptions opt;
  opt.layout = RateSeriesOptions::Layout::kCsv;
  const std::string path = dir.write("r.csv", "second,requests\n0,10\n1,20\n3,30\n");
  auto bins = drain(*open_rate_series(path, opt));
  ASSERT_EQ(bins.size(), 3u);
  EXPECT_EQ(bins[1].length, seconds(2));  // until the next row at 3
  EXPECT_EQ(bins[2].length, seconds(2));  // last row: as long as the one before
  opt.interval = seconds(1);
  bins = drain(*open_rate_series(path, opt));
  EXPECT_EQ(bins[1].length, seconds(1));
  EXPECT_EQ(bins[2].start, seconds(3));  // second 2 is a gap without requests

  // Rates per second become counts by error diffusion: 0.4/s over 1-s rows -> 0,0,1,0,1.
  RateSeriesOptions rate;
  rate.layout = RateSeriesOptions::Layout::kCsv;
  rate.value_is_rate = true;
  rate.interval = seconds(1);
  bins = drain(*open_rate_series(dir.write("q.csv", "0,0.4\n1,0.4\n2,0.4\n3,0.4\n4,0.4\n"), rate));
  std::vector<std::uint64_t> counts;
  for (const auto& b : bins)
    counts.push_back(b.total());
  EXPECT_EQ(counts, (std::vector<std::uint64_t>{0, 0, 1, 0, 1}));
}

TEST(RateSeries, PageViewsWithDatetimesAndDuplicates) {
  ScratchDir dir;
  RateSeriesOptions opt;
  opt.layout = RateSeriesOptions::Layout::kCsv;
  opt.delimiter = ';';
  opt.header = HeaderMode::kNo;
  opt.unit = TimeUnit::kDatetime;
  opt.interval = hours(1);
  const std::string path =
      dir.write("pv.csv",
                "2013-04-02 06:00:00;100\n2013-04-02 07:00:00;200\n2013-04-02 07:00:00;999\n"
                "2013-04-02 09:00:00;300\n");
  EXPECT_EQ(error_of([&] { drain(*open_rate_series(path, opt)); }),
            path +
                ":3: duplicated time stamp \"2013-04-02 07:00:00\" (same as line 2); set "
                "\"duplicates\" to \"first\" or \"sum\"");
  opt.duplicates = Duplicates::kFirst;
  auto s = open_rate_series(path, opt);
  const auto bins = drain(*s);
  ASSERT_EQ(bins.size(), 3u);
  EXPECT_EQ(bins[1].total(), 200u);
  EXPECT_EQ(bins[2].start, hours(3));  // rebased to the first row; 08:00 is a gap
  EXPECT_EQ(s->report().duplicates, 1u);
  opt.duplicates = Duplicates::kSum;
  EXPECT_EQ(drain(*open_rate_series(path, opt))[1].total(), 1199u);
}

}  // namespace
}  // namespace sim::traces
