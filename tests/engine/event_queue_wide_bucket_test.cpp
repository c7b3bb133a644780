// Tests of the ladder queue's wide rung-0 buckets (EventQueue::kSpread) and of how a bucket is
// sorted into Bottom (a counting sort on time, then an insertion sort inside each bin, or
// std::sort per bin when a bin is crowded). Hand-computed orders first, then random operation
// sequences against a std::multimap reference of the order (time, phase, scheduling order).
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "sim/engine/event_queue.hpp"

namespace sim {
namespace {

std::vector<int> run_all(EventQueue& q, std::vector<int>& seen) {
  while (!q.empty())
    q.pop().fn();
  return seen;
}

TEST(EventQueueWideBucket, ReversedTiesComeOutByTimeThenPhaseThenOrder) {
  // 96 events pushed latest first, three per time (10 ns apart), phases Late, Default, Early in
  // pushing order. Top's span is 310 ns over 96 events: rung 0 gets 96 / kSpread = 3 buckets of
  // 128 ns (~40 events each), each sorted by the counting sort. Expected, by hand: time 0 has
  // events 93 (Late), 94 (Default), 95 (Early) -> 95, 94, 93; time 10 -> 92, 91, 90; ...
  EventQueue q;
  std::vector<int> seen;
  const EventPhase phases[3] = {EventPhase::kLate, EventPhase::kDefault, EventPhase::kEarly};
  for (int i = 0; i < 96; ++i) {
    const std::int64_t t = 10 * ((95 - i) / 3);
    q.push(
        ns(t), [&seen, i] { seen.push_back(i); }, phases[i % 3]);
  }
  run_all(q, seen);
  ASSERT_EQ(seen.size(), 96U);
  EXPECT_EQ((std::vector<int>(seen.begin(), seen.begin() + 6)),
            (std::vector<int>{95, 94, 93, 92, 91, 90}));
  // The whole order is simply 95, 94, ..., 0: every group of three is reversed by its phases.
  for (std::size_t k = 0; k < seen.size(); ++k)
    EXPECT_EQ(seen[k], 95 - static_cast<int>(k)) << "position " << k;
}

TEST(EventQueueWideBucket, CrowdedBinKeepsFifoAmongEqualKeys) {
  // 200 events at one time (a bin of 200 keys: sorted by std::sort, not the insertion sort)
  // between 100 events spread before and after it. Pushed: i = 0..99 at 1000 * i + 7 ns,
  // then j = 0..199 at 50,000 ns, then i = 100..199 at 1000 * i + 7 ns. By hand: the 50 events
  // at 7 .. 49,007 ns, then the 200 tied ones in pushing order, then the rest.
  EventQueue q;
  std::vector<int> seen;
  for (int i = 0; i < 100; ++i)
    q.push(ns(1000 * std::int64_t{i} + 7), [&seen, i] { seen.push_back(i); });
  for (int j = 0; j < 200; ++j)
    q.push(ns(50'000), [&seen, j] { seen.push_back(1000 + j); });
  for (int i = 100; i < 200; ++i)
    q.push(ns(1000 * std::int64_t{i} + 7), [&seen, i] { seen.push_back(i); });
  run_all(q, seen);
  std::vector<int> expected;
  for (int i = 0; i < 50; ++i)
    expected.push_back(i);
  for (int j = 0; j < 200; ++j)
    expected.push_back(1000 + j);
  for (int i = 50; i < 200; ++i)
    expected.push_back(i);
  EXPECT_EQ(seen, expected);
}

TEST(EventQueueWideBucket, CancelledEventsInsideABucketAreSkipped) {
  // 300 events at 3 ns steps pushed in reverse; every third one (by time) is cancelled before
  // anything runs. By hand: the survivors run at times 3 * k with k % 3 != 0, in time order.
  EventQueue q;
  std::vector<std::int64_t> times;
  std::vector<EventHandle> handles(300);
  for (int k = 299; k >= 0; --k) {
    const std::int64_t t = 3 * std::int64_t{k};
    handles[static_cast<std::size_t>(k)] = q.push(ns(t), [&times, t] { times.push_back(t); });
  }
  for (std::size_t k = 0; k < 300; k += 3)
    EXPECT_TRUE(handles[k].cancel());
  EXPECT_EQ(q.size(), 200U);
  while (!q.empty())
    q.pop().fn();
  std::vector<std::int64_t> expected;
  for (std::int64_t k = 0; k < 300; ++k) {
    if (k % 3 != 0) expected.push_back(3 * k);
  }
  EXPECT_EQ(times, expected);
}

/// splitmix64, test-local.
std::uint64_t mix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// Random pushes (times on a coarse grid, so ties are common; random phases), pops and
/// cancels, checked pop by pop against a std::multimap keyed by (time, phase) whose equal
/// keys keep insertion order, which is the queue's contract.
void random_operations(std::uint64_t seed, std::int64_t grid, std::int64_t horizon, int pending,
                       int steps) {
  using Ref = std::multimap<std::tuple<std::int64_t, int>, int>;
  EventQueue q;
  Ref ref;
  std::vector<Ref::iterator> where;
  std::vector<EventHandle> handles;
  int ran = -1;
  std::int64_t now = 0;
  std::uint64_t s = seed;
  auto push = [&](std::int64_t t) {
    const int id = static_cast<int>(handles.size());
    const auto phase = static_cast<EventPhase>(mix(s) % 3);
    handles.push_back(q.push(
        ns(t), [&ran, id] { ran = id; }, phase));
    where.push_back(ref.emplace(std::make_tuple(t, static_cast<int>(phase)), id));
  };
  auto delay = [&] { return grid * static_cast<std::int64_t>(mix(s) % (horizon / grid)); };
  for (int i = 0; i < pending; ++i)
    push(delay());
  auto pop_and_check = [&] {
    const auto first = ref.begin();
    auto p = q.pop();
    p.fn();
    EXPECT_EQ(ran, first->second);
    EXPECT_EQ(p.time, ns(std::get<0>(first->first)));
    now = std::get<0>(first->first);
    where[static_cast<std::size_t>(first->second)] = ref.end();
    ref.erase(first);
  };
  // Each step keeps the population near `pending`: a pop and a push (6 in 8), a push at now
  // (zero delay) and a pop (1 in 8), or a cancel of a random earlier event and a push.
  for (int step = 0; step < steps && !::testing::Test::HasFailure(); ++step) {
    const std::uint64_t what = mix(s) % 8;
    if (what < 6) {
      if (!ref.empty()) pop_and_check();
      push(now + delay());
    } else if (what == 6) {
      push(now);
      pop_and_check();
    } else {
      const auto id = static_cast<std::size_t>(mix(s) % handles.size());
      const bool pending_now = where[id] != ref.end();
      EXPECT_EQ(handles[id].pending(), pending_now);
      EXPECT_EQ(handles[id].cancel(), pending_now);
      if (pending_now) ref.erase(where[id]);
      where[id] = ref.end();
      push(now + delay());
    }
    ASSERT_EQ(q.size(), ref.size()) << "step " << step;
  }
  while (!ref.empty() && !::testing::Test::HasFailure())
    pop_and_check();
  EXPECT_TRUE(q.empty());
}

TEST(EventQueueWideBucket, RandomOperationsMatchMultimapFineGrid) {
  // 20,000 pending, times on a 1 ns grid: wide buckets of a few hundred keys, few ties.
  random_operations(11, 1, 100'000'000, 20'000, 120'000);
}

TEST(EventQueueWideBucket, RandomOperationsMatchMultimapCoarseGrid) {
  // Times on a 1 ms grid over 0.5 s: ~40 events per instant, crowded bins.
  random_operations(12, 1'000'000, 500'000'000, 20'000, 120'000);
}

TEST(EventQueueWideBucket, RandomOperationsMatchMultimapSmallQueue) {
  // A few dozen pending events, as a small platform's queue.
  random_operations(13, 1000, 10'000'000, 40, 100'000);
}

TEST(EventQueueWideBucket, OverfullBucketIsSplitIntoAChildRung) {
  // 3,000 events within 3 us, 1 s after 100 events spread over 2 s: rung 0's buckets are
  // ~34 ms wide, so the burst lands in one bucket of more than kThresh keys, which is split
  // into a child rung when reached (rung_count() reaches 2); the order must stay exact.
  EventQueue q;
  std::vector<std::int64_t> times;
  for (std::int64_t i = 0; i < 100; ++i) {
    const std::int64_t t = 20'000'000 * i;
    q.push(ns(t), [&times, t] { times.push_back(t); });
  }
  std::uint64_t s = 5;
  for (int j = 0; j < 3000; ++j) {
    const std::int64_t t = 1'000'000'000 + static_cast<std::int64_t>(mix(s) % 3000);
    q.push(ns(t), [&times, t] { times.push_back(t); });
  }
  std::size_t max_rungs = 0;
  while (!q.empty()) {
    q.pop().fn();
    max_rungs = std::max(max_rungs, q.rung_count());
  }
  ASSERT_EQ(times.size(), 3100U);
  for (std::size_t k = 1; k < times.size(); ++k)
    ASSERT_LE(times[k - 1], times[k]) << "position " << k;
  EXPECT_GE(max_rungs, 2U);
  static_assert(EventQueue::kThresh < 3000);
}

}  // namespace
}  // namespace sim
