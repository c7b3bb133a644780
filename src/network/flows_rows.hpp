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
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
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
// `head` is the header line, with its '\n'. The buffer is not zeroed (only what the rows write is
// ever read): a zeroed one was 32 page faults of a one-flow run's ~290.
// Pieces of 256 kB, not 64: this kernel (6.18) writes and later frees the page cache of larger
// writes in larger folios; cloud's 10.5 MB output spent ~3.4% less CPU in all (session 21,
// bench/performance-notes.md).
template <class Row>
void write_rows(std::ostream& out, std::string_view head, std::size_t n, const Row& row) {
  constexpr std::size_t kChunk = std::size_t{1} << 18;
  std::size_t size = std::max(2 * kChunk, head.size());
  auto buf = std::make_unique_for_overwrite<char[]>(size);
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

// The rows' text: the columns asked for, in their order; by default all nine,
// `id,src,dst,bytes,start_s,finish_s,duration_s,finish_ns,spine\n`. The doubles are those of
// fmt's "{}" with spec.bytes, spec.start.to_seconds(), finish.to_seconds() and
// (finish - spec.start).to_seconds(). The nine columns in their order (full()) are written by
// operator(), straight through; any other choice by selected(), a loop over the columns that
// formats only those.
class RowFormatter {
 public:
  explicit RowFormatter(const Topology& topology,
                        std::span<const FlowColumn> columns = all_flow_columns())
      : columns_(columns.begin(), columns.end()) {
    if (columns_.empty()) throw std::invalid_argument("no output column chosen");
    const auto all = all_flow_columns();
    full_ = std::equal(columns_.begin(), columns_.end(), all.begin(), all.end());
    for (const FlowColumn c : columns_) {
      head_ += flow_column_name(c);
      head_ += ',';
    }
    head_.back() = '\n';
    for (NodeId id = 0; id < topology.node_count(); ++id)
      names_.add(topology.node(id).name, ',');
    names_.done();
    for (NodeId id = 0; id < topology.node_count(); ++id)
      spines_.add(topology.node(id).name, '\n');
    spines_.add("-", '\n');  // index node_count: no spine
    spines_.done();
    no_spine_ = topology.node_count();
    for (const FlowColumn c : columns_) {
      switch (c) {
        case FlowColumn::kId:
          fixed_room_ += kIdChars + 1;
          break;
        case FlowColumn::kSrc:
        case FlowColumn::kDst:
          fixed_room_ += names_.room();
          break;
        case FlowColumn::kSpine:
          ++spine_columns_;
          break;
        default:
          fixed_room_ += detail::kNumberChars + 1;
      }
    }
  }

  // True if the columns are all nine in their order: rows by operator().
  [[nodiscard]] bool full() const { return full_; }
  // The header line, with its '\n'.
  [[nodiscard]] std::string_view head() const { return head_; }

  // Characters a row may take, with what the copies write past its end, given its spine's.
  [[nodiscard]] std::size_t room(std::size_t spine_room) const {
    if (full_) return 24 + 2 * names_.room() + 5 * (detail::kNumberChars + 1) + spine_room;
    return fixed_room_ + spine_columns_ * spine_room;
  }
  [[nodiscard]] std::size_t room() const { return room(spines_.room()); }

  // A full row whose spine is a node (kNoSpine: "-").
  char* operator()(char* out, const FlowSpec& spec, Time finish, NodeId spine) {
    out = numbers(out, spec, finish);
    return spines_.put(out, spine == kNoSpine ? no_spine_ : spine);
  }
  // A full row whose spine is any text.
  char* operator()(char* out, const FlowSpec& spec, Time finish, std::string_view spine) {
    out = numbers(out, spec, finish);
    return put_text(out, spine, '\n');
  }

  // A row of the chosen columns; Spine is NodeId (kNoSpine: "-") or std::string_view.
  template <class Spine>
  char* selected(char* out, const FlowSpec& spec, Time finish, Spine spine) {
    for (const FlowColumn c : columns_) {
      switch (c) {
        case FlowColumn::kId:
          out = fmt::format_to(out, FMT_COMPILE("{}"), spec.id);
          break;
        case FlowColumn::kSrc:
          out = names_.put(out, spec.src) - 1;  // without its ','
          break;
        case FlowColumn::kDst:
          out = names_.put(out, spec.dst) - 1;
          break;
        case FlowColumn::kBytes:
          out = bytes(out, spec);
          break;
        case FlowColumn::kStartS:
          out = seconds(out, start_, spec.start.ns());
          break;
        case FlowColumn::kFinishS:
          out = seconds(out, finish_, finish.ns());
          break;
        case FlowColumn::kDurationS:
          out = seconds(out, duration_, (finish - spec.start).ns());
          break;
        case FlowColumn::kFinishNs:
          out = finish_ns(out, finish);
          break;
        case FlowColumn::kSpine:
          if constexpr (std::is_same_v<Spine, NodeId>) {
            out = spines_.put(out, spine == kNoSpine ? no_spine_ : spine) - 1;  // without '\n'
          } else {
            out = put_text(out, spine, ',') - 1;
          }
          break;
      }
      *out++ = ',';
    }
    out[-1] = '\n';
    return out;
  }

 private:
  static constexpr std::size_t kIdChars = 23;  // an unsigned 64-bit integer takes at most 20

  static char* put_text(char* out, std::string_view text, char after) {
    std::memcpy(out, text.data(), text.size());
    out[text.size()] = after;
    return out + text.size() + 1;
  }
  char* bytes(char* out, const FlowSpec& spec) {
    return bytes_.put(out, std::bit_cast<std::uint64_t>(spec.bytes),
                      [&spec](char* o) { return detail::write_double(o, spec.bytes); });
  }
  static char* seconds(char* out, FieldMemo& memo, std::int64_t ns) {
    return memo.put(out, static_cast<std::uint64_t>(ns),
                    [ns](char* o) { return detail::write_seconds(o, ns); });
  }
  char* finish_ns(char* out, Time finish) {
    return finish_ns_.put(out, static_cast<std::uint64_t>(finish.ns()), [&finish](char* o) {
      return fmt::format_to(o, FMT_COMPILE("{}"), finish.ns());
    });
  }

  // The full row up to its spine.
  char* numbers(char* out, const FlowSpec& spec, Time finish) {
    out = fmt::format_to(out, FMT_COMPILE("{}"), spec.id);
    *out++ = ',';
    out = names_.put(out, spec.src);
    out = names_.put(out, spec.dst);
    const auto field = [&out](char* e) {
      *e = ',';
      out = e + 1;
    };
    field(bytes(out, spec));
    field(seconds(out, start_, spec.start.ns()));
    field(seconds(out, finish_, finish.ns()));
    field(seconds(out, duration_, (finish - spec.start).ns()));
    field(finish_ns(out, finish));
    return out;
  }

  std::vector<FlowColumn> columns_;
  bool full_ = false;
  std::string head_;
  std::size_t fixed_room_ = 0;     // room of the chosen columns but the spine
  std::size_t spine_columns_ = 0;  // times the spine is chosen
  PaddedTexts names_;              // "name,"
  PaddedTexts spines_;             // "name\n", and "-\n" last
  std::size_t no_spine_ = 0;
  FieldMemo bytes_, start_, finish_, duration_, finish_ns_;
};

}  // namespace sim::net::flows_impl
