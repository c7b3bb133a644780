#include "smooth_wrr.hpp"

#include <stdexcept>

namespace sim::policy::infless {

namespace {
// Doubles represent every integer up to 2^53 exactly.
constexpr std::int64_t kExact = std::int64_t{1} << 53;
}  // namespace

void SmoothWrrSet::insert(InstanceId id, std::int64_t weight) {
  if (weight < 1 || weight > kMaxWeight) {
    throw std::invalid_argument("smooth weighted round robin: weight out of [1, 2^40]");
  }
  Entry& e = entries_[id];
  if (e.member) leave(id, e);
  e.value -= weight * round_;  // credit -> key
  e.weight = weight;
  e.member = true;
  classes_[weight].insert({-e.value, id, &e});
  total_ += weight;
  ++members_;
}

void SmoothWrrSet::erase(InstanceId id) {
  const auto it = entries_.find(id);
  if (it != entries_.end() && it->second.member) leave(id, it->second);
}

void SmoothWrrSet::forget(InstanceId id) {
  const auto it = entries_.find(id);
  if (it == entries_.end()) return;
  if (it->second.member) leave(id, it->second);
  // The class slots point at other entries, which an unordered_map's erase does not move.
  entries_.erase(it);
}

void SmoothWrrSet::leave(InstanceId id, Entry& e) {
  const auto c = classes_.find(e.weight);
  c->second.erase({-e.value, id, nullptr});
  if (c->second.empty()) classes_.erase(c);
  total_ -= e.weight;
  --members_;
  e.value += e.weight * round_;  // key -> credit
  e.member = false;
}

std::optional<InstanceId> SmoothWrrSet::choose() {
  if (members_ == 0) return std::nullopt;
  if (round_ >= rebase_every_) rebase();
  ++round_;
  // The richest member of each weight class, then the richest of those (lowest id on ties:
  // the direct form scans members by ascending id and takes a strictly larger credit only).
  std::int64_t best = 0;
  InstanceId pick = 0;
  std::map<std::int64_t, Order>::iterator from;
  bool first = true;
  for (auto c = classes_.begin(); c != classes_.end(); ++c) {
    const Slot& top = *c->second.begin();
    const std::int64_t credit = -top.neg_key + c->first * round_;
    if (first || credit > best || (credit == best && top.id < pick)) {
      best = credit;
      pick = top.id;
      from = c;
      first = false;
    }
  }
  if (best >= kExact || best - total_ <= -kExact) {
    throw std::overflow_error("smooth weighted round robin: credit beyond 2^53");
  }
  Entry& e = *from->second.begin()->entry;
  from->second.erase(from->second.begin());
  e.value -= total_;  // the chosen pays the total
  from->second.insert({-e.value, pick, &e});
  return pick;
}

bool SmoothWrrSet::contains(InstanceId id) const {
  const auto it = entries_.find(id);
  return it != entries_.end() && it->second.member;
}

std::int64_t SmoothWrrSet::credit(InstanceId id) const {
  const auto it = entries_.find(id);
  if (it == entries_.end()) return 0;
  return it->second.member ? it->second.value + it->second.weight * round_ : it->second.value;
}

void SmoothWrrSet::rebase() {
  // Keys become credits at round 0; the order within each class is unchanged (all its keys
  // move by the same amount), so each class is rebuilt in order.
  for (auto& [weight, order] : classes_) {
    Order rebased;
    for (const Slot& slot : order) {
      Entry& e = *slot.entry;
      e.value += weight * round_;
      rebased.insert(rebased.end(), {-e.value, slot.id, &e});
    }
    order.swap(rebased);
  }
  round_ = 0;
}

}  // namespace sim::policy::infless
