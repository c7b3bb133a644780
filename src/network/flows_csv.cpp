// The flows CSV's reading (read_flows_csv): lines read through one buffer, split into cells
// (bit masks for the usual short lines), ids checked for repeats, node names looked up in a table
// of their own; the numbers are parsed by detail::parse_number (flows_number.cpp).
#include "flows_csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <istream>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sim/config/units.hpp"

namespace sim::net {

namespace flows_impl {

namespace {

constexpr std::size_t kMaxLine = 1 << 16;

// Cells are short: a plain loop beats find_first_not_of (a search of " \t\r" per character).
// (Splitting with a plain loop instead of find's memchr was slower: 78 against 71 ns a line.)
bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

std::string_view trim(std::string_view s) {
  std::size_t b = 0;
  std::size_t e = s.size();
  while (b < e && is_blank(s[b]))
    ++b;
  while (e > b && is_blank(s[e - 1]))
    --e;
  return s.substr(b, e - b);
}

// The cells of one line, trimmed, as views into it (the vector is reused: no allocation per line).
void split(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t from = 0;
  for (;;) {
    const auto comma = line.find(',', from);
    out.push_back(trim(line.substr(from, comma - from)));
    if (comma == std::string_view::npos) break;
    from = comma + 1;
  }
}

// The cells of a line of fewer than 64 characters without a blank (' ', '\t', '\r': then neither
// the line nor a cell needs trimming), as split gives them, found from the bit masks of its
// commas and blanks over 64 bytes read at once (16 at a time); false, writing nothing, for any
// other line, or where the 64 bytes from line.data() would pass readable_end. The memchr per cell
// and the trims were about a third of the reading loop. The cells go to a fixed array (such a
// line has at most 64), not a vector: a push_back per cell was most of this function's work.
using PlainCells = std::array<std::string_view, 64>;
bool split_plain(std::string_view line, const char* readable_end, PlainCells& out,
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
  void fill() {
    if (begin_ > 0) {
      std::memmove(buf_.get(), buf_.get() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    std::streambuf* sb = in_.good() ? in_.rdbuf() : nullptr;
    const std::streamsize got =
        sb == nullptr ? 0
                      : sb->sgetn(buf_.get() + end_, static_cast<std::streamsize>(size_ - end_));
    if (got <= 0) {
      eof_ = true;
      in_.setstate(std::ios::eofbit);
    } else {
      end_ += static_cast<std::size_t>(got);
    }
    pad();
  }
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

// Flow ids seen so far. Inputs usually number their flows in increasing order, and an id above
// every earlier one cannot repeat one: the table is built (from the flows read so far) only once
// an id comes out of order. It would cost a cache miss per line (the ids hash all over a table
// of 2 MB at 1e5 flows): about half of the reading.
class IdSet {
 public:
  // False if id is among `before`'s ids, the flows read so far (in order).
  bool insert(std::uint64_t id, std::span<const FlowSpec> before) {
    if (!hashed_) {
      // Until now every id was above the previous one, so the last is the largest.
      if (before.empty() || id > before.back().id) return true;
      hashed_ = true;
      for (const FlowSpec& f : before)
        add(f.id);
    }
    return add(id);
  }

 private:
  // Open addressing over a power-of-two table of the ids themselves, 0 marking an empty slot
  // (id 0 is tracked on its own), so an insert touches one cache line and allocates nothing.
  // False if id was already in the set.
  bool add(std::uint64_t id) {
    if (id == 0) return !std::exchange(has_zero_, true);
    if (2 * (size_ + 1) > keys_.size()) grow();
    const std::size_t mask = keys_.size() - 1;
    for (std::size_t i = mix(id) & mask;; i = (i + 1) & mask) {
      if (keys_[i] == 0) {
        keys_[i] = id;
        ++size_;
        return true;
      }
      if (keys_[i] == id) return false;
    }
  }

  static std::size_t mix(std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return static_cast<std::size_t>(x);
  }
  void grow() {
    std::vector<std::uint64_t> keys(std::max<std::size_t>(64, 2 * keys_.size()), 0);
    const std::size_t mask = keys.size() - 1;
    for (const std::uint64_t k : keys_) {
      if (k == 0) continue;
      std::size_t i = mix(k) & mask;
      while (keys[i] != 0)
        i = (i + 1) & mask;
      keys[i] = k;
    }
    keys_.swap(keys);
  }

  std::vector<std::uint64_t> keys_;
  std::size_t size_ = 0;
  bool has_zero_ = false;
  bool hashed_ = false;
};

[[noreturn]] void fail(const std::string& file, std::size_t line, const std::string& msg) {
  throw std::invalid_argument(fmt::format("{}: line {}: {}", file, line, msg));
}

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
TextKey text_key(std::string_view text) {
  std::array<char, kKeyChars> chars{};
  std::memcpy(chars.data(), text.data(), std::min(text.size(), kKeyChars));
  return TextKey{load_word(chars.data()), load_word(chars.data() + 8), load_word(chars.data() + 16),
                 text.size()};
}

// The topology's node names, looked up by a cell and its key (Topology::find takes a std::string,
// and its std::unordered_map hashes with a division per lookup): open addressing over a
// power-of-two table of the names' keys and ids, at most half full; a name longer than kKeyChars
// is compared in full once its key matches. Only finds; misses go to node_or_fail.
class NodeNames {
 public:
  explicit NodeNames(const Topology& t) : topology_(t) {
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

NodeId node_or_fail(const Topology& t, std::string_view name, const std::string& column,
                    const std::string& file, std::size_t line) {
  const std::string key(name);
  if (const auto id = t.find(key)) return *id;
  try {
    return t.at(key);
  } catch (const std::invalid_argument& e) {
    fail(file, line, fmt::format("column \"{}\": {}", column, e.what()));
  }
}

// An id cell as from_chars reads an unsigned integer that fills it (false if it does not): up to
// 19 digits cannot overflow 64 bits and are read by a plain loop (the call to from_chars was ~1%
// of a cloud-mix run), longer cells by from_chars.
bool parse_id(std::string_view s, std::uint64_t& id) {
  if (!s.empty() && s.size() <= 19) {
    std::uint64_t v = 0;
    bool digits = true;
    for (const char c : s) {
      const auto d = static_cast<unsigned>(static_cast<unsigned char>(c) - '0');
      digits &= d <= 9;
      v = v * 10 + d;
    }
    if (digits) {
      id = v;
      return true;
    }
  }
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), id);
  return ec == std::errc() && ptr == s.data() + s.size() && !s.empty();
}

// The previous line's valid cell of a column (its key, and its text if longer than kKeyChars)
// and what was read from it.
template <class T>
struct CellMemo {
  TextKey key{};
  std::string text;
  T value{};
  bool valid = false;
  [[nodiscard]] bool matches(std::string_view s, const TextKey& k) const {
    return valid && key == k && (k.size <= kKeyChars || text == s);
  }
  void remember(std::string_view s, const TextKey& k, T v) {
    key = k;
    if (k.size > kKeyChars) text.assign(s);
    value = v;
    valid = true;
  }
};

}  // namespace

template <class List>
List read_flows(std::istream& in, const std::string& file, const Topology& topology,
                std::uintmax_t input_bytes) {
  const std::vector<NodeId> spines = topology.nodes_of_kind(NodeKind::kSpine);
  List out;
  // Growing by doubling copies every flow about once more and touches twice the memory (page
  // faults were a twentieth of a cloud-mix run). Room for a line per 16 bytes covers the usual
  // ~45-byte lines with no growth; pages beyond the flows read are reserved, never touched. Past
  // 2^22 flows (192 MB) the vector grows as usual.
  out.reserve(static_cast<std::size_t>(std::min<std::uintmax_t>(input_bytes / 16, 1u << 22)));
  std::map<std::string, std::size_t> column;
  // Column indices, looked up once after the header (kAbsent: no such column).
  constexpr std::size_t kAbsent = ~std::size_t{0};
  std::size_t col_id = kAbsent, col_src = kAbsent, col_dst = kAbsent, col_bytes = kAbsent,
              col_start = kAbsent, col_spine = kAbsent;
  IdSet ids;
  LineReader reader(in, kMaxLine);
  std::string_view raw;
  bool too_long = false;
  std::vector<std::string_view> split_cells;  // a line's cells as split gives them
  PlainCells plain_cells;                     // or as split_plain does
  std::span<const std::string_view> cells;
  const NodeNames names(topology);
  CellMemo<NodeId> last_src;
  CellMemo<double> last_bytes, last_start;
  std::size_t line_no = 0;
  bool header_seen = false;
  while (reader.next(raw, too_long)) {
    ++line_no;
    if (too_long) fail(file, line_no, "line longer than 65536 characters");
    std::string_view line = raw;
    if (std::size_t n = 0; split_plain(raw, reader.readable_end(), plain_cells, n)) {
      if (line.empty() || line[0] == '#') continue;
      cells = std::span<const std::string_view>(plain_cells.data(), n);
    } else {
      line = trim(raw);
      if (line.empty() || line[0] == '#') continue;
      split(line, split_cells);
      cells = split_cells;
    }
    if (!header_seen) {
      header_seen = true;
      for (std::size_t i = 0; i < cells.size(); ++i) {
        if (!column.emplace(std::string(cells[i]), i).second) {
          fail(file, line_no, fmt::format("column \"{}\" appears twice in the header", cells[i]));
        }
      }
      for (const char* need : {"id", "src", "dst", "bytes", "start"}) {
        if (column.count(need) == 0) {
          fail(file, line_no,
               fmt::format("expected a header with columns id,src,dst,bytes,start[,spine]; "
                           "column \"{}\" is missing (found \"{}\")",
                           need, line));
        }
      }
      const auto index_of = [&](const char* name) {
        const auto it = column.find(name);
        return it == column.end() ? kAbsent : it->second;
      };
      col_id = index_of("id");
      col_src = index_of("src");
      col_dst = index_of("dst");
      col_bytes = index_of("bytes");
      col_start = index_of("start");
      col_spine = index_of("spine");
      for (const auto& [name, index] : column) {
        if (name != "id" && name != "src" && name != "dst" && name != "bytes" && name != "start" &&
            name != "spine") {
          fail(file, line_no,
               fmt::format("unknown column \"{}\" (expected id, src, dst, bytes, "
                           "start and optionally spine)",
                           name));
        }
      }
      continue;
    }
    if (cells.size() != column.size()) {
      fail(file, line_no, fmt::format("expected {} fields, found {}", column.size(), cells.size()));
    }
    FlowSpec f;
    f.line = line_no;
    {
      const std::string_view s = cells[col_id];
      if (!parse_id(s, f.id)) {
        fail(file, line_no,
             fmt::format("column \"id\": expected an unsigned integer, found \"{}\"", s));
      }
      if (!ids.insert(f.id, out)) {
        fail(file, line_no, fmt::format("column \"id\": flow id {} appears twice", f.id));
      }
    }
    // A burst's lines share their source: the previous line's is reused when the name matches.
    if (const TextKey k = cell_key(cells[col_src]); !last_src.matches(cells[col_src], k)) {
      auto src = names.find(cells[col_src], k);
      if (!src) src = node_or_fail(topology, cells[col_src], "src", file, line_no);
      last_src.remember(cells[col_src], k, *src);
    }
    f.src = last_src.value;
    if (const auto dst = names.find(cells[col_dst], cell_key(cells[col_dst]))) {
      f.dst = *dst;
    } else {
      f.dst = node_or_fail(topology, cells[col_dst], "dst", file, line_no);
    }
    // A burst's lines usually share their size and start: the previous cell's value is reused
    // when the text matches.
    if (const std::string_view s = cells[col_bytes]; last_bytes.matches(s, cell_key(s))) {
      f.bytes = last_bytes.value;
    } else {
      bool ok = false;
      double b = detail::parse_number(s, ok);
      if (!ok) {
        try {
          b = config::parse_bytes(s);
          ok = true;
        } catch (const std::exception&) {
        }
      }
      if (!ok || b < 0.0 || !std::isfinite(b)) {
        fail(file, line_no,
             fmt::format("column \"bytes\": expected a size >= 0 in bytes (e.g. 1e9 or \"1GB\"), "
                         "found \"{}\"",
                         s));
      }
      f.bytes = b;
      last_bytes.remember(s, cell_key(s), b);
    }
    if (const std::string_view s = cells[col_start]; last_start.matches(s, cell_key(s))) {
      f.start = seconds(last_start.value);
    } else {
      bool ok = false;
      const double t = detail::parse_number(s, ok);
      if (!ok || t < 0.0 || t > 9.0e9) {
        fail(file, line_no,
             fmt::format("column \"start\": expected a time in seconds >= 0, found \"{}\"", s));
      }
      f.start = seconds(t);
      last_start.remember(s, cell_key(s), t);
    }
    if (col_spine != kAbsent && !cells[col_spine].empty() && cells[col_spine] != "-") {
      const std::string_view s = cells[col_spine];
      std::size_t index = 0;
      const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), index);
      if (ec == std::errc() && ptr == s.data() + s.size()) {
        if (index >= spines.size()) {
          fail(file, line_no,
               fmt::format("column \"spine\": expected a spine index below {}, "
                           "found {}",
                           spines.size(), index));
        }
        f.spine = spines[index];
      } else {
        f.spine = node_or_fail(topology, s, "spine", file, line_no);
        if (topology.node(*f.spine).kind != NodeKind::kSpine) {
          fail(file, line_no, fmt::format("column \"spine\": \"{}\" is not a spine", s));
        }
      }
    }
    out.push_back(f);
  }
  if (!header_seen) fail(file, line_no, "expected a header line id,src,dst,bytes,start[,spine]");
  return out;
}

template std::vector<FlowSpec> read_flows<std::vector<FlowSpec>>(std::istream&, const std::string&,
                                                                 const Topology&, std::uintmax_t);
template FlowList read_flows<FlowList>(std::istream&, const std::string&, const Topology&,
                                       std::uintmax_t);

}  // namespace flows_impl

std::vector<FlowSpec> read_flows_csv(std::istream& in, const std::string& file,
                                     const Topology& topology, std::uintmax_t input_bytes) {
  return flows_impl::read_flows<std::vector<FlowSpec>>(in, file, topology, input_bytes);
}

}  // namespace sim::net
