#pragma once
/// One simulation: clock, pending events, random streams. There is no global simulator (SimPy 3,
/// unlike ns-3): two Simulation objects side by side are fully independent.

#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>

#include "sim/engine/event_queue.hpp"
#include "sim/engine/random.hpp"
#include "sim/engine/time.hpp"

namespace sim {

/// Why a run loop returned.
enum class RunOutcome { kReachedTime, kQueueEmpty, kStopped };

class Simulation {
 public:
  explicit Simulation(std::uint64_t seed = 1) : streams_(seed) {}
  /// For tests of sequence renumbering: an event queue with a `sequence_bits`-bit counter.
  Simulation(std::uint64_t seed, int sequence_bits) : queue_(sequence_bits), streams_(seed) {}
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  [[nodiscard]] Time now() const { return now_; }

  /// Schedules `fn` (any void() callable; see EventCallback) at absolute time t. Throws
  /// std::logic_error if t is in the past.
  template <class F>
  EventHandle schedule_at(Time t, F&& fn, EventPhase phase = EventPhase::kDefault) {
    if (t < now_) throw_in_past(t);
    return queue_.push(t, std::forward<F>(fn), phase);
  }
  /// Schedules `fn` after delay dt >= 0.
  template <class F>
  EventHandle schedule_in(Time dt, F&& fn, EventPhase phase = EventPhase::kDefault) {
    if (dt < Time::zero()) throw_negative_delay(dt);
    return queue_.push(now_ + dt, std::forward<F>(fn), phase);
  }
  bool cancel(EventHandle& h) { return h.cancel(); }

  /// Runs events with time <= t, then sets the clock to t (unless stopped earlier).
  RunOutcome run_until(Time t);
  /// Runs until no event is pending or stop() is called.
  RunOutcome run();
  /// Makes the running loop return after the current event. Safe to call from an event.
  void stop() { stop_requested_ = true; }

  /// Called every `every_events` events from inside the run loop (progress lines, Ctrl-C
  /// checks). It may call stop().
  void set_observer(std::function<void()> fn, std::uint64_t every_events = 65536);

  [[nodiscard]] std::uint64_t events_executed() const { return executed_; }
  [[nodiscard]] std::size_t pending_events() const { return queue_.size(); }
  [[nodiscard]] const RandomStreams& random() const { return streams_; }
  [[nodiscard]] RandomStream rng(std::string_view component, std::string_view purpose = "") const {
    return streams_.stream(component, purpose);
  }
  EventQueue& queue() { return queue_; }
  /// For a source that would push the event (now, kDefault, `sequence`) and return
  /// (CompletionHeap::fire): true when that event would run next and nothing runs between two
  /// events (no observer, no stop requested). The running event is then counted as executed and
  /// the caller runs the next one itself, as the loop would have: same time, same order, same
  /// count, without the push and the pop.
  bool run_next_inline(std::uint64_t sequence) {
    if (stop_requested_ || observer_ || !queue_.next_is_after(now_, EventPhase::kDefault, sequence))
      return false;
    ++executed_;
    return true;
  }

 private:
  RunOutcome loop(Time limit);
  [[noreturn]] void throw_in_past(Time t) const;
  [[noreturn]] static void throw_negative_delay(Time dt);

  Time now_ = Time::zero();
  EventQueue queue_;
  RandomStreams streams_;
  std::uint64_t executed_ = 0;
  bool stop_requested_ = false;
  std::function<void()> observer_;
  std::uint64_t observer_every_ = 0;
};

}  // namespace sim
