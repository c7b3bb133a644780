#pragma once
// The topology's node names as the flows CSV's reading looks them up (read_flows in flows_csv.cpp,
// per src and dst cell): a text's first kKeyChars characters as three words (TextKey), and a table
// of the names by those keys (NodeNames). Their own file because they are one concept apart from
// the CSV's columns; flows_csv.cpp's CellMemo compares cells by the same keys.
// Private to src/network. Lookups are inline (two a line); the table's building is not.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include "sim/network/topology.hpp"

namespace sim::net::flows_impl {

// Up to kKeyChars characters of a text as words, the bytes past its end zero, and its size: two
// texts of at most kKeyChars characters are equal when their keys are, three word compares
// instead of a call to memcmp (the compares of the source, size and start with the previous
// line's and the name lookups' were ~2% of a cloud-mix run, with the names' byte-wise hash).
constexpr std::size_t kKeyChars = 24;
struct TextKey {
  std::uint64_t w0, w1, w2;
  std::size_t size;
  // Word by word (a defaulted == compares through memcmp, a call).
  friend bool operator==(const TextKey& a, const TextKey& b) {
    return ((a.w0 ^ b.w0) | (a.w1 ^ b.w1) | (a.w2 ^ b.w2) | (a.size ^ b.size)) == 0;
  }
};

// w's first n bytes in memory order (all of them from n = 8 on), the others zero.
inline std::uint64_t first_bytes(std::uint64_t w, std::size_t n) {
  if (n >= 8) return w;
  if (n == 0) return 0;
  if constexpr (std::endian::native == std::endian::little) {
    return w & ((std::uint64_t{1} << (8 * n)) - 1);
  } else {
    return w & ~(~std::uint64_t{0} >> (8 * n));
  }
}

inline std::uint64_t load_word(const char* p) {
  std::uint64_t w = 0;
  std::memcpy(&w, p, sizeof w);
  return w;
}

// The key of a cell, read as kKeyChars bytes from its start (fixed-size copies, inline): every
// cell is a view into the LineReader's buffer, readable to kPad (64) bytes past the last line's
// end, so those bytes may pass the cell's end.
inline TextKey cell_key(std::string_view cell) {
  const std::size_t n = cell.size();
  return TextKey{first_bytes(load_word(cell.data()), n),
                 first_bytes(load_word(cell.data() + 8), n > 8 ? n - 8 : 0),
                 first_bytes(load_word(cell.data() + 16), n > 16 ? n - 16 : 0), n};
}

// The same key for any text (only its characters are read).
TextKey text_key(std::string_view text);

// The topology's node names, looked up by a cell and its key (Topology::find takes a std::string,
// and its std::unordered_map hashes with a division per lookup): open addressing over a
// power-of-two table of the names' keys and ids, at most half full; a name longer than kKeyChars
// is compared in full once its key matches. Only finds; misses go to node_or_fail.
class NodeNames {
 public:
  explicit NodeNames(const Topology& t);
  [[nodiscard]] std::optional<NodeId> find(std::string_view name, const TextKey& k) const {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash(k); slots_[i].id != kEmpty; i = (i + 1) & mask) {
      const Slot& e = slots_[i];
      if (((e.w0 ^ k.w0) | (e.w1 ^ k.w1) | (e.w2 ^ k.w2) | (e.size ^ k.size)) == 0 &&
          (k.size <= kKeyChars || topology_.node(e.id).name == name)) {
        return e.id;
      }
    }
    return std::nullopt;
  }

 private:
  static constexpr NodeId kEmpty = ~NodeId{0};
  struct Slot {
    std::uint64_t w0 = 0, w1 = 0, w2 = 0;
    std::uint32_t size = 0;  // a node name's size (a topology's names are short)
    NodeId id = kEmpty;
  };
  static_assert(sizeof(Slot) == 32);
  // The top bits of the folded key's product (Fibonacci hashing: they depend on every bit).
  [[nodiscard]] std::size_t hash(const TextKey& k) const {
    const std::uint64_t folded = k.w0 ^ std::rotl(k.w1, 21) ^ std::rotl(k.w2, 42) ^ k.size;
    return static_cast<std::size_t>((folded * 0x9e3779b97f4a7c15ULL) >> shift_);
  }
  const Topology& topology_;
  std::vector<Slot> slots_;
  int shift_ = 0;  ///< 64 - log2(slots_.size())
};

}  // namespace sim::net::flows_impl
