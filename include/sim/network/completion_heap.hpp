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
///
/// set() records the change (its sequence number taken at once, in call order) and arm() applies
/// the changes since the last arm() together, the cheaper of two ways. A commit often gives new
/// times to most entries (every flow on the store's egress), and re-keying them one by one sifts
/// each past entries whose keys are still old, O(log n) apiece; writing them in place and
/// rebuilding the heap (Floyd) is O(n). And with few entries (the cloud mix has ~25) no heap is
/// kept at all: the entries are a plain array and arm() scans it for the earliest, which costs
/// less than the sifts' unpredictable branches. The order (time, sequence) is total, so every
/// way finds the same earliest entry: how the entries are kept cannot change the order of
/// events.
///
/// A completion often makes the next one due at the same nanosecond (the members of a burst on
/// a uniform channel finish together). When that one's event would be the next to run (nothing
/// pending before it: EventQueue::next_is_after, and no observer or stop between events:
/// Simulation::run_next_inline), fire() runs it itself instead of pushing it and returning to
/// the loop to pop it; arm() calls made meanwhile (the network's commits) only apply the sets,
/// and fire() arms once at the end. The order of events, their times and events_executed() are
/// the same.

#include <cstddef>
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

  /// Sets (or moves) slot's finish to t >= now, taking a sequence number now. The entry and the
  /// queued event follow at the next arm().
  /// Returns the sequence number taken.
  std::uint64_t set(std::uint32_t slot, Time t);
  /// Like set, with a sequence number taken earlier (EventQueue::take_sequences) and still held
  /// by someone registered with the queue (the flow network's uniform channels).
  void set_reserved(std::uint32_t slot, Time t, std::uint64_t sequence) {
    pending_.push_back(Entry{t.ns(), sequence, slot});
  }
  /// Removes slot's finish, if any.
  void erase(std::uint32_t slot) {
    // Inline when there is nothing to do (no set since the last arm, no entry for the slot):
    // the network erases every released flow's entry, most of them already fired.
    if (pending_.empty() && (slot >= pos_.size() || pos_[slot] == kAbsent)) return;
    erase_entry(slot);
  }
  [[nodiscard]] bool contains(std::uint32_t slot) const;
  /// The number of entries as of the last arm() or erase().
  [[nodiscard]] std::size_t size() const { return entries_.size(); }
  /// Applies the sets since the last arm() and makes the queued event match the earliest entry
  /// (none when empty). Call after every operation that may have changed the entries, before
  /// control returns to the event loop.
  void arm();

  /// Tuning, for tests and measurements. The entries are a heap from more than 2 * small_max of
  /// them until they are small_max or fewer again (hysteresis: switching to a heap costs a
  /// rebuild). In heap mode, k changes are applied in bulk when k >= bulk_min and
  /// k * bit_width(n) >= bulk_factor * n (a sift costs about log2(n) steps, a rebuild about 2n).
  void tune(std::size_t small_max, std::size_t bulk_min, std::size_t bulk_factor) {
    small_max_ = small_max;
    bulk_min_ = bulk_min;
    bulk_factor_ = bulk_factor;
  }
  /// Whether pos_ indexes exactly the entries and, in heap mode, they form a heap. For tests.
  [[nodiscard]] bool consistent() const;

  void held_sequences(std::vector<std::uint64_t>& out) const override;
  void renumber_sequences(const std::vector<std::uint64_t>& sorted) override;

 private:
  static constexpr std::uint32_t kAbsent = ~std::uint32_t{0};
  static constexpr std::size_t kUnknown = ~std::size_t{0};
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
  void write(const Entry& e);
  void apply(const Entry& e);
  void rebuild();
  void flush();
  void erase_entry(std::uint32_t slot);
  void prepare();  ///< flush(), and leave heap mode when small
  std::size_t earliest();
  void fire();

  Simulation& sim_;
  std::function<void(std::uint32_t)> due_;
  std::vector<Entry> entries_;      ///< a binary heap if heap_mode_, else unordered
  std::vector<std::uint32_t> pos_;  ///< by slot: index in entries_, or kAbsent
  std::vector<Entry> pending_;      ///< sets since the last arm() or erase(), in call order
  bool heap_mode_ = false;
  std::size_t earliest_ = kUnknown;  ///< array mode: index of the earliest entry, if known
  // Measured on the three flow mixes: bench/performance-notes.md, session 18.
  std::size_t small_max_ = 64;
  std::size_t bulk_min_ = 2;
  std::size_t bulk_factor_ = 2;
  EventHandle armed_;
  bool is_armed_ = false;
  bool firing_ = false;  ///< inside fire(): arm() leaves the event to fire()'s end
  std::int64_t armed_ns_ = 0;
  std::uint64_t armed_sequence_ = 0;
};

}  // namespace sim::net
