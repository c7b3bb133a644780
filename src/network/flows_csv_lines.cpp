// The cold parts of the flows CSV's line reading (flows_csv_lines.hpp): split, for lines
// split_plain does not take (blanks, 64 characters or more), and LineReader::fill, once per
// buffer of input. Out of line: neither runs per usual line.
#include "flows_csv_lines.hpp"

#include <ios>

namespace sim::net::flows_impl {

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

void LineReader::fill() {
  if (begin_ > 0) {
    std::memmove(buf_.get(), buf_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  std::streambuf* sb = in_.good() ? in_.rdbuf() : nullptr;
  const std::streamsize got =
      sb == nullptr ? 0 : sb->sgetn(buf_.get() + end_, static_cast<std::streamsize>(size_ - end_));
  if (got <= 0) {
    eof_ = true;
    in_.setstate(std::ios::eofbit);
  } else {
    end_ += static_cast<std::size_t>(got);
  }
  pad();
}

}  // namespace sim::net::flows_impl
