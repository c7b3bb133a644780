#include "sim/network/flows_tool.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <ostream>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sim/config/units.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/network/flow_network.hpp"
#include "sim/network/topology_config.hpp"

namespace sim::net {

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
// and the trims were about a third of the reading loop.
bool split_plain(std::string_view line, const char* readable_end,
                 std::vector<std::string_view>& out) {
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
  out.clear();
  std::size_t from = 0;
  while (commas != 0) {
    const auto at = static_cast<std::size_t>(std::countr_zero(commas));
    out.push_back(line.substr(from, at - from));
    from = at + 1;
    commas &= commas - 1;
  }
  out.push_back(line.substr(from));
  return true;
#else
  (void)line;
  (void)readable_end;
  (void)out;
  return false;
#endif
}

// Lines of a stream, read through one buffer of limit + 1 characters in pieces of up to that
// size and returned as views into it (no copy and no allocation per line). A line (without its
// '\n') longer than limit is returned as soon as limit + 1 of its characters are buffered, with
// too_long set: the buffer never holds more, so an endless line (what /dev/zero gives) stops the
// reading just past the limit, as config::read_bounded_line does.
class LineReader {
 public:
  LineReader(std::istream& in, std::size_t limit) : in_(in), limit_(limit), buf_(limit + 1) {}

  // The end of the buffer the lines are views into: bytes up to it may be read (they are
  // initialised, though not part of the line).
  [[nodiscard]] const char* readable_end() const { return buf_.data() + buf_.size(); }

  // The next line, or false at the end of the input. The view stays valid until the next call.
  bool next(std::string_view& line, bool& too_long) {
    too_long = false;
    for (;;) {
      const char* const from = buf_.data() + begin_;
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
      std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    std::streambuf* sb = in_.good() ? in_.rdbuf() : nullptr;
    const std::streamsize got =
        sb == nullptr
            ? 0
            : sb->sgetn(buf_.data() + end_, static_cast<std::streamsize>(buf_.size() - end_));
    if (got <= 0) {
      eof_ = true;
      in_.setstate(std::ios::eofbit);
      return;
    }
    end_ += static_cast<std::size_t>(got);
  }

  std::istream& in_;
  std::size_t limit_;
  std::vector<char> buf_;
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

// An allocator for the large arrays `dcsim flows` writes once, in order, soon after allocating
// them (the flows read, the outcomes): from 1 MB on, the memory is aligned to 2 MB and the kernel
// asked for transparent huge pages over it. A 4 kB page fault costs ~2.5 us on the machines
// measured, and those two arrays took ~1,600 of a cloud run's ~2,800 faults. A huge page is only
// taken when one of its bytes is written, so pages reserved and never written still cost
// nothing, and what is used grows by at most the last partly written 2 MB. Where the kernel does
// not offer MADV_HUGEPAGE (or refuses it), the pages are ordinary ones.
template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHuge = std::size_t{1} << 21;
  static constexpr std::size_t kFrom = std::size_t{1} << 20;

  HugePageAllocator() = default;
  template <class U>
  explicit HugePageAllocator(const HugePageAllocator<U>& /*other*/) {}

  T* allocate(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kFrom) return std::allocator<T>().allocate(n);
    const std::size_t rounded = (bytes + kHuge - 1) & ~(kHuge - 1);
    void* p = std::aligned_alloc(kHuge, rounded);
    if (p == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    (void)::madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) {
    if (n * sizeof(T) < kFrom) {
      std::allocator<T>().deallocate(p, n);
    } else {
      std::free(p);
    }
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>& /*other*/) const {
    return true;
  }
};

using FlowList = std::vector<FlowSpec, HugePageAllocator<FlowSpec>>;

[[noreturn]] void fail(const std::string& file, std::size_t line, const std::string& msg) {
  throw std::invalid_argument(fmt::format("{}: line {}: {}", file, line, msg));
}

// The topology's node names, looked up by view (Topology::find takes a std::string, and its
// std::unordered_map hashes with a division per lookup): open addressing over a power-of-two
// table of ids, at most half full, compared by name. Only finds; misses go to node_or_fail.
class NodeNames {
 public:
  explicit NodeNames(const Topology& t) : topology_(t) {
    slots_.assign(std::bit_ceil(2 * t.node_count() + 2), kEmpty);
    const std::size_t mask = slots_.size() - 1;
    for (NodeId id = 0; id < t.node_count(); ++id) {
      std::size_t i = hash(t.node(id).name) & mask;
      while (slots_[i] != kEmpty)
        i = (i + 1) & mask;
      slots_[i] = id;
    }
  }
  [[nodiscard]] std::optional<NodeId> find(std::string_view name) const {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash(name) & mask; slots_[i] != kEmpty; i = (i + 1) & mask) {
      if (topology_.nodes()[slots_[i]].name == name) return slots_[i];
    }
    return std::nullopt;
  }

