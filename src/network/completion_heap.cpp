#include "sim/network/completion_heap.hpp"

#include <bit>
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
  entries_[i] = e;
  pos_[e.slot] = static_cast<std::uint32_t>(i);
}

void CompletionHeap::sift_up(std::size_t i, Entry e) {
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!e.before(entries_[parent])) break;
    place(i, entries_[parent]);
    i = parent;
  }
  place(i, e);
}

void CompletionHeap::sift_down(std::size_t i, Entry e) {
  const std::size_t n = entries_.size();
  for (;;) {
    std::size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && entries_[child + 1].before(entries_[child])) ++child;
    if (!entries_[child].before(e)) break;
    place(i, entries_[child]);
    i = child;
  }
  place(i, e);
}

std::uint64_t CompletionHeap::set(std::uint32_t slot, Time t) {
  // The number is taken now, in call order, as an event pushed now would take it (taking it may
  // renumber, which rewrites the held numbers, pending_'s included).
  const std::uint64_t sequence = sim_.queue().take_sequence();
  pending_.push_back(Entry{t.ns(), sequence, slot});
  return sequence;
}

// In place, without restoring the heap order.
void CompletionHeap::write(const Entry& e) {
  if (e.slot >= pos_.size()) pos_.resize(e.slot + 1, kAbsent);
  if (pos_[e.slot] == kAbsent) {
    pos_[e.slot] = static_cast<std::uint32_t>(entries_.size());
    entries_.push_back(e);
  } else {
    entries_[pos_[e.slot]] = e;
  }
}

// In place, restoring the heap order.
void CompletionHeap::apply(const Entry& e) {
  if (e.slot >= pos_.size()) pos_.resize(e.slot + 1, kAbsent);
  const std::uint32_t at = pos_[e.slot];
  if (at == kAbsent) {
    entries_.push_back(e);
    sift_up(entries_.size() - 1, e);
  } else if (e.before(entries_[at])) {
    sift_up(at, e);
  } else {
    sift_down(at, e);
  }
}

void CompletionHeap::rebuild() {
  // Floyd: sift down every parent, the last first (sift_down keeps pos_ right for what it moves).
  for (std::size_t i = entries_.size() / 2; i-- > 0;)
    sift_down(i, entries_[i]);
}

void CompletionHeap::flush() {
  if (pending_.empty()) return;
  const std::size_t k = pending_.size();
  const std::size_t n = entries_.size();
  if (heap_mode_ &&
      (k < bulk_min_ || k * static_cast<std::size_t>(std::bit_width(n)) < bulk_factor_ * n)) {
    for (const Entry& e : pending_)
      apply(e);
  } else {
    // A later set of a slot overwrites an earlier one, as its sift would have.
    for (const Entry& e : pending_)
      write(e);
    earliest_ = kUnknown;
    if (!heap_mode_ && entries_.size() > 2 * small_max_) heap_mode_ = true;
    if (heap_mode_) rebuild();
  }
  pending_.clear();
}

void CompletionHeap::remove_at(std::size_t i) {
  pos_[entries_[i].slot] = kAbsent;
  const Entry last = entries_.back();
  entries_.pop_back();
  earliest_ = kUnknown;
  if (i == entries_.size()) return;
  if (!heap_mode_) {
    place(i, last);
  } else if (i > 0 && last.before(entries_[(i - 1) / 2])) {
    sift_up(i, last);
  } else {
    sift_down(i, last);
  }
}

bool CompletionHeap::contains(std::uint32_t slot) const {
  for (const Entry& e : pending_) {
    if (e.slot == slot) return true;
  }
  return slot < pos_.size() && pos_[slot] != kAbsent;
}

void CompletionHeap::erase_entry(std::uint32_t slot) {
  // Rare between a set and arm() (a cancel inside a batch): applying the sets first keeps "the
  // last call wins" simple.
  flush();
  if (slot < pos_.size() && pos_[slot] != kAbsent) remove_at(pos_[slot]);
}

std::size_t CompletionHeap::earliest() {
  if (heap_mode_) return 0;
  if (earliest_ == kUnknown) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < entries_.size(); ++i) {
      if (entries_[i].before(entries_[best])) best = i;
    }
    earliest_ = best;
  }
  return earliest_;
}

void CompletionHeap::prepare() {
  if (!pending_.empty()) flush();
  // Leaving heap mode costs nothing: the heap is a valid array.
  if (heap_mode_ && entries_.size() <= small_max_) {
    heap_mode_ = false;
    earliest_ = 0;
  }
}

void CompletionHeap::arm() {
  prepare();
  if (firing_) return;  // fire() arms once its completions are done
  if (entries_.empty()) {
    if (is_armed_) armed_.cancel();
    is_armed_ = false;
    return;
  }
  const Entry& top = entries_[earliest()];
  if (is_armed_ && armed_ns_ == top.ns && armed_sequence_ == top.sequence) return;
  if (is_armed_) armed_.cancel();
  armed_ = sim_.queue().push_reserved(Time::from_ns(top.ns), top.sequence, [this] { fire(); });
  is_armed_ = true;
  armed_ns_ = top.ns;
  armed_sequence_ = top.sequence;
}

void CompletionHeap::fire() {
  is_armed_ = false;
  struct Firing {
    bool& on;
    ~Firing() { on = false; }
  } firing{firing_};
  firing_ = true;
  for (;;) {
    // The event carried the earliest entry's key, and every change re-armed it: the earliest
    // entry is due now (and arm() applied every set). Likewise for one run inline below.
    const std::size_t top = pending_.empty() && !entries_.empty() ? earliest() : kUnknown;
    if (top == kUnknown || entries_[top].ns != sim_.now().ns()) {
      throw std::logic_error("CompletionHeap: the queued completion does not match the earliest");
    }
    const std::uint32_t slot = entries_[top].slot;
    remove_at(top);
    due_(slot);
    prepare();
    // The next earliest entry due now and next in the queue: run here rather than pushed and
    // popped (see the header).
    if (entries_.empty()) break;
    const Entry& next = entries_[earliest()];
    if (next.ns != sim_.now().ns() || !sim_.run_next_inline(next.sequence)) break;
  }
  firing_ = false;
  arm();
}

bool CompletionHeap::consistent() const {
  std::size_t indexed = 0;
  for (const std::uint32_t p : pos_)
    indexed += p != kAbsent;
  if (indexed != entries_.size()) return false;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (pos_[entries_[i].slot] != i) return false;
    if (heap_mode_ && i > 0 && entries_[i].before(entries_[(i - 1) / 2])) return false;
  }
  return true;
}

void CompletionHeap::held_sequences(std::vector<std::uint64_t>& out) const {
  for (const Entry& e : entries_)
    out.push_back(e.sequence);
  for (const Entry& e : pending_)
    out.push_back(e.sequence);
}

void CompletionHeap::renumber_sequences(const std::vector<std::uint64_t>& sorted) {
  // An order-preserving map keeps the heap a heap, and the earliest entry the earliest.
  for (Entry& e : entries_)
    e.sequence = EventQueue::renumbered_sequence(sorted, e.sequence);
  for (Entry& e : pending_)
    e.sequence = EventQueue::renumbered_sequence(sorted, e.sequence);
  // The armed event's own number is among the queue's (it is pending), so it maps alike.
  if (is_armed_) armed_sequence_ = EventQueue::renumbered_sequence(sorted, armed_sequence_);
}

}  // namespace sim::net
