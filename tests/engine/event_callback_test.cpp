#include "sim/engine/event_callback.hpp"

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "sim/engine/event_queue.hpp"
#include "sim/engine/simulation.hpp"

namespace sim {
namespace {

int g_calls = 0;
void count_call() {
  ++g_calls;
}

TEST(EventCallback, EmptyByDefaultAndFromNullOrEmptyFunction) {
  EXPECT_FALSE(EventCallback());
  EXPECT_FALSE(EventCallback(nullptr));
  EXPECT_FALSE(EventCallback(std::function<void()>()));
  void (*null_fn)() = nullptr;
  EXPECT_FALSE(EventCallback(null_fn));
}

TEST(EventCallback, SmallTrivialLambdaRunsAndMoves) {
  int hits = 0;
  int* p = &hits;
  EventCallback a([p] { ++*p; });
  ASSERT_TRUE(a);
  a();
  EventCallback b(std::move(a));
  EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  b();
  EventCallback c;
  c = std::move(b);
  c();
  EXPECT_EQ(hits, 3);
}

TEST(EventCallback, FunctionPointerAndStdFunction) {
  g_calls = 0;
  EventCallback a(&count_call);
  a();
  std::function<void()> f = count_call;
  EventCallback b(f);  // copies the std::function; f stays usable
  b();
  f();
  EXPECT_EQ(g_calls, 3);
}

TEST(EventCallback, LargeCallableGoesToTheHeapAndIsDestroyedOnce) {
  // 64 bytes of capture: more than the 32-byte inline storage.
  auto owner = std::make_shared<int>(0);
  std::array<std::uint64_t, 8> big{};
  big[7] = 5;
  {
    EventCallback a([owner, big] { *owner += static_cast<int>(big[7]); });
    EXPECT_EQ(owner.use_count(), 2);
    EventCallback b(std::move(a));
    b();
    EXPECT_EQ(owner.use_count(), 2);  // moving kept one copy of the capture
  }
  EXPECT_EQ(owner.use_count(), 1);  // and destroying released it
  EXPECT_EQ(*owner, 5);
}

TEST(EventCallback, NonTrivialInlineCallableIsMovedAndDestroyed) {
  auto owner = std::make_shared<std::string>("x");
  {
    EventCallback a([owner] { *owner += "y"; });  // a shared_ptr: fits, but not trivial
    EventCallback b(std::move(a));
    EventCallback c;
    c = std::move(b);
    c();
    EXPECT_EQ(owner.use_count(), 2);
    c = nullptr;
    EXPECT_EQ(owner.use_count(), 1);
  }
  EXPECT_EQ(*owner, "xy");
}

TEST(EventCallback, MoveOnlyAndMutableCallables) {
  auto value = std::make_unique<int>(1);
  int seen = 0;
  EventCallback a([v = std::move(value), &seen]() mutable { seen = ++*v; });
  a();
  a();
  EXPECT_EQ(seen, 3);
}

TEST(EventCallback, QueueRejectsEmptyCallablesAndKeepsItsSlot) {
  EventQueue q;
  EXPECT_THROW(q.push(ns(1), std::function<void()>()), std::invalid_argument);
  EXPECT_THROW(q.push(ns(1), nullptr), std::invalid_argument);
  EXPECT_TRUE(q.empty());
  int hits = 0;
  q.push(ns(2), [&hits] { ++hits; });
  EXPECT_EQ(q.size(), 1U);
  q.pop().fn();
  EXPECT_EQ(hits, 1);
}

TEST(EventCallback, SimulationRunsCallablesOfEveryKind) {
  Simulation sim;
  int hits = 0;
  std::function<void()> f = [&hits] { hits += 10; };
  std::array<std::uint64_t, 8> big{};
  big[0] = 100;
  sim.schedule_in(ns(1), [&hits] { hits += 1; });
  sim.schedule_in(ns(2), f);
  sim.schedule_in(ns(3), [&hits, big] { hits += static_cast<int>(big[0]); });
  sim.schedule_at(ns(4), EventCallback([&hits] { hits += 1000; }));
  sim.run();
  EXPECT_EQ(hits, 1111);
}

}  // namespace
}  // namespace sim