 private:
  static constexpr NodeId kEmpty = ~NodeId{0};
  static std::size_t hash(std::string_view s) {
    std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
    for (const char c : s)
      h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
  const Topology& topology_;
  std::vector<NodeId> slots_;
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

}  // namespace

namespace {

// The previous line's valid cell of a column and the number read from it.
struct CellMemo {
  std::string text;
  double value = 0.0;
  bool valid = false;
  void remember(std::string_view s, double v) {
    text.assign(s);
    value = v;
    valid = true;
  }
};

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
  std::vector<std::string_view> cells;
  const NodeNames names(topology);
  std::string last_src_name;
  std::optional<NodeId> last_src;
  CellMemo last_bytes, last_start;
  std::size_t line_no = 0;
  bool header_seen = false;
  while (reader.next(raw, too_long)) {
    ++line_no;
    if (too_long) fail(file, line_no, "line longer than 65536 characters");
    std::string_view line = raw;
    if (split_plain(raw, reader.readable_end(), cells)) {
      if (line.empty() || line[0] == '#') continue;
    } else {
      line = trim(raw);
      if (line.empty() || line[0] == '#') continue;
      split(line, cells);
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
      const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), f.id);
      if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) {
        fail(file, line_no,
             fmt::format("column \"id\": expected an unsigned integer, found \"{}\"", s));
      }
      if (!ids.insert(f.id, out)) {
        fail(file, line_no, fmt::format("column \"id\": flow id {} appears twice", f.id));
      }
    }
    // A burst's lines share their source: the previous line's is reused when the name matches.
    if (cells[col_src] != last_src_name || !last_src) {
      last_src = names.find(cells[col_src]);
      if (!last_src) last_src = node_or_fail(topology, cells[col_src], "src", file, line_no);
      last_src_name.assign(cells[col_src]);
    }
    f.src = *last_src;
    if (const auto dst = names.find(cells[col_dst])) {
      f.dst = *dst;
    } else {
      f.dst = node_or_fail(topology, cells[col_dst], "dst", file, line_no);
    }
    // A burst's lines usually share their size and start: the previous cell's value is reused
    // when the text matches.
    if (const std::string_view s = cells[col_bytes]; s == last_bytes.text && last_bytes.valid) {
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
      last_bytes.remember(s, b);
    }
    if (const std::string_view s = cells[col_start]; s == last_start.text && last_start.valid) {
      f.start = seconds(last_start.value);
    } else {
      bool ok = false;
      const double t = detail::parse_number(s, ok);
      if (!ok || t < 0.0 || t > 9.0e9) {
        fail(file, line_no,
             fmt::format("column \"start\": expected a time in seconds >= 0, found \"{}\"", s));
      }
      f.start = seconds(t);
      last_start.remember(s, t);
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

}  // namespace

std::vector<FlowSpec> read_flows_csv(std::istream& in, const std::string& file,
                                     const Topology& topology, std::uintmax_t input_bytes) {
  return read_flows<std::vector<FlowSpec>>(in, file, topology, input_bytes);
}

namespace {

constexpr NodeId kNoSpine = ~NodeId{0};

// What a flow's run adds to its spec: 8 bytes plus 4, where a FlowResult (a copy of the spec and
// a string) takes 88; at 1e5 flows that is 1.2 MB instead of 8.8 MB to fault in and fill.
struct Outcome {
  Time finish;
  NodeId spine = kNoSpine;  ///< the route's first spine
};

// The bursts' start events, only the next one queued. Each burst takes its sequence number up
// front, as pushing them all before the run did (one per burst, in order), and its event is
// pushed with that number (push_reserved) when the previous burst runs: the queue orders by
// (time, sequence), so every event runs where it ran. 22,000 queued events at 1e5 flows cost a
// fifth of the run's page faults and a deeper queue for every completion.
template <class StartOf, class Run>
class BurstChain final : public SequenceHolder {
 public:
  BurstChain(EventQueue& queue, std::size_t n, StartOf start_of, const Run& run)
      : queue_(queue), start_of_(start_of), run_(run) {
    queue_.add_holder(this);  // first: taking a number may renumber the ones taken before
    sequences_.reserve(n);
    for (std::size_t j = 0; j < n; ++j)
      sequences_.push_back(queue_.take_sequence());
    if (n > 0) push(0);
  }
  BurstChain(const BurstChain&) = delete;
  BurstChain& operator=(const BurstChain&) = delete;
  ~BurstChain() {
    queued_.cancel();  // if a burst threw, the next one's event captures this
    queue_.remove_holder(this);
  }

