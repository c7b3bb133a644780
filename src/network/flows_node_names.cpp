// The building of the node-name table (NodeNames, flows_node_names.hpp) and text_key, once per
// run: out of line, apart from the lookups read_flows makes per line.
#include "flows_node_names.hpp"

#include <algorithm>

namespace sim::net::flows_impl {

TextKey text_key(std::string_view text) {
  std::array<char, kKeyChars> chars{};
  std::memcpy(chars.data(), text.data(), std::min(text.size(), kKeyChars));
  return TextKey{load_word(chars.data()), load_word(chars.data() + 8), load_word(chars.data() + 16),
                 text.size()};
}

NodeNames::NodeNames(const Topology& t) : topology_(t) {
  const std::size_t size = std::bit_ceil(2 * t.node_count() + 2);
  shift_ = 64 - std::countr_zero(size);
  slots_.assign(size, Slot{});
  for (NodeId id = 0; id < t.node_count(); ++id) {
    const TextKey k = text_key(t.node(id).name);
    std::size_t i = hash(k);
    while (slots_[i].id != kEmpty)
      i = (i + 1) & (size - 1);
    slots_[i] = Slot{k.w0, k.w1, k.w2, static_cast<std::uint32_t>(k.size), id};
  }
}

}  // namespace sim::net::flows_impl
