#include "sim/engine/event_queue.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace sim {
namespace {

std::vector<int> drain(EventQueue& q) {
  std::vector<int> order;
  while (!q.empty()) {
    auto p = q.pop();
    p.fn();
  }
  return order;
}

TEST(EventQueue, PopsInTimeOrder) {
  EventQueue q;
  std::vector<int> seen;
  q.push(ms(30), [&] { seen.push_back(3); });
  q.push(ms(10), [&] { seen.push_back(1); });
  q.push(ms(20), [&] { seen.push_back(2); });
  drain(q);
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3}));
}

TEST(EventQueue, EqualTimesRunInSchedulingOrder) {
  // FIFO among equal keys: 1000 events at one time must come out as they went in.
  EventQueue q;
  std::vector<int> seen;
  for (int i = 0; i < 1000; ++i)
    q.push(ms(5), [&seen, i] { seen.push_back(i); });
  drain(q);
  ASSERT_EQ(seen.size(), 1000U);
  for (int i = 0; i < 1000; ++i)
    EXPECT_EQ(seen[static_cast<std::size_t>(i)], i);
}

TEST(EventQueue, PhaseOrdersEventsAtEqualTime) {
  EventQueue q;
  std::vector<int> seen;
  q.push(
      ms(1), [&] { seen.push_back(2); }, EventPhase::kLate);
  q.push(
      ms(1), [&] { seen.push_back(1); }, EventPhase::kDefault);
  q.push(
      ms(1), [&] { seen.push_back(0); }, EventPhase::kEarly);
  q.push(
      ms(0), [&] { seen.push_back(-1); }, EventPhase::kLate);
  drain(q);
  EXPECT_EQ(seen, (std::vector<int>{-1, 0, 1, 2}));
}

TEST(EventQueue, CancelRemovesEventAndHandleReportsIt) {
  EventQueue q;
  std::vector<int> seen;
  auto a = q.push(ms(1), [&] { seen.push_back(1); });
  auto b = q.push(ms(2), [&] { seen.push_back(2); });
  EXPECT_TRUE(a.pending());
  EXPECT_EQ(q.size(), 2U);
  EXPECT_TRUE(a.cancel());
  EXPECT_FALSE(a.pending());
  EXPECT_FALSE(a.cancel()) << "a second cancel is a no-op";
  EXPECT_EQ(q.size(), 1U);
  EXPECT_EQ(q.next_time(), ms(2));
  drain(q);
  EXPECT_EQ(seen, (std::vector<int>{2}));
  EXPECT_FALSE(b.pending()) << "a handle of an event that ran is no longer pending";
  EXPECT_FALSE(b.cancel());
}

TEST(EventQueue, StaleHandleDoesNotCancelReusedSlot) {
  EventQueue q;
  bool ran = false;
  auto old = q.push(ms(1), [] {});
  q.pop().fn();                        // slot freed
  q.push(ms(2), [&] { ran = true; });  // reuses the slot with a new generation
  EXPECT_FALSE(old.cancel());
  drain(q);
  EXPECT_TRUE(ran);
}

TEST(EventQueue, DefaultHandleIsInert) {
  EventHandle h;
  EXPECT_FALSE(h.valid());
  EXPECT_FALSE(h.pending());
  EXPECT_FALSE(h.cancel());
}

TEST(EventQueue, RandomisedAgainstSortedReference) {
  // Pseudo-random times with many duplicates and some cancellations; the output must equal a
  // stable sort of the surviving events by time.
  EventQueue q;
  std::vector<std::pair<std::int64_t, int>> expected;
  std::vector<EventHandle> handles;
  std::vector<int> seen;
  std::uint64_t x = 12345;
  for (int i = 0; i < 5000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const auto t = static_cast<std::int64_t>((x >> 33) % 200);
    handles.push_back(q.push(ns(t), [&seen, i] { seen.push_back(i); }));
    expected.emplace_back(t, i);
  }
  std::vector<bool> cancelled(expected.size(), false);
  for (std::size_t i = 0; i < handles.size(); i += 3)
    cancelled[i] = handles[i].cancel();
  std::vector<std::pair<std::int64_t, int>> survivors;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (!cancelled[i]) survivors.push_back(expected[i]);
  }
  std::stable_sort(survivors.begin(), survivors.end(),
                   [](auto& a, auto& b) { return a.first < b.first; });
  drain(q);
  ASSERT_EQ(seen.size(), survivors.size());
  for (std::size_t i = 0; i < seen.size(); ++i)
    EXPECT_EQ(seen[i], survivors[i].second);
}

