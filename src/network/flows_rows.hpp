#pragma once
// The writing of `dcsim flows`' output rows (flows_tool.cpp): a row formatter that reuses the
// text of repeated fields and copies node names by fixed-size copies, and rows written through
// one bounded buffer; private to src/network.

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <ostream>
#include <string_view>
#include <vector>

#include "sim/network/flows_tool.hpp"

namespace sim::net::flows_impl {

constexpr NodeId kNoSpine = ~NodeId{0};

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
// The buffer is not zeroed (only what the rows write is ever read): a zeroed one was 32 page
// faults of a one-flow run's ~290.
template <class Row>
void write_rows(std::ostream& out, std::size_t n, const Row& row) {
  constexpr std::size_t kChunk = std::size_t{1} << 16;
  std::size_t size = 2 * kChunk;
  auto buf = std::make_unique_for_overwrite<char[]>(size);
  const std::string_view head = "id,src,dst,bytes,start_s,finish_s,duration_s,finish_ns,spine\n";
  std::memcpy(buf.get(), head.data(), head.size());
  std::size_t used = head.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t room = row.room(i);
    if (used + room > size) {
      out.write(buf.get(), static_cast<std::streamsize>(used));
      used = 0;
      if (room > size) {
        size = room;
        buf = std::make_unique_for_overwrite<char[]>(size);
      }
    }
    used = static_cast<std::size_t>(row(buf.get() + used, i) - buf.get());
    if (used >= kChunk) {
      out.write(buf.get(), static_cast<std::streamsize>(used));
      used = 0;
    }
  }
  out.write(buf.get(), static_cast<std::streamsize>(used));
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

}  // namespace sim::net::flows_impl
