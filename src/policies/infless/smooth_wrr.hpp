#pragma once
/// Smooth weighted round robin over a changing set of members, chosen incrementally: the same
/// choices as the direct form (every member gains its weight, the richest, the lowest id among
/// equals, is chosen and pays the members' total weight), without touching every member.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "sim/policy/platform_view.hpp"

namespace sim::policy::infless {

/// Credits are integers, as INFless's weights r_up = floor(1 / t_exec) b (eq. 1) are: the
/// direct form's sums of doubles are then exact, so integer credits make the same choices.
/// A member's credit is kept as key + weight * round, round counting the choices made: one
/// choice adds the weight of every member without touching it. Members of equal weight keep
/// their order by credit, so each weight class is an ordered set whose first element is its
/// richest; a choice compares the classes' first elements (few classes: one per distinct
/// weight among the members). A credit outlives membership: an instance that leaves and
/// comes back resumes with the credit it left with, until forget() says it never will (its
/// instance terminated), so the credits kept follow the live instances, not every instance
/// ever inserted.
class SmoothWrrSet {
 public:
  /// Weights above this are rejected (std::invalid_argument): with them, credits would leave
  /// the range where doubles, and so the direct form, are exact.
  static constexpr std::int64_t kMaxWeight = std::int64_t{1} << 40;

  /// `rebase_every`: choices between rebasings of the keys, which keep weight * round in
  /// range (a test makes it small to exercise them).
  explicit SmoothWrrSet(std::int64_t rebase_every = std::int64_t{1} << 22)
      : rebase_every_(rebase_every) {}

  /// Makes `id` a member with `weight` (>= 1, <= kMaxWeight); a member's weight is replaced.
  void insert(InstanceId id, std::int64_t weight);
  /// Ends `id`'s membership (no effect on a non-member); its credit is kept.
  void erase(InstanceId id);
  /// `id` will never be inserted again: ends its membership and drops its credit (no effect
  /// on an id never inserted). The other members' credits and order are untouched, so the
  /// choices are those the direct form makes keeping the credit.
  void forget(InstanceId id);
  /// One round: every member gains its weight, the richest (the lowest id among equals) is
  /// returned and pays the members' total weight. Nullopt without members (nothing changes).
  /// Throws std::overflow_error if a credit reaches 2^53 in magnitude.
  std::optional<InstanceId> choose();

  [[nodiscard]] bool contains(InstanceId id) const;
  [[nodiscard]] std::size_t size() const { return members_; }
  /// Ids whose credit is kept: the members and those erased but not forgotten.
  [[nodiscard]] std::size_t kept() const { return entries_.size(); }
  /// The credit of `id` (0 if never inserted).
  [[nodiscard]] std::int64_t credit(InstanceId id) const;

 private:
  struct Entry {
    std::int64_t value = 0;  ///< member: key (credit - weight * round_); else the credit
    std::int64_t weight = 0;
    bool member = false;
  };
  /// A member in its weight class: the largest key first, then the lowest id. `entry` spares
  /// a lookup when it is chosen (an unordered_map's elements do not move).
  struct Slot {
    std::int64_t neg_key = 0;
    InstanceId id = 0;
    Entry* entry = nullptr;
    bool operator<(const Slot& o) const {
      return neg_key != o.neg_key ? neg_key < o.neg_key : id < o.id;
    }
  };
  using Order = std::set<Slot>;
  void leave(InstanceId id, Entry& e);
  void rebase();

  std::unordered_map<InstanceId, Entry> entries_;  ///< hashed: never iterated for a choice
  std::map<std::int64_t, Order> classes_;          ///< members by weight
  std::int64_t round_ = 0;
  std::int64_t total_ = 0;  ///< the members' total weight
  std::size_t members_ = 0;
  std::int64_t rebase_every_;
};

}  // namespace sim::policy::infless