  void held_sequences(std::vector<std::uint64_t>& out) const override {
    out.insert(out.end(), sequences_.begin() + static_cast<std::ptrdiff_t>(next_),
               sequences_.end());
  }
  void renumber_sequences(const std::vector<std::uint64_t>& sorted) override {
    for (std::size_t j = next_; j < sequences_.size(); ++j)
      sequences_[j] = EventQueue::renumbered_sequence(sorted, sequences_[j]);
  }

 private:
  // Two words captured (this and j): std::function keeps the event inline, no allocation.
  void push(std::size_t j) {
    next_ = j + 1;
    queued_ = queue_.push_reserved(start_of_(j), sequences_[j], [this, j] {
      if (j + 1 < sequences_.size()) push(j + 1);
      run_(j);
    });
  }

  EventQueue& queue_;
  StartOf start_of_;
  const Run& run_;
  std::vector<std::uint64_t> sequences_;  ///< by burst; those from next_ on are not pushed yet
  std::size_t next_ = 0;
  EventHandle queued_;
};

std::vector<Outcome, HugePageAllocator<Outcome>> run_flows(const Topology& topology,
                                                           std::span<const FlowSpec> flows) {
  Simulation sim;
  FlowNetwork net(sim, topology);
  std::vector<Outcome, HugePageAllocator<Outcome>> results(flows.size());
  // Flows that start at the same instant (a burst of cold-start downloads) start in one event and
  // one BatchUpdate: one rate recomputation instead of one per flow. Max-min fairness depends only
  // on the set of flows, so the rates are those of starting them one by one (docs/network.md
  // "Batches"); the order of input lines with equal start times is kept.
  // Inputs are usually in start order already: then the stable sort would keep the identity, and
  // the permutation (8 bytes a flow, a twentieth of a cloud run's page faults) is not built.
  const bool in_order =
      std::is_sorted(flows.begin(), flows.end(),
                     [](const FlowSpec& a, const FlowSpec& b) { return a.start < b.start; });
  std::vector<std::size_t> permutation;
  if (!in_order) {
    permutation.resize(flows.size());
    for (std::size_t i = 0; i < permutation.size(); ++i)
      permutation[i] = i;
    std::stable_sort(permutation.begin(), permutation.end(),
                     [&](std::size_t a, std::size_t b) { return flows[a].start < flows[b].start; });
  }
  const auto order = [&](std::size_t k) { return in_order ? k : permutation[k]; };
  const auto start_one = [&](std::size_t i) {
    const FlowSpec& f = flows[i];
    FlowOptions options;
    options.route_key = f.id;
    options.via = f.spine;
    FlowHandle h;
    try {
      // Two words, so that std::function keeps the callable inline (no allocation per flow);
      // results is sized once, so the pointer stays valid.
      h = net.start(
          f.src, f.dst, f.bytes, [out = &results[i], &sim] { out->finish = sim.now(); }, options);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("flow {} (line {}): {}", f.id, f.line, e.what()));
    }
    for (const NodeId n : net.route(h).nodes) {
      if (topology.node(n).kind == NodeKind::kSpine) {
        results[i].spine = n;
        break;
      }
    }
  };
  // Bursts as [begin, end) ranges of order; bursts[j + 1] ends burst j.
  // Counted first: sized once, without the copies and page faults of growing.
  const std::size_t n = flows.size();
  std::size_t burst_count = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (k == 0 || flows[order(k)].start != flows[order(k - 1)].start) ++burst_count;
  }
  std::vector<std::size_t> bursts;
  bursts.reserve(burst_count + 1);
  for (std::size_t b = 0; b < n;) {
    bursts.push_back(b);
    std::size_t e = b + 1;
    while (e < n && flows[order(e)].start == flows[order(b)].start)
      ++e;
    b = e;
  }
  bursts.push_back(n);
  const auto run_burst = [&](std::size_t j) {
    const FlowNetwork::BatchUpdate batch(net);
    for (std::size_t k = bursts[j]; k < bursts[j + 1]; ++k)
      start_one(order(k));
  };
  BurstChain chain(
      sim.queue(), bursts.size() - 1, [&](std::size_t j) { return flows[order(bursts[j])].start; },
      run_burst);
  sim.run();
  return results;
}

