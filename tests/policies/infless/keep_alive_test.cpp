// LSTH (INFless §3.5) and HHP (Shahrad et al., ATC'20) windows, hand-computed.

#include <gtest/gtest.h>

#include "sim/policy/infless/histogram_keep_alive.hpp"

namespace sim::policy::infless {
namespace {

// Idle times 1..20 minutes (+10 s): head (5th percentile, nearest rank 1) = bin 1, lower edge
// 60 s; tail (99th, rank ceil(19.8) = 20) = bin 20, upper edge 21 min = 1260 s.
TEST(IdleHistogram, PercentilesAtBinResolution) {
  IdleHistogram h(hours(24), seconds(60), hours(4));
  for (int k = 1; k <= 20; ++k)
    h.add(seconds(0), seconds(60.0 * k + 10));
  EXPECT_EQ(*h.percentile(5, false), seconds(60));
  EXPECT_EQ(*h.percentile(99, true), seconds(1260));
  h.add(seconds(0), hours(5));  // out of range: counted, not in the percentiles
  EXPECT_EQ(h.out_of_bounds(), 1u);
  EXPECT_EQ(*h.percentile(99, true), seconds(1260));
  h.expire(hours(25));  // everything observed before 1 h is forgotten
  EXPECT_EQ(h.count(), 0u);
}

/// Feeds one tick per minute up to minute `until`; the function is invoked in the minutes of
/// `active`.
void feed(HistogramKeepAlive& k, const std::vector<int>& active, int until) {
  std::uint64_t arrivals = 0;
  std::size_t next = 0;
  for (int m = 0; m <= until; ++m) {
    if (next < active.size() && active[next] == m) {
      ++arrivals;
      ++next;
    }
    PlatformView v;
    v.now = minutes(m);
    v.control_interval = minutes(1);
    FunctionView f;
    f.id = 0;
    f.arrivals = arrivals;
    v.functions = {f};
    k.observe(v);
  }
}

/// Invoked every 10 minutes for 3 hours (idle 9 minutes = 540 s, bin 9), then every 3 minutes
/// up to minute 300 (idle 2 minutes = 120 s, bin 2): 18 samples of 540 s observed at minutes
/// 10..180, 40 samples of 120 s observed at minutes 183..300.
std::vector<int> shifting_pattern() {
  std::vector<int> a;
  for (int m = 0; m <= 180; m += 10)
    a.push_back(m);
  for (int m = 183; m <= 300; m += 3)
    a.push_back(m);
  return a;
}

// At minute 300: short term (last hour, observed >= 240): 21 samples of 120 s: head 120 s,
// tail upper edge 180 s. Long term: 40 x bin 2 and 18 x bin 9 (58): head rank ceil(2.9) = 3 ->
// 120 s; tail rank ceil(57.42) = 58 -> bin 9, upper edge 600 s. gamma = 0.5:
// pre-warm = 0.5 * 120 + 0.5 * 120 = 120 s; tail = 0.5 * 600 + 0.5 * 180 = 390 s;
// keep-alive = 390 - 120 = 270 s.
TEST(Lsth, WeightsLongAndShortTermHistograms) {
  HistogramKeepAliveConfig c;
  c.lsth = true;
  HistogramKeepAlive k(c);
  feed(k, shifting_pattern(), 300);
  const Windows w = k.windows(0);
  EXPECT_EQ(w.prewarm, seconds(120));
  EXPECT_EQ(w.keep_alive, seconds(270));
}

// gamma = 1 is the long-term histogram alone: pre-warm 120 s, keep-alive 600 - 120 = 480 s.
TEST(Lsth, GammaOneIsTheLongTermHistogram) {
  HistogramKeepAliveConfig c;
  c.gamma = 1.0;
  HistogramKeepAlive k(c);
  feed(k, shifting_pattern(), 300);
  EXPECT_EQ(k.windows(0).keep_alive, seconds(480));
}

// HHP, 4 h window at minute 300 (observed >= 60): 13 samples of 540 s (minutes 60..180) and 40
// of 120 s. Bin-count CV over 240 bins: mean 53/240, sd 2.706, CV 12.3 >= 2: representative.
// head rank ceil(2.65) = 3 -> 120 s - 10% = 108 s; tail rank ceil(52.47) = 53 -> 600 s + 10% =
// 660 s; keep-alive = 660 - 108 = 552 s.
TEST(Hhp, HeadAndTailWithMargins) {
  HistogramKeepAliveConfig c;
  c.lsth = false;
  HistogramKeepAlive k(c);
  feed(k, shifting_pattern(), 300);
  const Windows w = k.windows(0);
  EXPECT_EQ(w.prewarm, seconds(108));
  EXPECT_EQ(w.keep_alive, seconds(552));
}

// Fewer than min_samples idle times: the conservative standard keep-alive (the 4 h range).
TEST(Hhp, TooFewIdleTimesFallBackToTheRange) {
  HistogramKeepAliveConfig c;
  c.lsth = false;
  HistogramKeepAlive k(c);
  feed(k, {0, 10, 20}, 30);
  EXPECT_EQ(k.windows(0).prewarm, Time::zero());
  EXPECT_EQ(k.windows(0).keep_alive, hours(4));
}

// With a pre-warming window (120 s after the last invocation at minute 300): a used instance is
// unloaded at once; at minute 301 nothing is loaded yet, at minute 302 one instance is, and a
// pre-warmed instance that has not run is kept until 300 min + 120 s + 270 s.
TEST(Lsth, UnloadsThenPrewarmsOneInstance) {
  HistogramKeepAliveConfig c;
  HistogramKeepAlive k(c);
  const auto active = shifting_pattern();
  feed(k, active, 300);
  FunctionView f;
  f.id = 0;
  f.arrivals = active.size();
  InstanceView used;
  used.batches = 3;
  EXPECT_EQ(k.idle_timeout(used, f), Time::zero());
  PlatformView v;
  v.control_interval = minutes(1);
  v.functions = {f};
  v.now = minutes(301);
  EXPECT_TRUE(k.prewarm(v).empty());
  v.now = minutes(302);
  const auto starts = k.prewarm(v);
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].count, 1);
  InstanceView fresh;
  fresh.batches = 0;
  fresh.state_since = minutes(302) + seconds(5);
  EXPECT_EQ(k.idle_timeout(fresh, f), minutes(300) + seconds(390) - fresh.state_since);
}

// No pre-warming window (busy function: back-to-back active minutes, head = 0): idle
// instances are kept for the keep-alive window (here the tail bin's upper edge, 60 s).
TEST(Lsth, BusyFunctionKeepsInstancesForTheTail) {
  HistogramKeepAliveConfig c;
  HistogramKeepAlive k(c);
  std::vector<int> every;
  for (int m = 0; m <= 30; ++m)
    every.push_back(m);
  feed(k, every, 30);
  EXPECT_EQ(k.windows(0).prewarm, Time::zero());
  FunctionView f;
  f.id = 0;
  InstanceView used;
  used.batches = 1;
  EXPECT_EQ(k.idle_timeout(used, f), seconds(60));
}

}  // namespace
}  // namespace sim::policy::infless
