// Randomised tests of the ladder-queue pending-event set against a simple reference: a std::map
// keyed by (time, phase, scheduling order), which is the total order the queue must follow.
// The time distributions are chosen to stress the ladder: skewed and bimodal increments,
// bursts of equal times, interleaved cancels, rung spawning and Top refills.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/engine/event_queue.hpp"

namespace sim {
namespace {

/// splitmix64: a deterministic test-local generator (no std distributions).
class TestRng {
 public:
  explicit TestRng(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n).
  std::int64_t below(std::int64_t n) {
    return static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(n));
  }

 private:
  std::uint64_t s_;
};

using RefKey = std::tuple<std::int64_t, int, std::uint64_t>;  // time ns, phase, order

/// Drives an EventQueue and the reference side by side and checks every pop.
class Harness {
 public:
  explicit Harness(int sequence_bits = 38) : q_(sequence_bits) {}

  void push(std::int64_t t, EventPhase phase = EventPhase::kDefault) {
    const int id = static_cast<int>(keys_.size());
    const RefKey key{t, static_cast<int>(phase), order_++};
    keys_.push_back(key);
    handles_.push_back(q_.push(
        ns(t), [this, id] { last_ran_ = id; }, phase));
    ref_.emplace(key, id);
  }

  /// Cancels a random event scheduled earlier; it may have run or been cancelled already.
  /// Returns whether it was pending.
  bool cancel_random(TestRng& rng) {
    if (handles_.empty()) return false;
    const auto id = static_cast<std::size_t>(rng.below(static_cast<std::int64_t>(handles_.size())));
    const bool was_pending = ref_.count(keys_[id]) != 0;
    EXPECT_EQ(handles_[id].pending(), was_pending) << "event " << id;
    EXPECT_EQ(handles_[id].cancel(), was_pending) << "event " << id;
    ref_.erase(keys_[id]);
    EXPECT_FALSE(handles_[id].pending());
    return was_pending;
  }

  /// Pops one event and checks it is the reference's first; returns its time.
  std::int64_t pop() {
    EXPECT_FALSE(ref_.empty());
    const auto expected = ref_.begin();
    EXPECT_EQ(q_.next_time(), ns(std::get<0>(expected->first)));
    auto p = q_.pop();
    p.fn();
    EXPECT_EQ(last_ran_, expected->second);
    EXPECT_EQ(p.time, ns(std::get<0>(expected->first)));
    const std::int64_t t = std::get<0>(expected->first);
    ref_.erase(expected);
    EXPECT_EQ(q_.size(), ref_.size());
    now_ = t;
    return t;
  }

  void drain() {
    while (!ref_.empty() && !::testing::Test::HasFailure())
      pop();
    EXPECT_TRUE(q_.empty());
    EXPECT_EQ(q_.next_time(), Time::max());
  }

  /// A sequence number taken now and held (as CompletionHeap holds its entries' numbers).
  void hold_sequence() { held_.emplace_back(q_.take_sequence(), order_++); }

  /// next_is_after for an event at now + 0..2 ns, in a random phase, with a held or a fresh
  /// sequence number: when it answers true, every pending event must come after that one (it
  /// may answer false when it cannot tell cheaply). Returns {reference says after, queue says
  /// after}.
  std::pair<bool, bool> check_next_is_after(TestRng& rng) {
    const std::int64_t t = now_ + rng.below(3);
    const auto phase = static_cast<EventPhase>(rng.below(3));
    std::uint64_t sequence = q_.next_sequence();
    std::uint64_t order = order_;
    if (!held_.empty() && rng.below(2) == 0) {
      const auto& h =
          held_[static_cast<std::size_t>(rng.below(static_cast<std::int64_t>(held_.size())))];
      sequence = h.first;
      order = h.second;
    }
    const RefKey key{t, static_cast<int>(phase), order};
    const bool after = ref_.empty() || ref_.begin()->first > key;
    const bool answer = q_.next_is_after(ns(t), phase, sequence);
    EXPECT_TRUE(after || !answer) << "next_is_after(" << t << ", phase " << static_cast<int>(phase)
                                  << ", order " << order << ") but the first pending is at "
                                  << std::get<0>(ref_.begin()->first) << ", phase "
                                  << std::get<1>(ref_.begin()->first) << ", order "
                                  << std::get<2>(ref_.begin()->first);
    return {after, answer};
  }

