// CompletionHeap against what it replaced, one event per entry (cancel and push on every change):
// random scripts of sets, erases and ordinary events, with many ties at one nanosecond, must run
// every callback in the same order at the same time, and count the same events executed, also
// when the sequence counter is small enough to be renumbered often, and whichever way the heap
// keeps its entries (a scanned array, a heap with one sift per change, a heap rebuilt per arm,
// and switching between them).
#include "sim/network/completion_heap.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/engine/simulation.hpp"

namespace sim::net {
namespace {

constexpr std::uint32_t kSlots = 12;

/// One entry per slot, set and erased; `due` runs when an entry's time is reached.
class Entries {
 public:
  virtual ~Entries() = default;
  virtual void set(std::uint32_t slot, Time t) = 0;
  virtual void erase(std::uint32_t slot) = 0;
  /// End of an operation (the network arms its heap here).
  virtual void settle() = 0;
};

/// The replaced scheme: an event per entry.
class EventPerEntry final : public Entries {
 public:
  EventPerEntry(Simulation& sim, std::function<void(std::uint32_t)> due)
      : sim_(sim), due_(std::move(due)), events_(kSlots) {}
  void set(std::uint32_t slot, Time t) override {
    events_[slot].cancel();
    events_[slot] = sim_.schedule_at(t, [this, slot] { due_(slot); });
  }
  void erase(std::uint32_t slot) override { events_[slot].cancel(); }
  void settle() override {}

 private:
  Simulation& sim_;
  std::function<void(std::uint32_t)> due_;
  std::vector<EventHandle> events_;
};

/// CompletionHeap::tune's arguments.
struct Tuning {
  std::size_t small_max, bulk_min, bulk_factor;
};
constexpr std::size_t kNever = 1000000;
// Default; always an array; always a heap, one sift per change; always a heap, rebuilt at every
// arm with a change; switching often (the scripts hold up to kSlots entries).
constexpr Tuning kTunings[] = {{64, 2, 2}, {kNever, 2, 2}, {0, kNever, 0}, {0, 0, 0}, {2, 3, 2}};

class Heap final : public Entries {
 public:
  Heap(Simulation& sim, std::function<void(std::uint32_t)> due, Tuning tuning)
      : heap_(sim, std::move(due)) {
    heap_.tune(tuning.small_max, tuning.bulk_min, tuning.bulk_factor);
  }
  void set(std::uint32_t slot, Time t) override { heap_.set(slot, t); }
  void erase(std::uint32_t slot) override {
    heap_.erase(slot);
    EXPECT_TRUE(heap_.consistent());
  }
  void settle() override {
    heap_.arm();
    EXPECT_TRUE(heap_.consistent());
  }

