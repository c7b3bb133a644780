// TimerSet: hand-computed cases, and random scripts run against what it replaces (one event per
// timer, cancelled through its handle), which must run every callback in the same order at the
// same time with the same number of executed events, also when the sequence counter is small
// enough to be renumbered often.
#include "sim/engine/timer_set.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "sim/engine/simulation.hpp"

namespace sim {
namespace {

TEST(TimerSet, ExpiresInTimeOrderAndSkipsCancelled) {
  Simulation sim;
  std::vector<std::uint64_t> fired;
  std::vector<std::int64_t> at;
  TimerSet timers(sim, [&](std::uint64_t tag) {
    fired.push_back(tag);
    at.push_back(sim.now().ns());
  });
  const auto a = timers.schedule_in(ns(30), 1);
  const auto b = timers.schedule_in(ns(10), 2);
  const auto c = timers.schedule_in(ns(20), 3);
  const auto d = timers.schedule_in(ns(10), 4);  // ties with b, set later: runs after it
  EXPECT_EQ(sim.pending_events(), 1u);           // only the earliest (b) is queued
  EXPECT_EQ(timers.size(), 4u);
  EXPECT_TRUE(timers.cancel(b));   // the armed one: d (10 ns) is queued instead
  EXPECT_FALSE(timers.cancel(b));  // no longer pending
  EXPECT_TRUE(timers.cancel(c));
  EXPECT_EQ(sim.pending_events(), 1u);
  EXPECT_TRUE(timers.pending(a));
  EXPECT_FALSE(timers.pending(c));
  sim.run();
  EXPECT_EQ(fired, (std::vector<std::uint64_t>{4, 1}));
  EXPECT_EQ(at, (std::vector<std::int64_t>{10, 30}));
  EXPECT_EQ(sim.events_executed(), 2u);  // one per expiry, none for the cancelled ones
  EXPECT_FALSE(timers.pending(a));
  EXPECT_FALSE(timers.pending(d));
  EXPECT_EQ(timers.size(), 0u);
  EXPECT_EQ(sim.pending_events(), 0u);
}

TEST(TimerSet, TiesWithOrdinaryEventsRunInSchedulingOrder) {
  // Events at one time run in the order they were scheduled; a timer keeps its place among
  // them although it is queued only when it becomes the earliest.
  Simulation sim;
  std::vector<char> log;
  TimerSet timers(sim, [&](std::uint64_t tag) { log.push_back(static_cast<char>(tag)); });
  sim.schedule_at(ns(5), [&] { log.push_back('x'); });
  timers.schedule_in(ns(5), 'a');
  sim.schedule_at(ns(5), [&] { log.push_back('y'); });
  timers.schedule_in(ns(5), 'b');
  sim.schedule_at(ns(5), [&] { log.push_back('z'); });
  sim.run();
  EXPECT_EQ(log, (std::vector<char>{'x', 'a', 'y', 'b', 'z'}));
  EXPECT_EQ(sim.events_executed(), 5u);
}

TEST(TimerSet, ZeroDelayRunsAfterTheCurrentEvent) {
  Simulation sim;
  std::vector<char> log;
  TimerSet timers(sim, [&](std::uint64_t tag) { log.push_back(static_cast<char>(tag)); });
  sim.schedule_at(ns(7), [&] {
    sim.schedule_in(ns(0), [&] { log.push_back('e'); });
    timers.schedule_in(ns(0), 't');
    log.push_back('n');
  });
  sim.run();
  EXPECT_EQ(log, (std::vector<char>{'n', 'e', 't'}));
  EXPECT_EQ(sim.now(), ns(7));
  EXPECT_THROW(timers.schedule_in(ns(-1), 0), std::logic_error);
}

TEST(TimerSet, ATimerSetFromItsOwnExpiryRunsInTurn) {
  Simulation sim;
  std::vector<std::int64_t> at;
  std::unique_ptr<TimerSet> timers;
  timers = std::make_unique<TimerSet>(sim, [&](std::uint64_t tag) {
    at.push_back(sim.now().ns());
    if (tag < 3) timers->schedule_in(ns(4), tag + 1);
  });
  timers->schedule_in(ns(1), 0);
  timers->schedule_in(ns(6), 10);
  sim.run();
  // 0 at 1, 1 at 5, 10 at 6, 2 at 9, 3 at 13.
  EXPECT_EQ(at, (std::vector<std::int64_t>{1, 5, 6, 9, 13}));
}

TEST(TimerSet, CancelledKeysArePurged) {
  // Memory follows the live timers, not the cancelled ones: 10,000 set-and-cancel cycles with
  // 10 timers live keep at most 2 x 10 + kPurgeSlack + 1 keys.
  Simulation sim;
  TimerSet timers(sim, [](std::uint64_t) {});
  std::vector<TimerSet::Ticket> live;
  for (int i = 0; i < 10; ++i)
    live.push_back(timers.schedule_in(ns(1000 + i), 0));
  std::size_t most = 0;
  for (int i = 0; i < 10000; ++i) {
    const auto t = timers.schedule_in(ns(2000 + i), 0);
    EXPECT_TRUE(timers.cancel(t));
    most = std::max(most, timers.stored_keys());
  }
  EXPECT_LE(most, 2 * 10 + TimerSet::kPurgeSlack + 1);
  EXPECT_EQ(timers.size(), 10u);
}

TEST(TimerSet, DestroyedSetLeavesNoEvent) {
  Simulation sim;
  bool fired = false;
  {
    TimerSet timers(sim, [&](std::uint64_t) { fired = true; });
    timers.schedule_in(ns(5), 0);
  }
  sim.run();
  EXPECT_FALSE(fired);
  EXPECT_EQ(sim.events_executed(), 0u);
}

constexpr std::size_t kOwners = 12;

/// Timers per owner: an owner's latest ticket is the one it can cancel; setting a new one
/// forgets the old ticket without cancelling it (as an instance's keep-alive handle is
/// overwritten).
class Timers {
 public:
  virtual ~Timers() = default;
  virtual void set(std::size_t owner, Time dt) = 0;
  virtual void cancel(std::size_t owner) = 0;
};

/// The replaced scheme: an event per timer.
class EventPerTimer final : public Timers {
 public:
  EventPerTimer(Simulation& sim, std::function<void(std::uint64_t)> due)
      : sim_(sim), due_(std::move(due)), handles_(kOwners) {}
  void set(std::size_t owner, Time dt) override {
    handles_[owner] = sim_.schedule_in(dt, [this, owner] { due_(owner); });
  }
  void cancel(std::size_t owner) override { handles_[owner].cancel(); }