// Short texts (node names with the character that follows them in a row) stored one after
// another with room behind the last, so that one of up to kCopy characters is copied by a copy
// of a fixed kCopy bytes (inline moves, where a call to memcpy of a variable size was a twentieth
// of the writing). The destination needs kCopy bytes of room (room()).
class PaddedTexts {
 public:
  static constexpr std::size_t kCopy = 32;
  void add(std::string_view text, char after) {
    offset_.push_back(blob_.size());
    blob_.insert(blob_.end(), text.begin(), text.end());
    blob_.push_back(after);
    size_.push_back(text.size() + 1);
    longest_ = std::max(longest_, text.size() + 1);
  }
  void done() { blob_.resize(blob_.size() + kCopy, '\0'); }
  [[nodiscard]] std::size_t room() const { return std::max(longest_, kCopy); }
  char* put(char* out, std::size_t i) const {
    const char* from = blob_.data() + offset_[i];
    const std::size_t n = size_[i];
    if (n <= kCopy) {
      std::memcpy(out, from, kCopy);
    } else {
      std::memcpy(out, from, n);
    }
    return out + n;
  }

 private:
  std::vector<char> blob_;
  std::vector<std::size_t> offset_;
  std::vector<std::size_t> size_;
  std::size_t longest_ = 0;
};

// Rows formatted straight into one buffer, written in large pieces (a stream insertion per line
// cost more than the formatting). `row.room(i)` bounds the characters row i takes (with what its
// copies write past its end); `row(out, i)` writes it at out and returns its end.
template <class Row>
void write_rows(std::ostream& out, std::size_t n, const Row& row) {
  constexpr std::size_t kChunk = std::size_t{1} << 16;
  std::vector<char> buf(2 * kChunk);
  const std::string_view head = "id,src,dst,bytes,start_s,finish_s,duration_s,finish_ns,spine\n";
  std::memcpy(buf.data(), head.data(), head.size());
  std::size_t used = head.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t room = row.room(i);
    if (used + room > buf.size()) {
      out.write(buf.data(), static_cast<std::streamsize>(used));
      used = 0;
      if (room > buf.size()) buf.resize(room);
    }
    used = static_cast<std::size_t>(row(buf.data() + used, i) - buf.data());
    if (used >= kChunk) {
      out.write(buf.data(), static_cast<std::streamsize>(used));
      used = 0;
    }
  }
  out.write(buf.data(), static_cast<std::streamsize>(used));
}

// The text of a number field in the previous row, reused while the value repeats: the flows of a
// burst share their start, usually their size, and (a saturated channel's flows finishing
// together) their finish and duration; in the cloud mix about 4 rows in 5 repeat each of them.
struct FieldMemo {
  std::uint64_t key = 0;
  std::size_t size = 0;  // 0: nothing memorised yet (no field is empty)
  char text[detail::kNumberChars] = {};

  // Writes at out (kNumberChars of room: the whole text array is copied, inline) the text
  // `write(text)` writes for k, and returns its end. (The writers may write past their end,
  // within kNumberChars: text has that room.)
  template <class Write>
  char* put(char* out, std::uint64_t k, const Write& write) {
    if (size == 0 || key != k) {
      size = static_cast<std::size_t>(write(text) - text);
      key = k;
    }
    std::memcpy(out, text, sizeof text);
    return out + size;
  }
};

