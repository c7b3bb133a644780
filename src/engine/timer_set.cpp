#include "sim/engine/timer_set.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <utility>

namespace sim {

namespace {
// std's heap algorithms keep the greatest on top; with this order the earliest.
using Later = std::greater<>;
}  // namespace

TimerSet::TimerSet(Simulation& sim, std::function<void(std::uint64_t)> due, std::size_t purge_slack)
    : sim_(sim), due_(std::move(due)), purge_slack_(purge_slack) {
  sim_.queue().add_holder(this);
}

TimerSet::~TimerSet() {
  // The queued event captures `this`: a Simulation outliving us must never call in.
  armed_.cancel();
  sim_.queue().remove_holder(this);
}

TimerSet::Ticket TimerSet::schedule_in(Time dt, std::uint64_t tag) {
  if (dt < Time::zero()) {
    throw std::logic_error("TimerSet::schedule_in: negative delay " + to_string(dt));
  }
  const Time at = sim_.now() + dt;
  // The number is taken first: taking it may renumber, which rewrites the keys.
  const std::uint64_t sequence = sim_.queue().take_sequence();
  std::uint32_t slot = free_slot_;
  if (slot != kNoSlot) {
    free_slot_ = slots_[slot].next_free;
  } else {
    if (slots_.size() > kSlotMask) throw std::length_error("TimerSet: more than 2^26 timers");
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[slot];
  s.sequence = sequence;
  s.tag = tag;
  ++live_;
  const Key k = key_of(at.ns(), sequence, slot);
  heap_.push_back(k);
  std::push_heap(heap_.begin(), heap_.end(), Later{});
  // Nothing armed: the set had no live timer, or fire() is running due() (arm() finds the
  // earliest either way).
  if (!is_armed_ || k < armed_key_) arm();
  return {slot, s.generation};
}

void TimerSet::release(std::uint32_t slot) {
  Slot& s = slots_[slot];
  s.sequence = kFree;
  ++s.generation;
  s.next_free = free_slot_;
  free_slot_ = slot;
  --live_;
}

bool TimerSet::cancel(const Ticket& ticket) {
  if (!pending(ticket)) return false;
  const std::uint64_t sequence = slots_[ticket.slot].sequence;
  release(ticket.slot);
  if (is_armed_ && sequence_of(armed_key_) == sequence) {
    arm();
  } else if (heap_.size() > 2 * live_ + purge_slack_) {
    purge();
  }
  return true;
}

void TimerSet::pop_top() {
  std::pop_heap(heap_.begin(), heap_.end(), Later{});
  heap_.pop_back();
}

void TimerSet::arm() {
  while (!heap_.empty() && stale(heap_.front()))
    pop_top();
  if (heap_.empty()) {
    if (is_armed_) armed_.cancel();
    is_armed_ = false;
    return;
  }
  const Key top = heap_.front();
  if (is_armed_ && armed_key_ == top) return;
  if (is_armed_) armed_.cancel();
  armed_ =
      sim_.queue().push_reserved(Time::from_ns(ns_of(top)), sequence_of(top), [this] { fire(); });
  is_armed_ = true;
  armed_key_ = top;
}

void TimerSet::purge() {
  // Keeps memory proportional to the live timers, whatever the cancel rate; the earliest live
  // key (the armed one) stays the earliest.
  std::erase_if(heap_, [this](Key k) { return stale(k); });
  std::make_heap(heap_.begin(), heap_.end(), Later{});
}

void TimerSet::fire() {
  is_armed_ = false;
  while (!heap_.empty() && stale(heap_.front()))
    pop_top();
  // The event carried the earliest live key, and every change re-armed it.
  if (heap_.empty() || ns_of(heap_.front()) != sim_.now().ns()) {
    throw std::logic_error("TimerSet: the queued timer does not match the earliest");
  }
  const std::uint32_t slot = slot_of(heap_.front());
  const std::uint64_t tag = slots_[slot].tag;
  pop_top();
  release(slot);
  due_(tag);
  arm();
}

void TimerSet::held_sequences(std::vector<std::uint64_t>& out) const {
  for (const Slot& s : slots_)
    if (s.sequence != kFree) out.push_back(s.sequence);
}

void TimerSet::renumber_sequences(const std::vector<std::uint64_t>& sorted) {
  // Cancelled keys first, while their numbers can still be told from live ones (a cancelled
  // number is not in `sorted` and could map onto a live one).
  std::erase_if(heap_, [this](Key k) { return stale(k); });
  for (Slot& s : slots_)
    if (s.sequence != kFree) s.sequence = EventQueue::renumbered_sequence(sorted, s.sequence);
  // An order-preserving map: the keys keep their order.
  for (Key& k : heap_)
    k = key_of(ns_of(k), slots_[slot_of(k)].sequence, slot_of(k));
  std::make_heap(heap_.begin(), heap_.end(), Later{});
  // The armed event's number is among the queue's (it is pending), so it maps alike.
  if (is_armed_) {
    armed_key_ =
        key_of(ns_of(armed_key_), EventQueue::renumbered_sequence(sorted, sequence_of(armed_key_)),
               slot_of(armed_key_));
  }
}

}  // namespace sim
