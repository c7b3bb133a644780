#pragma once
// The flows CSV's lines and cells (read_flows in flows_csv.cpp splits its input with them): a
// LineReader handing out lines as views into one buffer, and the splitting of a line into cells
// (split_plain's bit masks for the usual short lines, split for the others). Their own file
// because they know nothing of flows: flows_csv.cpp keeps the columns' meaning.
// Private to src/network. The hot parts are inline (read_flows calls them per line).

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <istream>
#include <memory>
#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sim::net::flows_impl {

// Cells are short: a plain loop beats find_first_not_of (a search of " \t\r" per character).
// (Splitting with a plain loop instead of find's memchr was slower: 78 against 71 ns a line.)
inline bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

inline std::string_view trim(std::string_view s) {
  std::size_t b = 0;
  std::size_t e = s.size();
  while (b < e && is_blank(s[b]))
    ++b;
  while (e > b && is_blank(s[e - 1]))
    --e;
  return s.substr(b, e - b);
}

// The cells of one line, trimmed, as views into it (the vector is reused: no allocation per line).
void split(std::string_view line, std::vector<std::string_view>& out);

// The cells of a line of fewer than 64 characters without a blank (' ', '\t', '\r': then neither
// the line nor a cell needs trimming), as split gives them, found from the bit masks of its
// commas and blanks over 64 bytes read at once (16 at a time); false, writing nothing, for any
// other line, or where the 64 bytes from line.data() would pass readable_end. The memchr per cell
// and the trims were about a third of the reading loop. The cells go to a fixed array (such a
// line has at most 64), not a vector: a push_back per cell was most of this function's work.
using PlainCells = std::array<std::string_view, 64>;
inline bool split_plain(std::string_view line, const char* readable_end, PlainCells& out,
                        std::size_t& count) {
#if defined(__SSE2__)
  if (line.size() >= 64 || readable_end - line.data() < 64) return false;
  std::uint64_t commas = 0;
  std::uint64_t blanks = 0;
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(line.data() + 16 * k));
    const __m128i blank = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'))),
        _mm_cmpeq_epi8(v, _mm_set1_epi8('\r')));
    const auto shift = static_cast<unsigned>(16 * k);
    commas |= std::uint64_t{static_cast<std::uint16_t>(
                  _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(','))))}
              << shift;
    blanks |= std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(blank))} << shift;
  }
  const std::uint64_t in_line = (std::uint64_t{1} << line.size()) - 1;
  if ((blanks & in_line) != 0) return false;
  commas &= in_line;
  std::size_t n = 0;
  std::size_t from = 0;
  while (commas != 0) {
    const auto at = static_cast<std::size_t>(std::countr_zero(commas));
    out[n++] = std::string_view(line.data() + from, at - from);
    from = at + 1;
    commas &= commas - 1;
  }
  out[n++] = std::string_view(line.data() + from, line.size() - from);
  count = n;
  return true;
#else
  (void)line;
  (void)readable_end;
  (void)out;
  (void)count;
  return false;
#endif
}

// Lines of a stream, read through one buffer of limit + 1 characters in pieces of up to that
// size and returned as views into it (no copy and no allocation per line). A line (without its
// '\n') longer than limit is returned as soon as limit + 1 of its characters are buffered, with
// too_long set: the buffer never holds more, so an endless line (what /dev/zero gives) stops the
// reading just past the limit, as config::read_bounded_line does.
// The buffer is not zeroed (16 page faults of a one-flow run): only the kPad bytes after the
// characters read are, after each read, so that every byte before readable_end() is initialised.
class LineReader {
 public:
  LineReader(std::istream& in, std::size_t limit)
      : in_(in),
        limit_(limit),
        size_(limit + 1),
        buf_(std::make_unique_for_overwrite<char[]>(size_ + kPad)) {
    pad();
  }

  // Where the bytes after the lines' ends stop being readable: up to it they may be read (they
  // are initialised, though not part of the line); at least kPad past the last line's end.
  [[nodiscard]] const char* readable_end() const { return buf_.get() + end_ + kPad; }

  // The next line, or false at the end of the input. The view stays valid until the next call.
  bool next(std::string_view& line, bool& too_long) {
    too_long = false;
    for (;;) {
      const char* const from = buf_.get() + begin_;
      if (const void* nl = std::memchr(from, '\n', end_ - begin_)) {
        const auto n = static_cast<std::size_t>(static_cast<const char*>(nl) - from);
        line = std::string_view(from, n);
        begin_ += n + 1;
        too_long = n > limit_;
        return true;
      }
      if (end_ - begin_ > limit_) {
        line = std::string_view(from, end_ - begin_);
        begin_ = end_;
        too_long = true;
        return true;
      }
      if (eof_) {
        if (begin_ == end_) return false;
        line = std::string_view(from, end_ - begin_);
        begin_ = end_;
        return true;
      }
      fill();
    }
  }

 private:
  void fill();  ///< reads more of the stream after the unread characters
  void pad() { std::memset(buf_.get() + end_, 0, kPad); }

  static constexpr std::size_t kPad = 64;
  std::istream& in_;
  std::size_t limit_;
  std::size_t size_;  ///< the characters the buffer holds (kPad more are allocated)
  std::unique_ptr<char[]> buf_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  bool eof_ = false;
};

}  // namespace sim::net::flows_impl