// The rows' text: `id,src,dst,bytes,start_s,finish_s,duration_s,finish_ns,spine\n`. The doubles
// are those of fmt's "{}" with spec.bytes, spec.start.to_seconds(), finish.to_seconds() and
// (finish - spec.start).to_seconds().
class RowFormatter {
 public:
  explicit RowFormatter(const Topology& topology) {
    for (NodeId id = 0; id < topology.node_count(); ++id)
      names_.add(topology.node(id).name, ',');
    names_.done();
    for (NodeId id = 0; id < topology.node_count(); ++id)
      spines_.add(topology.node(id).name, '\n');
    spines_.add("-", '\n');  // index node_count: no spine
    spines_.done();
    no_spine_ = topology.node_count();
  }

  // Characters a row may take, with what the copies write past its end, given its spine's.
  [[nodiscard]] std::size_t room(std::size_t spine_room) const {
    return 24 + 2 * names_.room() + 5 * (detail::kNumberChars + 1) + spine_room;
  }
  [[nodiscard]] std::size_t room() const { return room(spines_.room()); }

  // A row whose spine is a node (kNoSpine: "-").
  char* operator()(char* out, const FlowSpec& spec, Time finish, NodeId spine) {
    out = numbers(out, spec, finish);
    return spines_.put(out, spine == kNoSpine ? no_spine_ : spine);
  }
  // A row whose spine is any text.
  char* operator()(char* out, const FlowSpec& spec, Time finish, std::string_view spine) {
    out = numbers(out, spec, finish);
    std::memcpy(out, spine.data(), spine.size());
    out[spine.size()] = '\n';
    return out + spine.size() + 1;
  }

 private:
  // The row up to its spine.
  char* numbers(char* out, const FlowSpec& spec, Time finish) {
    out = fmt::format_to(out, FMT_COMPILE("{}"), spec.id);
    *out++ = ',';
    out = names_.put(out, spec.src);
    out = names_.put(out, spec.dst);
    const auto field = [&out](char* e) {
      *e = ',';
      out = e + 1;
    };
    field(bytes_.put(out, std::bit_cast<std::uint64_t>(spec.bytes),
                     [&spec](char* o) { return detail::write_double(o, spec.bytes); }));
    const auto time_field = [&out, &field](FieldMemo& memo, std::int64_t ns) {
      field(memo.put(out, static_cast<std::uint64_t>(ns),
                     [ns](char* o) { return detail::write_seconds(o, ns); }));
    };
    time_field(start_, spec.start.ns());
    time_field(finish_, finish.ns());
    time_field(duration_, (finish - spec.start).ns());
    field(finish_ns_.put(out, static_cast<std::uint64_t>(finish.ns()), [&finish](char* o) {
      return fmt::format_to(o, FMT_COMPILE("{}"), finish.ns());
    }));
    return out;
  }

  PaddedTexts names_;   // "name,"
  PaddedTexts spines_;  // "name\n", and "-\n" last
  std::size_t no_spine_ = 0;
  FieldMemo bytes_, start_, finish_, duration_, finish_ns_;
};

std::string_view spine_name(const Topology& topology, NodeId spine) {
  return spine == kNoSpine ? std::string_view("-") : std::string_view(topology.node(spine).name);
}

}  // namespace