// With a 7-bit sequence counter the queue renumbers its pending events whenever 128 sequence
// numbers are used up; the order (time, phase, FIFO) and every outstanding handle must survive.
TEST(EventQueue, SequenceRenumberingKeepsOrderAndHandles) {
  EventQueue q(7);
  std::vector<int> seen;
  std::vector<EventHandle> handles;
  for (int i = 0; i < 400; ++i) {
    // Ten events at each of the times 0..39 ms, scheduled interleaved; FIFO within a time.
    handles.push_back(q.push(ms(i % 40), [&seen, i] { seen.push_back(i); }));
    // Pop three of every four so that at most 100 are pending at a renumbering.
    if (i % 4 != 0) {
      auto p = q.pop();
      p.fn();
    }
  }
  EXPECT_TRUE(handles[399].pending());
  EXPECT_TRUE(handles[399].cancel());
  EXPECT_FALSE(handles[399].pending());
  drain(q);
  ASSERT_EQ(seen.size(), 399U);
  // Within each time, events ran in the order they were scheduled.
  std::vector<int> last_at(40, -1);
  for (int i : seen) {
    EXPECT_GT(i, last_at[static_cast<std::size_t>(i % 40)]) << "event " << i;
    last_at[static_cast<std::size_t>(i % 40)] = i;
  }
  EXPECT_THROW(EventQueue(1), std::invalid_argument);
}

TEST(EventQueue, CancelledEntriesDoNotAccumulate) {
  // Schedule and cancel far-future events many times: the heap is purged of stale entries, so
  // memory stays bounded; the live event still runs.
  EventQueue q;
  bool ran = false;
  q.push(seconds(1), [&] { ran = true; });
  for (int i = 0; i < 100000; ++i)
    q.push(hours(1), [] {}).cancel();
  EXPECT_EQ(q.size(), 1U);
  drain(q);
  EXPECT_TRUE(ran);
}

TEST(EventQueue, RejectsNegativeTimes) {
  EventQueue q;
  EXPECT_THROW(q.push(ns(-1), [] {}), std::invalid_argument);
}

}  // namespace
}  // namespace sim

namespace sim {
namespace {

// A callable whose destructor schedules events (enough to grow the slot table) must not be
// destroyed while cancel() still holds a reference into that table (ASan would report it).
struct SchedulesOnDestruction {
  EventQueue* queue = nullptr;
  int* fired = nullptr;
  SchedulesOnDestruction(EventQueue* q, int* f) : queue(q), fired(f) {}
  SchedulesOnDestruction(SchedulesOnDestruction&& o) noexcept : queue(o.queue), fired(o.fired) {
    o.queue = nullptr;
  }
  SchedulesOnDestruction(const SchedulesOnDestruction&) = delete;
  SchedulesOnDestruction& operator=(const SchedulesOnDestruction&) = delete;
  SchedulesOnDestruction& operator=(SchedulesOnDestruction&&) = delete;
  ~SchedulesOnDestruction() {
    if (queue == nullptr) return;
    for (int i = 0; i < 4096; ++i)
      queue->push(Time::from_ns(i + 1), [f = fired] { ++*f; });
  }
  void operator()() const {}
};

TEST(EventQueue, CancelDestroysTheCallableAfterItsBookkeeping) {
  EventQueue q;
  int fired = 0;
  auto h = q.push(Time::from_ns(10), SchedulesOnDestruction(&q, &fired));
  EXPECT_TRUE(q.cancel(h));
  EXPECT_FALSE(q.is_pending(h));
  EXPECT_EQ(q.size(), 4096U);  // the destructor's events, and not the cancelled one
}

}  // namespace
}  // namespace sim