  [[nodiscard]] std::int64_t now() const { return now_; }
  [[nodiscard]] std::size_t pending() const { return ref_.size(); }
  EventQueue& queue() { return q_; }

 private:
  EventQueue q_;
  std::map<RefKey, int> ref_;
  std::vector<RefKey> keys_;
  std::vector<EventHandle> handles_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> held_;  // sequence, reference order
  std::uint64_t order_ = 0;
  std::int64_t now_ = 0;
  int last_ran_ = -1;
};

/// The hold model with a given increment distribution: `steps` pops, each followed by one push
/// at now + increment; every `cancel_every`-th step also cancels a random earlier event and
/// schedules a replacement so that the population stays near n.
void run_hold(Harness& h, TestRng& rng, std::size_t n, std::size_t steps,
              const std::function<std::int64_t(TestRng&)>& increment, std::size_t cancel_every) {
  for (std::size_t i = 0; i < n; ++i)
    h.push(increment(rng));
  for (std::size_t s = 0; s < steps && !::testing::Test::HasFailure(); ++s) {
    if (h.pending() == 0) h.push(h.now() + increment(rng));
    h.pop();
    const auto phase = static_cast<EventPhase>(rng.below(3));
    h.push(h.now() + increment(rng), phase);
    if (cancel_every != 0 && s % cancel_every == 0 && h.cancel_random(rng)) {
      h.push(h.now() + increment(rng));
    }
  }
  h.drain();
}

TEST(EventQueueLadder, BimodalIncrementsMatchReference) {
  // 90% of events at +1 us, 10% at +1 h: a calendar queue sized for either mode degrades;
  // the ladder spawns rungs for the near cluster and keeps the far one in Top.
  Harness h;
  TestRng rng(1);
  run_hold(
      h, rng, 2000, 40000,
      [](TestRng& r) -> std::int64_t {
        return r.below(10) < 9 ? 1000 + r.below(3) : 3'600'000'000'000 + r.below(1000);
      },
      7);
  EXPECT_GT(h.queue().rungs_spawned(), 1U);
}

TEST(EventQueueLadder, ExponentialLikeIncrementsSpawnRungsAndRefillTop) {
  // Heavy-tailed increments (up to 2^40 ns, log-uniform) over a long run: rungs are spawned
  // from Top many times. (A bucket split into a child rung: event_queue_wide_bucket_test.cpp,
  // since rung 0's buckets hold ~kSpread events and are split only beyond kThresh = 1024.)
  Harness h;
  TestRng rng(2);
  for (std::size_t i = 0; i < 3000; ++i)
    h.push(rng.below(std::int64_t{1} << (rng.below(40) + 1)));
  for (std::size_t s = 0; s < 60000 && !HasFailure(); ++s) {
    h.pop();
    h.push(h.now() + rng.below(std::int64_t{1} << (rng.below(40) + 1)));
    if (s % 11 == 0) h.cancel_random(rng);
    if (s % 11 == 5) h.push(h.now() + rng.below(1000));
  }
  h.drain();
  // 6 rungs with rung-0 buckets of ~kSpread events (more than 10 with one event a bucket).
  EXPECT_GT(h.queue().rungs_spawned(), 3U);
}

TEST(EventQueueLadder, ManyEqualTimesAreFifoAcrossPhases) {
  // Thousands of events at only three distinct times, with random phases: buckets that cannot
  // be split (one time) go to Bottom whole, ordered by phase then scheduling order.
  Harness h;
  TestRng rng(3);
  for (int round = 0; round < 5 && !HasFailure(); ++round) {
    for (int i = 0; i < 3000; ++i) {
      h.push(h.now() + 1000 * rng.below(3), static_cast<EventPhase>(rng.below(3)));
      if (i % 5 == 0) h.cancel_random(rng);
    }
    for (int i = 0; i < 2000 && h.pending() > 0; ++i)
      h.pop();
  }
  h.drain();
}

TEST(EventQueueLadder, BurstBelowBottomIsRespreadIntoARung) {
  // Two events far apart become Bottom and rung material; then a burst of 20,000 events lands
  // between them, below the end of Bottom's range: Bottom must be turned back into a rung
  // rather than grow by sorted insertion, and the order must stay exact.
  Harness h;
  TestRng rng(4);
  h.push(1000);
  h.push(3'600'000'000'000);
  h.pop();
  for (int i = 0; i < 20000; ++i)
    h.push(h.now() + rng.below(3'600'000'000'000));
  EXPECT_LE(h.queue().stored_entries(), h.pending());
  h.drain();
  EXPECT_GT(h.queue().rungs_spawned(), 1U);
}

TEST(EventQueueLadder, InterleavedCancelsKeepStorageBounded) {
  // Schedule two, cancel one, at random times: stale entries are dropped at the front or
  // purged, so the stored entries stay within 2 * live + slack.
  Harness h;
  TestRng rng(5);
  std::size_t max_stored = 0;
  for (std::size_t i = 0; i < 1000; ++i)
    h.push(rng.below(1'000'000));
  for (std::size_t s = 0; s < 30000 && !HasFailure(); ++s) {
    h.pop();
    h.push(h.now() + rng.below(1'000'000));
    h.push(h.now() + rng.below(1'000'000'000));
    h.cancel_random(rng);
    if (h.pending() > 1000) h.pop();
    max_stored = std::max(max_stored, h.queue().stored_entries());
  }
  EXPECT_LE(max_stored, 2 * 1100 + 1024 + 16);
  h.drain();
}

TEST(EventQueueLadder, ExponentialHoldWithCancelsMatchesReference) {
  // The benchmark's shape (hold model, exponential increments, mean 1 ms) with a random earlier
  // event cancelled every other step: insertions are staged and the next bucket's chunks are
  // walked ahead while cancels, stale entries and purges happen, so the order and the handles
  // must not depend on any of that.
  Harness h;
  TestRng rng(7);
  run_hold(
      h, rng, 5000, 60000,
      [](TestRng& r) -> std::int64_t {
        const double u = static_cast<double>(r.next() >> 11) * 0x1.0p-53;  // [0, 1)
        return static_cast<std::int64_t>(-std::log1p(-u) * 1e6);
      },
      2);
  EXPECT_GT(h.queue().rungs_spawned(), 1U);
}

TEST(EventQueueLadder, RenumberingUnderRandomLoadKeepsOrderAndHandles) {
  // An 8-bit sequence counter renumbers every 256 pushes or so, while the ladder holds events
  // in Top, rungs and Bottom; the order and every handle must survive.
  Harness h(8);
  TestRng rng(6);
  run_hold(
      h, rng, 100, 20000,
      [](TestRng& r) -> std::int64_t { return r.below(4) == 0 ? 0 : r.below(50'000); }, 3);
}

// EventQueue::next_is_after, which lets CompletionHeap run a completion due now inline instead
// of pushing and popping it: after every pop (where the heap asks it, inside an event), for
// candidates at the same or the next nanoseconds, in every phase, with held (older) and fresh
// sequence numbers, "true" must mean that every pending event comes after the candidate. Ties
// at one nanosecond are common, and far events keep rungs and Top in use.
TEST(EventQueueLadder, NextIsAfterNeverClaimsAnEventRunsFirstWhenOneIsPending) {
  Harness h;
  TestRng rng(11);
  std::size_t after = 0;
  std::size_t answered_after = 0;
  for (int i = 0; i < 200; ++i)
    h.push(rng.below(4));
  for (int step = 0; step < 30000 && !::testing::Test::HasFailure(); ++step) {
    if (h.pending() == 0) h.push(h.now() + rng.below(4));
    h.pop();
    if (rng.below(4) == 0) h.hold_sequence();
    for (int k = 0; k < 3; ++k) {
      const auto [ref, answer] = h.check_next_is_after(rng);
      after += ref ? 1 : 0;
      answered_after += answer ? 1 : 0;
    }
    // One near event per pop keeps ~200 within a few nanoseconds of now; a few far ones sit in
    // the rungs and Top.
    h.push(h.now() + rng.below(4), static_cast<EventPhase>(rng.below(3)));
    if (rng.below(50) == 0) h.push(h.now() + 1'000'000 + rng.below(1'000'000'000));
    if (rng.below(16) == 0) h.cancel_random(rng);
  }
  h.drain();
  // Not vacuous: the candidate often does come first, and the queue often says so.
  EXPECT_GT(after, 5000u);
  EXPECT_GT(answered_after, after / 2) << after << " candidates came first";
}

}  // namespace
}  // namespace sim