 private:
  CompletionHeap heap_;
};

using Log = std::vector<std::tuple<std::int64_t, char, std::uint32_t>>;

/// Runs one random script; the random draws depend only on the order of callbacks, so two
/// schemes that run callbacks alike make identical logs.
Log run_script(std::uint64_t seed, int sequence_bits, const Tuning* tuning) {
  Simulation sim(seed, sequence_bits);
  RandomStream rng = sim.rng("script");
  Log log;
  std::unique_ptr<Entries> entries;
  std::uint32_t marker_id = 0;
  int budget = 3000;  // operations in all, so the run ends
  // Delays from a small set (0 included): many entries and markers share a nanosecond.
  const auto delay = [&] { return ns(static_cast<std::int64_t>(rng.uniform_int(0, 3)) * 5); };
  std::function<void()> operate;
  std::function<void(std::uint32_t)> schedule_marker = [&](std::uint32_t id) {
    sim.schedule_in(delay(), [&, id] {
      log.emplace_back(sim.now().ns(), 'm', id);
      operate();
    });
  };
  operate = [&] {
    const auto n = rng.uniform_int(0, 4);
    for (std::uint64_t k = 0; k < n && budget > 0; ++k, --budget) {
      const auto slot = static_cast<std::uint32_t>(rng.uniform_int(0, kSlots - 1));
      const auto what = rng.uniform_int(0, 9);
      if (what < 6) {
        entries->set(slot, sim.now() + delay());
      } else if (what < 8) {
        entries->erase(slot);
      } else {
        schedule_marker(marker_id++);
      }
    }
    entries->settle();
  };
  const auto due = [&](std::uint32_t slot) {
    log.emplace_back(sim.now().ns(), 'd', slot);
    operate();
  };
  if (tuning != nullptr) {
    entries = std::make_unique<Heap>(sim, due, *tuning);
  } else {
    entries = std::make_unique<EventPerEntry>(sim, due);
  }
  for (std::uint32_t i = 0; i < 4; ++i)
    schedule_marker(marker_id++);
  sim.run();
  // One event per due entry and per marker, whether the heap ran a due entry from the loop or
  // inline after the previous one (CompletionHeap::fire).
  log.emplace_back(-1, 'e', static_cast<std::uint32_t>(sim.events_executed()));
  return log;
}

TEST(CompletionHeap, RunsCallbacksInTheOrderOfAnEventPerEntry) {
  std::size_t ties = 0;
  std::size_t dues = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    for (const int bits : {38, 7}) {
      const Log expected = run_script(seed, bits, nullptr);
      for (const Tuning& tuning : kTunings) {
        const Log got = run_script(seed, bits, &tuning);
        ASSERT_EQ(got, expected) << "seed " << seed << ", " << bits
                                 << "-bit sequence counter, small_max " << tuning.small_max
                                 << ", bulk " << tuning.bulk_min << "," << tuning.bulk_factor;
      }
      for (std::size_t i = 1; i < expected.size(); ++i) {
        if (std::get<0>(expected[i]) == std::get<0>(expected[i - 1])) ++ties;
        if (std::get<1>(expected[i]) == 'd') ++dues;
      }
    }
  }
  // The scripts must exercise what matters: many entries due, many at the same nanosecond.
  EXPECT_GT(dues, 1000u);
  EXPECT_GT(ties, 1000u);
}

// Against the definition: each due slot is the live entry with the least (time, order of the
// set() calls), checked at every pop, with rounds of up to 80 changes among 200 slots (so the
// default tuning crosses between array and heap both ways) and a counter small enough to
// renumber.
TEST(CompletionHeap, PopsTheLeastTimeThenTheEarliestSet) {
  std::size_t pops = 0;
  std::size_t crossings = 0;  // default tuning: above 2 * 64 entries, then 64 or fewer
  for (std::uint64_t seed = 1; seed <= 15; ++seed) {
    for (const Tuning& tuning : kTunings) {
      Simulation sim(seed, 9);
      RandomStream rng = sim.rng("ops");
      std::map<std::uint32_t, std::pair<std::int64_t, std::uint64_t>> live;  // slot: time, call
      std::uint64_t calls = 0;
      int rounds = 300;
      bool large = false;
      std::unique_ptr<CompletionHeap> heap;
      const auto observe = [&] {
        if (&tuning != &kTunings[0]) return;
        if (heap->size() > 128) large = true;
        if (large && heap->size() <= 64) {
          large = false;
          ++crossings;
        }
      };
      const auto change = [&] {
        const auto n = rng.uniform_int(0, 80);
        for (std::uint64_t k = 0; k < n; ++k) {
          const auto slot = static_cast<std::uint32_t>(rng.uniform_int(0, 199));
          if (rng.uniform_int(0, 9) < 7) {
            const Time t = sim.now() + ns(static_cast<std::int64_t>(rng.uniform_int(0, 3)) * 5);
            heap->set(slot, t);
            live[slot] = {t.ns(), calls++};
          } else {
            heap->erase(slot);
            live.erase(slot);
          }
        }
        heap->arm();
        EXPECT_TRUE(heap->consistent());
        observe();
      };
      heap = std::make_unique<CompletionHeap>(sim, [&](std::uint32_t slot) {
        const auto least = std::min_element(live.begin(), live.end(),
                                            [](auto& a, auto& b) { return a.second < b.second; });
        ASSERT_NE(least, live.end());
        ASSERT_EQ(slot, least->first);
        ASSERT_EQ(sim.now().ns(), least->second.first);
        live.erase(least);
        ++pops;
        observe();
        if (--rounds > 0) change();
      });
      heap->tune(tuning.small_max, tuning.bulk_min, tuning.bulk_factor);
      change();
      sim.run();
      EXPECT_TRUE(live.empty());
      EXPECT_EQ(heap->size(), 0u);
    }
  }
  EXPECT_GT(pops, 10000u);
  EXPECT_GE(crossings, 15u);
}

// Hand-checked: most entries re-keyed between two arms, ties broken by the order of the sets.
TEST(CompletionHeap, BulkChangesPopInTimeThenSetOrder) {
  for (const Tuning& tuning : kTunings) {
    Simulation sim;
    std::vector<std::pair<std::uint32_t, std::int64_t>> fired;
    CompletionHeap heap(sim, [&](std::uint32_t slot) { fired.emplace_back(slot, sim.now().ns()); });
    heap.tune(tuning.small_max, tuning.bulk_min, tuning.bulk_factor);
    const std::int64_t first[] = {50, 10, 40, 10, 30, 20};
    for (std::uint32_t slot = 0; slot < 6; ++slot)
      heap.set(slot, ns(first[slot]));
    heap.arm();
    EXPECT_TRUE(heap.consistent());
    heap.set(4, ns(10));  // after slots 1 and 3 at 10
    heap.set(1, ns(60));  // moved behind everything
    heap.set(2, ns(10));  // after slot 4
    heap.set(0, ns(20));  // after slot 5 at 20
    heap.erase(3);
    heap.set(3, ns(10));  // set again: after slot 2
    heap.arm();
    EXPECT_TRUE(heap.consistent());
    EXPECT_EQ(heap.size(), 6u);
    EXPECT_EQ(sim.pending_events(), 1u);
    sim.run();
    const std::vector<std::pair<std::uint32_t, std::int64_t>> expected = {
        {4, 10}, {2, 10}, {3, 10}, {5, 20}, {0, 20}, {1, 60}};
    EXPECT_EQ(fired, expected) << "small_max " << tuning.small_max;
  }
}

TEST(CompletionHeap, OneQueuedEventWhateverTheEntries) {
  Simulation sim;
  std::vector<std::uint32_t> fired;
  CompletionHeap heap(sim, [&](std::uint32_t slot) { fired.push_back(slot); });
  heap.set(3, ns(30));
  heap.set(1, ns(10));
  heap.set(2, ns(20));
  heap.arm();
  EXPECT_EQ(sim.pending_events(), 1u);
  heap.set(1, ns(40));  // moved behind the others
  heap.erase(2);
  heap.arm();
  EXPECT_EQ(sim.pending_events(), 1u);
  sim.run();
  EXPECT_EQ(fired, (std::vector<std::uint32_t>{3, 1}));
  EXPECT_EQ(sim.now(), ns(40));
  EXPECT_EQ(heap.size(), 0u);
}

TEST(CompletionHeap, DestroyedHeapLeavesNoEvent) {
  Simulation sim;
  bool fired = false;
  {
    CompletionHeap heap(sim, [&](std::uint32_t) { fired = true; });
    heap.set(0, ns(5));
    heap.arm();
  }
  sim.run();
  EXPECT_FALSE(fired);
}

}  // namespace
}  // namespace sim::net
