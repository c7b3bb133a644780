#pragma once
/// Smooth weighted round robin over a changing set of members, chosen incrementally: the same
/// choices as the direct form (every member gains its weight, the richest, the lowest id among
/// equals, is chosen and pays the members' total weight), without touching every member.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "dense_id_index.hpp"

#include "sim/policy/platform_view.hpp"

namespace sim::policy::infless {

/// Credits are integers, as INFless's weights r_up = floor(1 / t_exec) b (eq. 1) are: the
/// direct form's sums of doubles are then exact, so integer credits make the same choices.
/// A member's credit is kept as key + weight * round, round counting the choices made: one
/// choice adds the weight of every member without touching it. Members of equal weight keep
/// their order by credit, so each weight class is a heap whose top is its richest; a choice
/// compares the classes' tops (few classes: one per distinct weight among the members). A credit
/// outlives membership: an instance that leaves and comes back resumes with the credit it left
/// with, until forget() says it never will (its instance terminated), so the credits kept follow
/// the live instances, not every instance ever inserted.
class SmoothWrrSet {
 public:
  /// Weights above this are rejected (std::invalid_argument): with them, credits would leave
  /// the range where doubles, and so the direct form, are exact.
  static constexpr std::int64_t kMaxWeight = std::int64_t{1} << 40;

  /// Choices between rebasings of the keys by default.
  static constexpr std::int64_t kRebaseEvery = std::int64_t{1} << 22;

  /// `rebase_every`: choices between rebasings of the keys, which keep weight * round in
  /// range (a test makes it small to exercise them). `index`: the id index, shared with the
  /// other sets of one dispatcher (null: a set of its own); an id may be inserted in one set
  /// of an index only (std::logic_error otherwise).
  explicit SmoothWrrSet(std::int64_t rebase_every = kRebaseEvery,
                        std::shared_ptr<DenseIdIndex> index = nullptr)
      : index_(index ? std::move(index) : std::make_shared<DenseIdIndex>()),
        rebase_every_(rebase_every) {}

  /// Makes `id` a member with `weight` (>= 1, <= kMaxWeight); a member's weight is replaced.
  /// Ids index a flat array (DenseIdIndex): they must be dense, as the platform's are.
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
  [[nodiscard]] std::size_t kept() const { return kept_; }
  /// The credit of `id` (0 if never inserted).
  [[nodiscard]] std::int64_t credit(InstanceId id) const;

 private:
  /// An id whose credit is kept. Entries live in one vector (freed ones reused), found by id
  /// through the shared index and by index from the classes' heaps.
  struct Entry {
    std::int64_t value = 0;  ///< member: key (credit - weight * round_); else the credit
    std::int64_t weight = 0;
    InstanceId id = 0;
    std::uint32_t cls = 0;  ///< member: its class
    std::uint32_t pos = 0;  ///< member: its place in the class's heap
    bool member = false;
    bool kept = false;  ///< false: on free_
  };
  /// The members of one weight: a binary heap of entry indices, the richest (largest key,
  /// then lowest id) on top. Within a class, keys order the credits. An empty class keeps its
  /// weight until a new weight reuses it.
  struct Class {
    std::int64_t weight = 0;
    std::vector<std::uint32_t> heap;
  };
  [[nodiscard]] bool before(std::uint32_t a, std::uint32_t b) const {
    const Entry& x = entries_[a];
    const Entry& y = entries_[b];
    return x.value != y.value ? x.value > y.value : x.id < y.id;
  }
  void sift_up(Class& c, std::size_t at);
  void sift_down(Class& c, std::size_t at);
  std::uint32_t class_of(std::int64_t weight);
  /// `id`'s entry, or DenseIdIndex::kNone; throws std::logic_error if the shared index
  /// gives `id` an entry of another set.
  [[nodiscard]] std::uint32_t entry_of(InstanceId id) const;
  void leave(Entry& e);
  void rebase();

  std::vector<Entry> entries_;
  std::vector<std::uint32_t> free_;      ///< entries no id uses
  std::shared_ptr<DenseIdIndex> index_;  ///< id -> entry (this set's ids)
  std::size_t kept_ = 0;                 ///< entries not on free_
  std::vector<Class> classes_;
  std::int64_t round_ = 0;
  std::int64_t total_ = 0;  ///< the members' total weight
  std::size_t members_ = 0;
  std::int64_t rebase_every_;
};

}  // namespace sim::policy::infless