namespace detail {

double parse_number(std::string_view s, bool& ok) {
  // The usual cells ("499000000", "4.659492270"): digits, perhaps a point and more digits. With
  // at most 19 digits making an integer m <= 2^53 and k <= 22 after the point, m and 10^k are
  // doubles exactly and one division rounds m / 10^k correctly, as from_chars does (Clinger's
  // fast path). Anything else (an exponent, a sign, more digits) goes to from_chars.
  {
    std::uint64_t m = 0;
    int digits = 0;
    int after = -1;  // digits after the point; -1: no point
    bool plain = !s.empty() && s.size() <= 20;
    for (std::size_t i = 0; plain && i < s.size(); ++i) {
      const char c = s[i];
      if (c >= '0' && c <= '9') {
        m = m * 10 + static_cast<std::uint64_t>(c - '0');
        ++digits;
        if (after >= 0) ++after;
      } else if (c == '.' && after < 0 && i > 0) {
        after = 0;
      } else {
        plain = false;
      }
    }
    if (plain && after != 0 && digits <= 19 && m <= (std::uint64_t{1} << 53)) {
      static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                          1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                          1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
      ok = true;
      const double v = static_cast<double>(m);
      return after <= 0 ? v : v / kPow10[after];
    }
  }
  double v = 0.0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  ok = ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(v);
  return v;
}

namespace {

// "00".."99".
constexpr auto kPairs = [] {
  std::array<char, 200> t{};
  for (std::size_t i = 0; i < 100; ++i) {
    t[2 * i] = static_cast<char>('0' + i / 10);
    t[2 * i + 1] = static_cast<char>('0' + i % 10);
  }
  return t;
}();

// x < 10^8 as 8 digits (leading zeros): two independent halves of two pairs each.
inline void write8(char* out, std::uint32_t x) {
  const std::uint32_t hi = x / 10000;
  const std::uint32_t lo = x % 10000;
  std::memcpy(out, &kPairs[2 * (hi / 100)], 2);
  std::memcpy(out + 2, &kPairs[2 * (hi % 100)], 2);
  std::memcpy(out + 4, &kPairs[2 * (lo / 100)], 2);
  std::memcpy(out + 6, &kPairs[2 * (lo % 100)], 2);
}

// Decimal digits of n (1 for 0), without a loop: bit_width(n) * log10(2) is the count or one less.
inline int decimal_digits(std::uint64_t n) {
  static constexpr auto kPow = [] {
    std::array<std::uint64_t, 20> t{};
    t[0] = 1;
    for (std::size_t i = 1; i < t.size(); ++i)
      t[i] = t[i - 1] * 10;
    return t;
  }();
  const int guess = (static_cast<int>(std::bit_width(n | 1)) * 1233) >> 12;  // <= 19
  return guess + (n >= kPow[static_cast<std::size_t>(guess)] ? 1 : 0);
}

}  // namespace

char* write_fixed(char* out, std::uint64_t n, int p) {
  // n's 17 digits (leading zeros) at d[24, 41) after 24 zeros, so that the fraction's p <= 20
  // digits are d[41 - p, 41); the pieces are moved by copies of a fixed 24 bytes (inline, no
  // call), which may write past the returned end (kNumberChars leaves room).
  char d[64];
  std::memset(d, '0', sizeof d);
  const std::uint64_t hi = n / 100000000;
  d[24] = static_cast<char>('0' + hi / 100000000);
  write8(d + 25, static_cast<std::uint32_t>(hi % 100000000));
  write8(d + 33, static_cast<std::uint32_t>(n % 100000000));
  const int len = decimal_digits(n);
  int kept = p;  // fractional digits without the trailing zeros
  while (kept > 0 && d[41 - p + kept - 1] == '0')
    --kept;
  if (len > p) {
    std::memcpy(out, d + 41 - len, 24);
    out += len - p;
  } else {
    *out++ = '0';
  }
  if (kept == 0) return out;
  *out = '.';
  std::memcpy(out + 1, d + 41 - p, 24);
  return out + 1 + kept;
}

// The writing of doubles (fmt's shortest round trip, dragonbox) was a sixth of the rows' cost.
// A time of n ns is written n * 1e-9; when that double is also the one nearest to the decimal
// n / 10^9 (n / 1e9 is correctly rounded), that decimal is what the search finds: it reads back
// to the double, and it is the only decimal of at most 15 significant digits that does (two of
// them differ by more than 1e-15 relative, the double's rounding interval is narrower than
// 2.3e-16 relative), so no shorter one exists. Times from 1e-4 s (fmt's fixed notation starts at
// 1e-4) to 1e6 s (15 digits of ns) qualify. The others from 1e-4 s to 1e7 s (16 digits of ns;
// fmt's fixed notation goes on to 1e16) take write_shortest, told that below 1e6 s nothing under
// 16 digits reads back; the rest (and what write_shortest leaves) goes to fmt.
char* write_seconds(char* out, std::int64_t ns) {
  const double v = Time::from_ns(ns).to_seconds();
  if (ns < 100000 || ns >= 10000000000000000) return fmt::format_to(out, FMT_COMPILE("{}"), v);
  const bool exact = v == static_cast<double>(ns) / 1e9;
  if (!exact || ns >= 1000000000000000) {
    // ns of d digits: v within 1.2 ulp of ns / 10^9, in [10^(d - 10), 10^(d - 9)) but perhaps
    // at 10^(d - 9) itself when d = 16 (write_shortest then finds no decimal of d - 9 digits
    // before the point and leaves it to fmt).
    const int e10 = decimal_digits(static_cast<std::uint64_t>(ns)) - 10;
    const int min_digits = exact || ns >= 1000000000000000 ? 1 : 16;
    if (char* const end = write_shortest(out, v, e10, min_digits)) return end;
    return fmt::format_to(out, FMT_COMPILE("{}"), v);
  }
  return write_fixed(out, static_cast<std::uint64_t>(ns), 9);
}

// Exact integer arithmetic. A double v = M * 2^-s (M > 2^52: v's neighbours are both 2^-s away)
// reads back from every decimal closer to it than half an ulp, 2^-s / 2 (at exactly half an ulp
// it depends on M's parity: left to fmt). The decimal of L significant digits nearest to v has p
// = L - 1 - e10 fractional digits: v * 10^p = M * 10^p / 2^s has integer part Q and remainder R
// (over 2^s), so it is N = Q or Q + 1, at a distance of R or 2^s - R (over 2^s, in units of
// 10^-p), which reads back when twice the distance is below 10^p. If any decimal of L digits
// reads back, the nearest does (the interval is symmetric), and then one of L + 1 digits does:
// the shortest length is the first L whose nearest decimal reads back, found from 16 down or
// up to 17 (always enough). Among the shortest, fmt's dragonbox takes the one nearest to v,
// which is N. A decimal with no fractional digit would be an integer, and below 2^53 an integer
// reads back only to itself: v, if integral, is left to fmt, so p >= 1.
// tests/network/flows_number_test.cpp compares this with fmt.
char* write_shortest(char* out, double v, int e10, int min_digits) {
  __extension__ using U128 = unsigned __int128;
  static constexpr auto kPow10 = [] {
    std::array<U128, 24> p{};
    p[0] = 1;
    for (std::size_t i = 1; i < p.size(); ++i)
      p[i] = p[i - 1] * 10;
    return p;
  }();
  const auto bits = std::bit_cast<std::uint64_t>(v);
  const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
  const auto biased = static_cast<int>(bits >> 52);  // v > 0: no sign bit
  const int s = 1075 - biased;                       // v < 2^53: s >= 1
  if (fraction == 0 || biased == 0 || s < 1 || s > 80 || e10 < -4 || e10 > 15 || v != v ||
      std::floor(v) == v) {
    return nullptr;
  }
  const std::uint64_t m = fraction | (std::uint64_t{1} << 52);
  const U128 one = U128{1} << s;
  const U128 half = one >> 1;
  const int lowest = std::max(min_digits, e10 + 2);  // p >= 1
  // 1: N (with p fractional digits) reads back; 0: it does not; -1: a tie, undecided.
  const auto nearest = [&](int digits, std::uint64_t& n, int& p) {
    p = digits - 1 - e10;  // 1..20
    const U128 pow = kPow10[static_cast<std::size_t>(p)];
    const U128 x = U128{m} * pow;  // < 2^53 * 10^20 < 2^120
    const U128 r = x & (one - 1);
    const bool up = r > half;
    const U128 twice_distance = 2 * (up ? one - r : r);
    if (twice_distance > pow) return 0;
    // Reading back: at half an ulp exactly, or two nearest (a tie, then both read back).
    if (twice_distance == pow || r == half) return -1;
    const U128 q = (x >> s) + (up ? 1 : 0);
    if (q < kPow10[static_cast<std::size_t>(digits - 1)] ||
        q >= kPow10[static_cast<std::size_t>(digits)]) {
      return -1;  // not in [10^e10, 10^(e10 + 1)) after all
    }
    n = static_cast<std::uint64_t>(q);
    return 1;
  };
  std::uint64_t n = 0;
  int p = 0;
  int digits = std::max(16, lowest);
  if (digits > 17) return nullptr;
  int found = nearest(digits, n, p);
  if (found < 0) return nullptr;
  if (found == 1) {
    // Shorter ones, while they read back.
    for (int d = digits - 1; d >= lowest; --d) {
      std::uint64_t shorter_n = 0;
      int shorter_p = 0;
      const int r = nearest(d, shorter_n, shorter_p);
      if (r < 0) return nullptr;
      if (r == 0) break;
      n = shorter_n;
      p = shorter_p;
    }
  } else {
    if (digits == 17) return nullptr;
    if (nearest(17, n, p) != 1) return nullptr;
  }
  return write_fixed(out, n, p);
}

char* write_double(char* out, double v) {
  // An integer of at most 15 digits is its own shortest decimal (the argument above).
  if (v >= 1.0 && v < 1e15 && v == std::floor(v)) {
    return fmt::format_to(out, FMT_COMPILE("{}"), static_cast<std::uint64_t>(v));
  }
  return fmt::format_to(out, FMT_COMPILE("{}"), v);
}

}  // namespace detail

