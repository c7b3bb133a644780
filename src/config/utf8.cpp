#include "sim/config/utf8.hpp"

namespace sim::config {

std::size_t first_invalid_utf8(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  std::size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = byte(i);
    if (c < 0x80) {
      ++i;
      continue;
    }
    // Unicode 15, Table 3-7 (well-formed UTF-8 byte sequences): the lead byte fixes the
    // length and the range of the second byte; later bytes are 0x80-0xBF.
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 2;
    } else if (c == 0xE0) {
      n = 3, lo = 0xA0;
    } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
      n = 3;
    } else if (c == 0xED) {
      n = 3, hi = 0x9F;
    } else if (c == 0xF0) {
      n = 4, lo = 0x90;
    } else if (c >= 0xF1 && c <= 0xF3) {
      n = 4;
    } else if (c == 0xF4) {
      n = 4, hi = 0x8F;
    } else {
      return i;
    }
    if (i + n > text.size()) return i;
    if (byte(i + 1) < lo || byte(i + 1) > hi) return i;
    for (std::size_t k = 2; k < n; ++k) {
      if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return i;
    }
    i += n;
  }
  return std::string_view::npos;
}

}  // namespace sim::config
