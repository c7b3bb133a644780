#include "smooth_wrr.hpp"

#include <stdexcept>

namespace sim::policy::infless {

namespace {
// Doubles represent every integer up to 2^53 exactly.
constexpr std::int64_t kExact = std::int64_t{1} << 53;
}  // namespace

std::uint32_t SmoothWrrSet::entry_of(InstanceId id) const {
  const std::uint32_t k = index_->find(id);
  if (k == DenseIdIndex::kNone) return k;
  if (k >= entries_.size() || !entries_[k].kept || entries_[k].id != id) {
    throw std::logic_error("smooth weighted round robin: an id in two sets of one index");
  }
  return k;
}

void SmoothWrrSet::insert(InstanceId id, std::int64_t weight) {
  if (weight < 1 || weight > kMaxWeight) {
    throw std::invalid_argument("smooth weighted round robin: weight out of [1, 2^40]");
  }
  std::uint32_t k = entry_of(id);
  if (k == DenseIdIndex::kNone) {
    k = free_.empty() ? static_cast<std::uint32_t>(entries_.size()) : free_.back();
    index_->set(id, k);  // first: it rejects an id out of range before anything changes
    if (free_.empty()) {
      entries_.emplace_back();
    } else {
      free_.pop_back();
      entries_[k] = Entry{};
    }
    entries_[k].id = id;
    entries_[k].kept = true;
    ++kept_;
  }
  if (entries_[k].member) leave(entries_[k]);
  Entry& e = entries_[k];
  e.value -= weight * round_;  // credit -> key
  e.weight = weight;
  e.member = true;
  e.cls = class_of(weight);
  Class& c = classes_[e.cls];
  e.pos = static_cast<std::uint32_t>(c.heap.size());
  c.heap.push_back(k);
  sift_up(c, e.pos);
  total_ += weight;
  ++members_;
}

void SmoothWrrSet::erase(InstanceId id) {
  if (const std::uint32_t k = entry_of(id); k != DenseIdIndex::kNone && entries_[k].member) {
    leave(entries_[k]);
  }
}

void SmoothWrrSet::forget(InstanceId id) {
  const std::uint32_t at = entry_of(id);
  if (at == DenseIdIndex::kNone) return;
  if (entries_[at].member) leave(entries_[at]);
  entries_[at].kept = false;
  index_->clear(id);
  free_.push_back(at);
  --kept_;
}

std::uint32_t SmoothWrrSet::class_of(std::int64_t weight) {
  std::size_t empty = classes_.size();
  for (std::size_t c = 0; c < classes_.size(); ++c) {
    if (classes_[c].weight == weight) return static_cast<std::uint32_t>(c);
    if (classes_[c].heap.empty() && empty == classes_.size()) empty = c;
  }
  // A new weight takes an empty class if there is one: the classes stay as many as the
  // distinct weights among the members at any one time.
  if (empty == classes_.size()) classes_.emplace_back();
  classes_[empty].weight = weight;
  return static_cast<std::uint32_t>(empty);
}

void SmoothWrrSet::leave(Entry& e) {
  Class& c = classes_[e.cls];
  const std::size_t at = e.pos;
  const std::uint32_t last = c.heap.back();
  c.heap.pop_back();
  if (at < c.heap.size()) {
    c.heap[at] = last;
    entries_[last].pos = static_cast<std::uint32_t>(at);
    sift_up(c, at);
    sift_down(c, entries_[last].pos);
  }
  total_ -= e.weight;
  --members_;
  e.value += e.weight * round_;  // key -> credit
  e.member = false;
}

void SmoothWrrSet::sift_up(Class& c, std::size_t at) {
  const std::uint32_t k = c.heap[at];
  while (at > 0) {
    const std::size_t parent = (at - 1) / 2;
    if (!before(k, c.heap[parent])) break;
    c.heap[at] = c.heap[parent];
    entries_[c.heap[at]].pos = static_cast<std::uint32_t>(at);
    at = parent;
  }
  c.heap[at] = k;
  entries_[k].pos = static_cast<std::uint32_t>(at);
}

void SmoothWrrSet::sift_down(Class& c, std::size_t at) {
  const std::uint32_t k = c.heap[at];
  const std::size_t n = c.heap.size();
  for (;;) {
    std::size_t child = 2 * at + 1;
    if (child >= n) break;
    if (child + 1 < n && before(c.heap[child + 1], c.heap[child])) ++child;
    if (!before(c.heap[child], k)) break;
    c.heap[at] = c.heap[child];
    entries_[c.heap[at]].pos = static_cast<std::uint32_t>(at);
    at = child;
  }
  c.heap[at] = k;
  entries_[k].pos = static_cast<std::uint32_t>(at);
}

std::optional<InstanceId> SmoothWrrSet::choose() {
  if (members_ == 0) return std::nullopt;
  if (round_ >= rebase_every_) rebase();
  ++round_;
  // The richest member of each weight class, then the richest of those (lowest id on ties:
  // the direct form scans members by ascending id and takes a strictly larger credit only).
  // The richest is unique (ids differ), so the classes' order does not matter.
  std::int64_t best = 0;
  std::uint32_t pick = 0;
  Class* from = nullptr;
  for (Class& c : classes_) {
    if (c.heap.empty()) continue;
    const std::uint32_t top = c.heap.front();
    const Entry& e = entries_[top];
    const std::int64_t credit = e.value + c.weight * round_;
    if (from == nullptr || credit > best || (credit == best && e.id < entries_[pick].id)) {
      best = credit;
      pick = top;
      from = &c;
    }
  }
  if (best >= kExact || best - total_ <= -kExact) {
    throw std::overflow_error("smooth weighted round robin: credit beyond 2^53");
  }
  entries_[pick].value -= total_;  // the chosen pays the total, and sinks in its class
  sift_down(*from, 0);
  return entries_[pick].id;
}

bool SmoothWrrSet::contains(InstanceId id) const {
  const std::uint32_t k = entry_of(id);
  return k != DenseIdIndex::kNone && entries_[k].member;
}

std::int64_t SmoothWrrSet::credit(InstanceId id) const {
  const std::uint32_t k = entry_of(id);
  if (k == DenseIdIndex::kNone) return 0;
  const Entry& e = entries_[k];
  return e.member ? e.value + e.weight * round_ : e.value;
}

void SmoothWrrSet::rebase() {
  // Keys become credits at round 0; every key of a class moves by the same amount, so its
  // heap stays a heap.
  for (const Class& c : classes_)
    for (const std::uint32_t k : c.heap)
      entries_[k].value += c.weight * round_;
  round_ = 0;
}

}  // namespace sim::policy::infless
