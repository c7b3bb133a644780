#pragma once
/// Timers that are set far more often than they expire, kept beside the event queue with only
/// the earliest of them an event in it.
///
/// An idle serverless instance's keep-alive is set when its batch ends and cancelled when its
/// next batch starts, tens of milliseconds later; almost none expires. As one event each, every
/// batch pushed an event and cancelled it (the cancel alone reads the event's slot, a cache
/// miss: ~5% of the INFless §5.3 run). Here setting a timer takes a sequence number and adds a
/// 16-byte key to a heap, cancelling it releases its slot in a small table; a cancelled key
/// stays in the heap (lazy deletion) until it reaches the top or a purge drops it, and the
/// queue sees a change only when the earliest live timer changes.
///
/// The order of events is exactly that of one event per timer: a timer takes the sequence
/// number its push would have taken (EventQueue::take_sequence) and the one queued event
/// carries the earliest live timer's (time, sequence) (EventQueue::push_reserved, phase
/// kDefault). So one event runs per expiry, at the place the timer's own event would have run,
/// and cancelled timers run nothing (Simulation::events_executed() is unchanged).
///
/// A ticket is like an EventHandle: it stays harmless after its timer expired or was
/// cancelled (its slot's generation moved on). Overwriting a ticket does not cancel its timer.

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/engine/event_queue.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/engine/time.hpp"

namespace sim {

class TimerSet final : public SequenceHolder {
 public:
  /// Refers to one timer of a set.
  struct Ticket {
    std::uint32_t slot = ~std::uint32_t{0};
    std::uint32_t generation = 0;
  };

  /// `due(tag)` runs from an event when a timer set with `tag` expires; the timer is gone by
  /// then (its ticket no longer pending). `sim` must outlive the set. `purge_slack`: see
  /// kPurgeSlack (tests lower it to exercise purges).
  TimerSet(Simulation& sim, std::function<void(std::uint64_t)> due,
           std::size_t purge_slack = kPurgeSlack);
  TimerSet(const TimerSet&) = delete;
  TimerSet& operator=(const TimerSet&) = delete;
  ~TimerSet();

  /// A timer expiring at now + dt (dt >= 0), as Simulation::schedule_in would schedule it.
  /// Throws std::logic_error for a negative delay, std::length_error beyond 2^26 timers.
  Ticket schedule_in(Time dt, std::uint64_t tag);
  /// Cancels the ticket's timer if it is still pending; returns whether it was.
  bool cancel(const Ticket& ticket);
  [[nodiscard]] bool pending(const Ticket& ticket) const {
    return ticket.slot < slots_.size() && slots_[ticket.slot].generation == ticket.generation &&
           slots_[ticket.slot].sequence != kFree;
  }
  /// Pending timers.
  [[nodiscard]] std::size_t size() const { return live_; }
  /// Keys held, cancelled ones included (for tests: at most 2 x size() + purge_slack + 1).
  [[nodiscard]] std::size_t stored_keys() const { return heap_.size(); }

  void held_sequences(std::vector<std::uint64_t>& out) const override;
  void renumber_sequences(const std::vector<std::uint64_t>& sorted) override;

  /// Cancelled keys are purged once they outnumber live ones by 2x + this.
  static constexpr std::size_t kPurgeSlack = 1024;

 private:
  __extension__ using Key = unsigned __int128;
  static constexpr int kSlotBits = 26;
  static constexpr std::uint64_t kSlotMask = (std::uint64_t{1} << kSlotBits) - 1;
  static constexpr std::uint64_t kFree = ~std::uint64_t{0};
  static constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};

  struct Slot {
    std::uint64_t sequence = kFree;  ///< the live timer's; kFree: none
    std::uint64_t tag = 0;
    std::uint32_t generation = 0;  ///< bumped whenever the slot is released
    std::uint32_t next_free = kNoSlot;
  };

  /// (time, sequence, slot): one integer comparison orders two timers as the queue would.
  static Key key_of(std::int64_t ns, std::uint64_t sequence, std::uint32_t slot) {
    return (static_cast<Key>(static_cast<std::uint64_t>(ns)) << 64) | (sequence << kSlotBits) |
           slot;
  }
  static std::uint32_t slot_of(Key k) { return static_cast<std::uint32_t>(k & kSlotMask); }
  static std::uint64_t sequence_of(Key k) { return static_cast<std::uint64_t>(k) >> kSlotBits; }
  static std::int64_t ns_of(Key k) { return static_cast<std::int64_t>(k >> 64); }
  [[nodiscard]] bool stale(Key k) const { return slots_[slot_of(k)].sequence != sequence_of(k); }

  void release(std::uint32_t slot);
  void pop_top();
  /// Drops cancelled keys from the top, then makes the queued event match the earliest live
  /// timer (none when there is none).
  void arm();
  void purge();
  void fire();

  Simulation& sim_;
  std::function<void(std::uint64_t)> due_;
  std::size_t purge_slack_;
  std::vector<Slot> slots_;
  std::uint32_t free_slot_ = kNoSlot;
  std::vector<Key> heap_;  ///< a min-heap; keys whose slot's sequence differs are cancelled
  std::size_t live_ = 0;
  EventHandle armed_;
  bool is_armed_ = false;
  Key armed_key_ = 0;
};

}  // namespace sim
