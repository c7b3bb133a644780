#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sim/policy/batcher.hpp"

namespace sim::platform {

/// A function's (or queue group's) waiting requests in arrival order, kept beside the
/// batcher's view of each (policy::QueuedRequest) so that a dispatch hands the batcher a span
/// of the oldest requests without copying them. Removing the oldest k requests, what FIFO
/// batchers take, is O(1); removing others shifts only the requests before the last one taken.
/// Storage is compacted once the removed prefix is the larger half, so the cost stays
/// amortised O(1) per request however long the backlog grows.
template <class Entry>
class RequestQueue {
 public:
  [[nodiscard]] std::size_t size() const { return entries_.size() - head_; }
  [[nodiscard]] bool empty() const { return size() == 0; }
  /// Requests the storage has room for (removed ones included until compacted).
  [[nodiscard]] std::size_t capacity() const { return entries_.capacity(); }

  void push_back(Entry entry, const policy::QueuedRequest& view) {
    entries_.push_back(std::move(entry));
    views_.push_back(view);
  }

  /// The k-th oldest request.
  [[nodiscard]] const Entry& operator[](std::size_t k) const { return entries_[head_ + k]; }

  /// The batcher's view of the n oldest requests (n <= size()).
  [[nodiscard]] std::span<const policy::QueuedRequest> window(std::size_t n) const {
    return std::span<const policy::QueuedRequest>(views_).subspan(head_, n);
  }

  [[nodiscard]] auto begin() const { return entries_.begin() + static_cast<std::ptrdiff_t>(head_); }
  [[nodiscard]] auto end() const { return entries_.end(); }

  /// Removes the requests at positions `order` (distinct, each < size()) and returns them in
  /// that order; the others keep their arrival order.
  std::vector<Entry> take(const std::vector<std::size_t>& order) {
    std::vector<Entry> out;
    take_into(order, out);
    return out;
  }

  /// take() into `out` (cleared first), so that a caller can reuse a vector's storage.
  void take_into(const std::vector<std::size_t>& order, std::vector<Entry>& out) {
    out.clear();
    out.reserve(order.size());
    std::size_t last = 0;
    for (const auto k : order) {
      if (k >= size()) throw std::out_of_range("RequestQueue::take: position out of range");
      out.push_back(std::move(entries_[head_ + k]));
      last = std::max(last, k);
    }
    if (order.empty()) return;
    if (last + 1 == order.size()) {
      // The positions were a permutation of 0..k-1: the oldest k leave.
      head_ += order.size();
    } else {
      // Shift the survivors among positions [0, last] towards the back, over the taken ones,
      // then drop the emptied front.
      marks_.assign(last + 1, false);
      for (const auto k : order)
        marks_[k] = true;
      std::size_t write = head_ + last + 1;
      for (std::size_t k = last + 1; k-- > 0;) {
        if (marks_[k]) continue;
        --write;
        if (write != head_ + k) {
          entries_[write] = std::move(entries_[head_ + k]);
          views_[write] = views_[head_ + k];
        }
      }
      head_ = write;
    }
    compact();
  }

 private:
  /// Also gives back storage beyond kKeep entries once the queue has drained, or shrunk below a
  /// quarter of it: a vector keeps its largest capacity, so without this a run's memory would
  /// be the sum of every queue's largest backlog ever, which grows with the trace's length
  /// (issue 24: memory flat in trace length), instead of the backlog of the moment.
  void compact() {
    if (head_ == entries_.size()) {
      if (entries_.capacity() > kKeep) {
        std::vector<Entry>().swap(entries_);
        std::vector<policy::QueuedRequest>().swap(views_);
      }
      entries_.clear();
      views_.clear();
      head_ = 0;
      return;
    }
    if (head_ < 1024 || head_ * 2 < entries_.size()) return;
    entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(head_));
    views_.erase(views_.begin(), views_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
    if (entries_.capacity() > kKeep && entries_.size() * 4 < entries_.capacity()) {
      entries_.shrink_to_fit();
      views_.shrink_to_fit();
    }
  }

  static constexpr std::size_t kKeep = 1024;  ///< entries a drained queue keeps room for

  std::vector<Entry> entries_;
  std::vector<policy::QueuedRequest> views_;
  std::size_t head_ = 0;     ///< entries before this have left
  std::vector<bool> marks_;  ///< scratch for take()
};

}  // namespace sim::platform