std::vector<FlowResult> simulate_flows(const Topology& topology,
                                       const std::vector<FlowSpec>& flows) {
  const auto outcomes = run_flows(topology, flows);
  std::vector<FlowResult> results(flows.size());
  for (std::size_t i = 0; i < flows.size(); ++i) {
    results[i].spec = flows[i];
    results[i].finish = outcomes[i].finish;
    results[i].spine = spine_name(topology, outcomes[i].spine);
  }
  return results;
}

void write_flow_results(std::ostream& out, const Topology& topology,
                        const std::vector<FlowResult>& results) {
  RowFormatter format_row(topology);
  struct Rows {
    const std::vector<FlowResult>& results;
    RowFormatter& format;
    [[nodiscard]] std::size_t room(std::size_t i) const {
      return format.room(results[i].spine.size() + 1);
    }
    char* operator()(char* out, std::size_t i) const {
      return format(out, results[i].spec, results[i].finish, std::string_view(results[i].spine));
    }
  };
  write_rows(out, results.size(), Rows{results, format_row});
}

std::size_t run_flows_tool(const std::string& topology_path, const std::string& flows_path,
                           std::ostream& out) {
  const Topology topology = load_topology_file(topology_path);
  std::ifstream in(flows_path);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open the flows file", flows_path));
  std::error_code size_error;
  const std::uintmax_t size = std::filesystem::file_size(flows_path, size_error);
  const FlowList flows = read_flows<FlowList>(in, flows_path, topology, size_error ? 0 : size);
  // The same rows as write_flow_results(simulate_flows(...)), without building FlowResults.
  const auto outcomes = run_flows(topology, flows);
  RowFormatter format_row(topology);
  struct Rows {
    const FlowList& flows;
    const std::vector<Outcome, HugePageAllocator<Outcome>>& outcomes;
    RowFormatter& format;
    std::size_t room_all;
    [[nodiscard]] std::size_t room(std::size_t /*i*/) const { return room_all; }
    char* operator()(char* out, std::size_t i) const {
      return format(out, flows[i], outcomes[i].finish, outcomes[i].spine);
    }
  };
  write_rows(out, flows.size(), Rows{flows, outcomes, format_row, format_row.room()});
  return flows.size();
}

std::size_t run_flows_tool(const std::string& topology_path, const std::string& flows_path,
                           const std::string& out_path) {
  namespace fs = std::filesystem;
  const fs::path target(out_path);
  fs::path tmp = target;
  tmp += ".tmp";
  std::size_t n = 0;
  {
    std::ofstream out(tmp);
    if (!out)
      throw std::runtime_error(fmt::format("{}: cannot write the output file", tmp.string()));
    try {
      n = run_flows_tool(topology_path, flows_path, out);
    } catch (...) {
      out.close();
      std::error_code ec;
      fs::remove(tmp, ec);
      throw;
    }
    out.flush();
    if (!out) throw std::runtime_error(fmt::format("{}: write failed", tmp.string()));
  }
  fs::rename(tmp, target);
  return n;
}

}  // namespace sim::net
