#include "sim/config/bounded_line.hpp"

namespace sim::config {

bool read_bounded_line(std::istream& in, std::string& line, std::size_t limit) {
  line.clear();
  bool any = false;
  // Character by character through the stream buffer: the reads are buffered, and stopping at
  // limit + 1 is what bounds the memory.
  std::streambuf* buf = in.rdbuf();
  if (buf == nullptr || !in.good()) return false;
  for (;;) {
    const auto c = buf->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      return any;
    }
    any = true;
    if (c == '\n') return true;
    line.push_back(static_cast<char>(c));
    if (line.size() > limit) return true;
  }
}

}  // namespace sim::config
