#include "sim/engine/simulation.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace sim {
namespace {

TEST(Simulation, ClockAdvancesToEachEvent) {
  Simulation s;
  std::vector<Time> times;
  s.schedule_at(ms(10), [&] { times.push_back(s.now()); });
  s.schedule_in(ms(5), [&] {
    times.push_back(s.now());
    s.schedule_in(ms(20), [&] { times.push_back(s.now()); });
  });
  EXPECT_EQ(s.run(), RunOutcome::kQueueEmpty);
  EXPECT_EQ(times, (std::vector<Time>{ms(5), ms(10), ms(25)}));
  EXPECT_EQ(s.events_executed(), 3U);
}

TEST(Simulation, SchedulingInThePastThrowsWithAdvice) {
  Simulation s;
  s.schedule_at(ms(10), [] {});
  s.run();
  try {
    s.schedule_at(ms(5), [] {});
    FAIL() << "expected an exception";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("before the current time 10ms"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(s.schedule_in(ms(-1), [] {}), std::logic_error);
}

TEST(Simulation, RunUntilStopsAtLimitInclusiveAndSetsClock) {
  Simulation s;
  int ran = 0;
  s.schedule_at(seconds(1), [&] { ++ran; });
  s.schedule_at(seconds(2), [&] { ++ran; });
  s.schedule_at(seconds(3), [&] { ++ran; });
  EXPECT_EQ(s.run_until(seconds(2)), RunOutcome::kReachedTime);
  EXPECT_EQ(ran, 2) << "an event exactly at the limit runs";
  EXPECT_EQ(s.now(), seconds(2));
  EXPECT_EQ(s.pending_events(), 1U);
  EXPECT_EQ(s.run_until(seconds(10)), RunOutcome::kReachedTime);
  EXPECT_EQ(s.now(), seconds(10)) << "an empty queue still advances the clock to the limit";
}

TEST(Simulation, StopFromAnEventReturnsAfterIt) {
  Simulation s;
  int ran = 0;
  s.schedule_at(seconds(1), [&] {
    ++ran;
    s.stop();
  });
  s.schedule_at(seconds(2), [&] { ++ran; });
  EXPECT_EQ(s.run(), RunOutcome::kStopped);
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(s.now(), seconds(1));
  EXPECT_EQ(s.run(), RunOutcome::kQueueEmpty) << "a later run resumes";
  EXPECT_EQ(ran, 2);
}

TEST(Simulation, ObserverIsCalledEveryNEvents) {
  Simulation s;
  int calls = 0;
  s.set_observer([&] { ++calls; }, 10);
  for (int i = 0; i < 35; ++i)
    s.schedule_at(ms(i), [] {});
  s.run();
  EXPECT_EQ(calls, 3);
}

// A callable whose destructor schedules events: the run loop destroys it right after it ran,
// before the next event is chosen, so that the events it schedules at the current time run
// next (before a later event already pending), and growing the slot table then is safe (the
// loop once destroyed it while moving the next callback out of its slot; ASan would report it).
struct SchedulesWhenDestroyed {
  Simulation* sim = nullptr;
  std::vector<int>* order = nullptr;
  SchedulesWhenDestroyed(Simulation* s, std::vector<int>* o) : sim(s), order(o) {}
  SchedulesWhenDestroyed(SchedulesWhenDestroyed&& o) noexcept : sim(o.sim), order(o.order) {
    o.sim = nullptr;
  }
  SchedulesWhenDestroyed(const SchedulesWhenDestroyed&) = delete;
  SchedulesWhenDestroyed& operator=(const SchedulesWhenDestroyed&) = delete;
  SchedulesWhenDestroyed& operator=(SchedulesWhenDestroyed&&) = delete;
  ~SchedulesWhenDestroyed() {
    if (sim == nullptr) return;
    std::vector<int>* o = order;
    for (int i = 0; i < 4096; ++i)
      sim->schedule_in(Time::zero(), [o] { o->push_back(2); });
  }
  void operator()() const { order->push_back(1); }
};

TEST(Simulation, CallableDestroyedAfterItRanBeforeTheNextEventIsChosen) {
  Simulation s;
  std::vector<int> order;
  s.schedule_at(ms(1), SchedulesWhenDestroyed(&s, &order));
  s.schedule_at(ms(2), [&order] { order.push_back(3); });
  EXPECT_EQ(s.run(), RunOutcome::kQueueEmpty);
  ASSERT_EQ(order.size(), 4098U);
  EXPECT_EQ(order.front(), 1);
  EXPECT_EQ(order.back(), 3);  // the destructor's 4096 events (at 1 ms) ran before it
  EXPECT_EQ(s.events_executed(), 4098U);
}

TEST(Simulation, CallbacksOfEveryKindRunAndAreDestroyed) {
  // Small trivially copyable lambdas, ones with a destructor (a shared_ptr capture), ones too
  // large for the inline storage (heap), std::function and a function pointer, interleaved.
  Simulation s;
  static int plain_calls = 0;
  plain_calls = 0;
  auto counter = std::make_shared<int>(0);
  std::array<std::uint64_t, 6> big{};
  int small = 0;
  for (int i = 0; i < 1000; ++i) {
    const Time t = Time::from_ns((i * 7919) % 1000);
    switch (i % 4) {
      case 0:
        s.schedule_at(t, [&small] { ++small; });
        break;
      case 1:
        s.schedule_at(t, [counter] { ++*counter; });
        break;
      case 2:
        s.schedule_at(t, [&small, big] { small += static_cast<int>(big[0]) + 1; });
        break;
      default:
        s.schedule_at(
            t, +[] { ++plain_calls; });
        break;
    }
  }
  s.schedule_at(ms(1), std::function<void()>([&small] { small += 1000; }));
  EXPECT_EQ(s.run(), RunOutcome::kQueueEmpty);
  EXPECT_EQ(small, 250 + 250 + 1000);
  EXPECT_EQ(*counter, 250);
  EXPECT_EQ(plain_calls, 250);
  EXPECT_EQ(counter.use_count(), 1);  // every copy in a callback was destroyed
}

TEST(Simulation, TwoSimulationsSideBySideAreIdentical) {
  // No global state: interleaving two runs step by step gives identical traces.
  // A self-rescheduling Poisson source; it holds no reference to itself, so nothing leaks.
  struct Source {
    Simulation& sim;
    std::vector<double>& out;
    RandomStream rng;
    void arrive() {
      out.push_back(sim.now().to_seconds());
      if (out.size() < 200) sim.schedule_in(seconds(rng.exponential(5.0)), [this] { arrive(); });
    }
  };
  Simulation a(7);
  Simulation b(7);
  std::vector<double> ta;
  std::vector<double> tb;
  Source sa{a, ta, a.rng("test", "arrivals")};
  Source sb{b, tb, b.rng("test", "arrivals")};
  a.schedule_at(Time::zero(), [&] { sa.arrive(); });
  b.schedule_at(Time::zero(), [&] { sb.arrive(); });
  for (int step = 1; step <= 100; ++step) {
    a.run_until(seconds(step * 0.5));
    b.run_until(seconds(step * 0.5));
  }
  EXPECT_EQ(ta.size(), 200U);
  EXPECT_EQ(ta, tb);
}

}  // namespace
}  // namespace sim
