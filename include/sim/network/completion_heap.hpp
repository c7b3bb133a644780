#pragma once
/// The flow network's completion times, kept outside the event queue (docs/network.md
/// "Completion events").
///
/// Exact max-min fairness changes the rate of many flows at every start and finish (every cloud
/// download shares the store's egress), and each new rate gives a flow a new finish time. With
/// one event per flow, each of those changes cancelled and re-pushed an event. Here each flow's
/// finish is one entry of an indexed binary heap, and only the earliest is an event in the
/// queue: a rate change is a heap update, and the queue sees a reschedule only when the earliest
/// finish changes.
///
/// The order of events is exactly that of one event per flow: when a flow gets its finish time
/// it takes the sequence number its push would have taken (EventQueue::take_sequence), the heap
/// orders by (time, sequence), and the one queued event carries the earliest entry's time and
/// number (EventQueue::push_reserved). So ties with other events at the same nanosecond, and
/// among flows, resolve as before, and one event runs per completion (events_executed() and
/// every output are unchanged).

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/engine/event_queue.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/engine/time.hpp"

namespace sim::net {

class CompletionHeap final : public SequenceHolder {
 public:
  /// `due(slot)` runs (from an event) when slot's finish time is reached; the entry is removed
  /// first. `sim` must outlive the heap.
  CompletionHeap(Simulation& sim, std::function<void(std::uint32_t)> due);
  CompletionHeap(const CompletionHeap&) = delete;
  CompletionHeap& operator=(const CompletionHeap&) = delete;
  ~CompletionHeap();

  /// Sets (or moves) slot's finish to t >= now, taking a sequence number now. The queued event
  /// follows at the next arm().
  void set(std::uint32_t slot, Time t);
  /// Removes slot's finish, if any.
  void erase(std::uint32_t slot);
  [[nodiscard]] bool contains(std::uint32_t slot) const {
    return slot < pos_.size() && pos_[slot] != kAbsent;
  }
  [[nodiscard]] std::size_t size() const { return heap_.size(); }
  /// Makes the queued event match the earliest entry (none when empty). Call after every
  /// operation that may have changed the entries, before control returns to the event loop.
  void arm();

  void held_sequences(std::vector<std::uint64_t>& out) const override;
  void renumber_sequences(const std::vector<std::uint64_t>& sorted) override;

 private:
  static constexpr std::uint32_t kAbsent = ~std::uint32_t{0};
  struct Entry {
    std::int64_t ns;
    std::uint64_t sequence;
    std::uint32_t slot;
    [[nodiscard]] bool before(const Entry& o) const {
      return ns < o.ns || (ns == o.ns && sequence < o.sequence);
    }
  };
  void place(std::size_t i, const Entry& e);
  void sift_up(std::size_t i, Entry e);
  void sift_down(std::size_t i, Entry e);
  void remove_at(std::size_t i);
  void fire();

  Simulation& sim_;
  std::function<void(std::uint32_t)> due_;
  std::vector<Entry> heap_;
  std::vector<std::uint32_t> pos_;  ///< by slot: index in heap_, or kAbsent
  EventHandle armed_;
  bool is_armed_ = false;
  std::int64_t armed_ns_ = 0;
  std::uint64_t armed_sequence_ = 0;
};

}  // namespace sim::net
