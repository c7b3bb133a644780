#pragma once
/// A map from 64-bit ids to 32-bit indices in one flat array: open addressing with linear
/// probing and backward-shift deletion (no tombstones), Fibonacci hashing, at most half full.
/// An idle set looks an instance up twice per batch (it becomes idle, it is dispatched); a
/// node-based std::unordered_map costs a division and a cache miss on a separately allocated
/// node for each. Nothing iterates it, so its layout cannot reach any output.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace sim::policy::infless {

class FlatIdMap {
 public:
  /// The value of `key`, or nullptr. Valid until the next insert or erase.
  [[nodiscard]] std::uint32_t* find(std::uint64_t key) {
    if (size_ == 0) return nullptr;
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.key == key) return &s.value;
    }
  }
  [[nodiscard]] const std::uint32_t* find(std::uint64_t key) const {
    return const_cast<FlatIdMap*>(this)->find(key);
  }
  /// Inserts key -> value unless the key is present; returns its value and whether it was
  /// inserted.
  std::pair<std::uint32_t*, bool> try_emplace(std::uint64_t key, std::uint32_t value) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    std::size_t i = home(key);
    for (; slots_[i].used; i = (i + 1) & mask_)
      if (slots_[i].key == key) return {&slots_[i].value, false};
    slots_[i] = {key, value, true};
    ++size_;
    return {&slots_[i].value, true};
  }
  /// Removes `key`; false if it was absent.
  bool erase(std::uint64_t key) {
    if (size_ == 0) return false;
    std::size_t i = home(key);
    for (; slots_[i].key != key || !slots_[i].used; i = (i + 1) & mask_)
      if (!slots_[i].used) return false;
    // Backward shift: move each following entry of the probe run whose home is not in
    // (i, j] (cyclically) into the hole, so that every lookup still finds it.
    for (std::size_t j = (i + 1) & mask_; slots_[j].used; j = (j + 1) & mask_) {
      const std::size_t k = home(slots_[j].key);
      const bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
      if (stays) continue;
      slots_[i] = slots_[j];
      i = j;
    }
    slots_[i].used = false;
    --size_;
    return true;
  }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::size_t capacity() const { return slots_.size(); }

 private:
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t value = 0;
    bool used = false;
  };
  [[nodiscard]] std::size_t home(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_);
  }
  void grow() {
    std::vector<Slot> old(slots_.empty() ? 16 : 2 * slots_.size());
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    shift_ = 64;
    for (std::size_t n = slots_.size(); n > 1; n >>= 1)
      --shift_;
    size_ = 0;
    for (const Slot& s : old)
      if (s.used) try_emplace(s.key, s.value);
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  int shift_ = 64;
  std::size_t size_ = 0;
};

}  // namespace sim::policy::infless
