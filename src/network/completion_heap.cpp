#include "sim/network/completion_heap.hpp"

#include <stdexcept>
#include <utility>

namespace sim::net {

CompletionHeap::CompletionHeap(Simulation& sim, std::function<void(std::uint32_t)> due)
    : sim_(sim), due_(std::move(due)) {
  sim_.queue().add_holder(this);
}

CompletionHeap::~CompletionHeap() {
  // The queued event captures `this`: a Simulation outliving us must never call in.
  armed_.cancel();
  sim_.queue().remove_holder(this);
}

void CompletionHeap::place(std::size_t i, const Entry& e) {
  heap_[i] = e;
  pos_[e.slot] = static_cast<std::uint32_t>(i);
}

void CompletionHeap::sift_up(std::size_t i, Entry e) {
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!e.before(heap_[parent])) break;
    place(i, heap_[parent]);
    i = parent;
  }
  place(i, e);
}

void CompletionHeap::sift_down(std::size_t i, Entry e) {
  const std::size_t n = heap_.size();
  for (;;) {
    std::size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && heap_[child + 1].before(heap_[child])) ++child;
    if (!heap_[child].before(e)) break;
    place(i, heap_[child]);
    i = child;
  }
  place(i, e);
}

void CompletionHeap::set(std::uint32_t slot, Time t) {
  // The number is taken first: taking it may renumber, which rewrites the entries.
  const std::uint64_t sequence = sim_.queue().take_sequence();
  const Entry e{t.ns(), sequence, slot};
  if (slot >= pos_.size()) pos_.resize(slot + 1, kAbsent);
  const std::uint32_t at = pos_[slot];
  if (at == kAbsent) {
    heap_.push_back(e);
    sift_up(heap_.size() - 1, e);
  } else if (e.before(heap_[at])) {
    sift_up(at, e);
  } else {
    sift_down(at, e);
  }
}

void CompletionHeap::remove_at(std::size_t i) {
  pos_[heap_[i].slot] = kAbsent;
  const Entry last = heap_.back();
  heap_.pop_back();
  if (i == heap_.size()) return;
  if (i > 0 && last.before(heap_[(i - 1) / 2])) {
    sift_up(i, last);
  } else {
    sift_down(i, last);
  }
}

void CompletionHeap::erase(std::uint32_t slot) {
  if (contains(slot)) remove_at(pos_[slot]);
}

void CompletionHeap::arm() {
  if (heap_.empty()) {
    if (is_armed_) armed_.cancel();
    is_armed_ = false;
    return;
  }
  const Entry& top = heap_.front();
  if (is_armed_ && armed_ns_ == top.ns && armed_sequence_ == top.sequence) return;
  if (is_armed_) armed_.cancel();
  armed_ = sim_.queue().push_reserved(Time::from_ns(top.ns), top.sequence, [this] { fire(); });
  is_armed_ = true;
  armed_ns_ = top.ns;
  armed_sequence_ = top.sequence;
}

void CompletionHeap::fire() {
  is_armed_ = false;
  // The event carried the earliest entry's key, and every change re-armed it: the earliest
  // entry is due now.
  if (heap_.empty() || heap_.front().ns != sim_.now().ns()) {
    throw std::logic_error("CompletionHeap: the queued completion does not match the earliest");
  }
  const std::uint32_t slot = heap_.front().slot;
  remove_at(0);
  due_(slot);
  arm();
}

void CompletionHeap::held_sequences(std::vector<std::uint64_t>& out) const {
  for (const Entry& e : heap_)
    out.push_back(e.sequence);
}

void CompletionHeap::renumber_sequences(const std::vector<std::uint64_t>& sorted) {
  // An order-preserving map keeps the heap a heap.
  for (Entry& e : heap_)
    e.sequence = EventQueue::renumbered_sequence(sorted, e.sequence);
  // The armed event's own number is among the queue's (it is pending), so it maps alike.
  if (is_armed_) armed_sequence_ = EventQueue::renumbered_sequence(sorted, armed_sequence_);
}

}  // namespace sim::net
