#pragma once
/// Instance id -> a 32-bit index, one slot per id up to the largest set: the platform numbers
/// instances densely from 1, so a flat array finds an id with one load and no hashing. The
/// idle sets of one dispatcher share one (each instance is in one set only): the ~10,500
/// instances of the INFless §5.3 large-scale run take one 42 KB array that stays in cache,
/// where a hash per set (40 of them) missed the cache on most lookups. Like the control
/// plane's by-id index, it holds a slot (4 bytes) per instance ever started. Nothing iterates
/// it, so its layout cannot reach any output.

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace sim::policy::infless {

class DenseIdIndex {
 public:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  /// Ids at or above this are rejected: the array would no longer be small.
  static constexpr std::uint64_t kMaxId = std::uint64_t{1} << 32;

  /// The index set for `id`, or kNone.
  [[nodiscard]] std::uint32_t find(std::uint64_t id) const {
    return id < slots_.size() ? slots_[static_cast<std::size_t>(id)] : kNone;
  }
  /// Sets `id`'s index (not kNone). Throws std::invalid_argument for an id >= kMaxId.
  void set(std::uint64_t id, std::uint32_t index) {
    if (id >= slots_.size()) grow(id);
    slots_[static_cast<std::size_t>(id)] = index;
  }
  /// Clears `id`'s index (no effect on an id never set).
  void clear(std::uint64_t id) {
    if (id < slots_.size()) slots_[static_cast<std::size_t>(id)] = kNone;
  }

 private:
  void grow(std::uint64_t id) {
    if (id >= kMaxId) throw std::invalid_argument("dense id index: id beyond 2^32");
    // Doubling: ids arrive in ascending order, one at a time.
    const auto want = static_cast<std::size_t>(id) + 1;
    slots_.resize(want > 2 * slots_.size() ? want : 2 * slots_.size(), kNone);
  }

  std::vector<std::uint32_t> slots_;
};

}  // namespace sim::policy::infless
