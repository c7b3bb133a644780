// CompletionHeap against what it replaced, one event per entry (cancel and push on every change):
// random scripts of sets, erases and ordinary events, with many ties at one nanosecond, must run
// every callback in the same order at the same time, also when the sequence counter is small
// enough to be renumbered often.
#include "sim/network/completion_heap.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <tuple>
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

class Heap final : public Entries {
 public:
  Heap(Simulation& sim, std::function<void(std::uint32_t)> due) : heap_(sim, std::move(due)) {}
  void set(std::uint32_t slot, Time t) override { heap_.set(slot, t); }
  void erase(std::uint32_t slot) override { heap_.erase(slot); }
  void settle() override { heap_.arm(); }

 private:
  CompletionHeap heap_;
};

using Log = std::vector<std::tuple<std::int64_t, char, std::uint32_t>>;

/// Runs one random script; the random draws depend only on the order of callbacks, so two
/// schemes that run callbacks alike make identical logs.
Log run_script(std::uint64_t seed, int sequence_bits, bool use_heap) {
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
  if (use_heap) {
    entries = std::make_unique<Heap>(sim, due);
  } else {
    entries = std::make_unique<EventPerEntry>(sim, due);
  }
  for (std::uint32_t i = 0; i < 4; ++i)
    schedule_marker(marker_id++);
  sim.run();
  return log;
}

TEST(CompletionHeap, RunsCallbacksInTheOrderOfAnEventPerEntry) {
  std::size_t ties = 0;
  std::size_t dues = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    for (const int bits : {38, 7}) {
      const Log expected = run_script(seed, bits, false);
      const Log got = run_script(seed, bits, true);
      ASSERT_EQ(got, expected) << "seed " << seed << ", " << bits << "-bit sequence counter";
      for (std::size_t i = 1; i < got.size(); ++i) {
        if (std::get<0>(got[i]) == std::get<0>(got[i - 1])) ++ties;
        if (std::get<1>(got[i]) == 'd') ++dues;
      }
    }
  }
  // The scripts must exercise what matters: many entries due, many at the same nanosecond.
  EXPECT_GT(dues, 1000u);
  EXPECT_GT(ties, 1000u);
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
