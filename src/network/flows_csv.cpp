// The flows CSV's reading (read_flows_csv): the columns' meaning, ids checked for repeats, cells
// compared with the previous line's. Its lines and cells come from flows_csv_lines.hpp, node names
// are looked up in flows_node_names.hpp's table, numbers parsed by detail::parse_number
// (flows_number.cpp).
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

#include "flows_csv_lines.hpp"
#include "flows_node_names.hpp"
#include "sim/config/units.hpp"

namespace sim::net {

namespace flows_impl {

namespace {

constexpr std::size_t kMaxLine = 1 << 16;

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