 private:
  Simulation& sim_;
  std::function<void(std::uint64_t)> due_;
  std::vector<EventHandle> handles_;
};

class InSet final : public Timers {
 public:
  InSet(Simulation& sim, std::function<void(std::uint64_t)> due, std::size_t purge_slack)
      : set_(sim, std::move(due), purge_slack), tickets_(kOwners) {}
  void set(std::size_t owner, Time dt) override { tickets_[owner] = set_.schedule_in(dt, owner); }
  void cancel(std::size_t owner) override { set_.cancel(tickets_[owner]); }

 private:
  TimerSet set_;
  std::vector<TimerSet::Ticket> tickets_;
};

using Log = std::vector<std::tuple<std::int64_t, char, std::uint64_t>>;

/// Runs one random script; the random draws depend only on the order of callbacks, so two
/// schemes that run callbacks alike make identical logs. The last entry is the number of
/// events executed.
/// `purge_slack` < 0: one event per timer; else a TimerSet with that slack.
Log run_script(std::uint64_t seed, int sequence_bits, int purge_slack) {
  Simulation sim(seed, sequence_bits);
  RandomStream rng = sim.rng("script");
  Log log;
  std::unique_ptr<Timers> timers;
  std::uint64_t marker_id = 0;
  int budget = 3000;  // operations in all, so the run ends
  // Delays from a small set (0 included): many timers and markers share a nanosecond.
  const auto delay = [&] { return ns(static_cast<std::int64_t>(rng.uniform_int(0, 3)) * 5); };
  std::function<void()> operate;
  std::function<void(std::uint64_t)> schedule_marker = [&](std::uint64_t id) {
    sim.schedule_in(delay(), [&, id] {
      log.emplace_back(sim.now().ns(), 'm', id);
      operate();
    });
  };
  operate = [&] {
    const auto n = rng.uniform_int(0, 4);
    for (std::uint64_t k = 0; k < n && budget > 0; ++k, --budget) {
      const auto owner = static_cast<std::size_t>(rng.uniform_int(0, kOwners - 1));
      const auto what = rng.uniform_int(0, 9);
      if (what < 5) {
        timers->set(owner, delay());
      } else if (what < 8) {
        timers->cancel(owner);
      } else {
        schedule_marker(marker_id++);
      }
    }
  };
  const auto due = [&](std::uint64_t owner) {
    log.emplace_back(sim.now().ns(), 'd', owner);
    operate();
  };
  if (purge_slack >= 0) {
    timers = std::make_unique<InSet>(sim, due, static_cast<std::size_t>(purge_slack));
  } else {
    timers = std::make_unique<EventPerTimer>(sim, due);
  }
  for (std::uint64_t i = 0; i < 4; ++i)
    schedule_marker(marker_id++);
  sim.run();
  log.emplace_back(sim.now().ns(), 'e', sim.events_executed());
  return log;
}

TEST(TimerSet, RunsCallbacksInTheOrderOfAnEventPerTimer) {
  std::size_t ties = 0;
  std::size_t dues = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    for (const int bits : {38, 8}) {
      const Log expected = run_script(seed, bits, -1);
      // Purged at once (slack 0) and as in a run.
      ASSERT_EQ(run_script(seed, bits, 0), expected)
          << "seed " << seed << ", " << bits << "-bit sequence counter, slack 0";
      const Log got = run_script(seed, bits, TimerSet::kPurgeSlack);
      ASSERT_EQ(got, expected) << "seed " << seed << ", " << bits << "-bit sequence counter";
      for (std::size_t i = 1; i < got.size(); ++i) {
        if (std::get<0>(got[i]) == std::get<0>(got[i - 1])) ++ties;
        if (std::get<1>(got[i]) == 'd') ++dues;
      }
    }
  }
  // The scripts must exercise what matters: many timers due, many at the same nanosecond.
  EXPECT_GT(dues, 1000u);
  EXPECT_GT(ties, 1000u);
}

}  // namespace
}  // namespace sim
