#include "sim/traces/text_reader.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

#include "sim/traces/trace_error.hpp"

namespace sim::traces {

namespace {
constexpr std::size_t kBufferBytes = std::size_t{1} << 17;

bool is_space(int c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
}  // namespace

TextReader::TextReader(std::string path) : path_(std::move(path)), buffer_(kBufferBytes) {
  gz_ = gzopen(path_.c_str(), "rb");
  if (gz_ == nullptr) {
    throw TraceError(path_, 0, std::string("cannot open: ") + std::strerror(errno));
  }
  gzbuffer(gz_, static_cast<unsigned>(kBufferBytes));
}

TextReader::~TextReader() {
  if (gz_ != nullptr) gzclose(gz_);
}

bool TextReader::fill() {
  if (eof_) return false;
  const int n = gzread(gz_, buffer_.data(), static_cast<unsigned>(buffer_.size()));
  if (n < 0) {
    int err = 0;
    const char* msg = gzerror(gz_, &err);
    throw TraceError(path_, line_, std::string("read error: ") + (msg != nullptr ? msg : "?"));
  }
  if (n == 0) {
    // zlib ends a gzip stream that was cut short (no trailer) like a complete one and says so
    // only through gzerror: a truncated download must not be read as a shorter valid trace.
    int err = Z_OK;
    gzerror(gz_, &err);
    if (err == Z_BUF_ERROR) {
      throw TraceError(path_, line_,
                       "the compressed file ends early (truncated gzip stream, its trailer is "
                       "missing): the file is incomplete");
    }
    eof_ = true;
    return false;
  }
  pos_ = 0;
  end_ = static_cast<std::size_t>(n);
  return true;
}

int TextReader::get() {
  if (pos_ == end_ && !fill()) return -1;
  return static_cast<unsigned char>(buffer_[pos_++]);
}

int TextReader::peek() {
  if (pos_ == end_ && !fill()) return -1;
  return static_cast<unsigned char>(buffer_[pos_]);
}

std::string TextReader::peek_prefix(std::size_t max_bytes) {
  if (pos_ == end_) fill();
  return std::string(buffer_.data() + pos_, std::min(max_bytes, end_ - pos_));
}

bool TextReader::next_line(std::string& line) {
  line.clear();
  if (peek() < 0) return false;
  ++line_;
  while (true) {
    if (pos_ == end_ && !fill()) break;
    // Copy up to the next newline in one go.
    const char* begin = buffer_.data() + pos_;
    const void* nl = std::memchr(begin, '\n', end_ - pos_);
    const std::size_t n = nl != nullptr
                              ? static_cast<std::size_t>(static_cast<const char*>(nl) - begin)
                              : end_ - pos_;
    if (line.size() + n > kMaxLineBytes) {
      throw TraceError(path_, line_,
                       "line longer than " + std::to_string(kMaxLineBytes >> 20) +
                           " MiB: not a trace file of a supported layout");
    }
    line.append(begin, n);
    pos_ += n;
    if (nl != nullptr) {
      ++pos_;
      break;
    }
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  at_line_start_ = true;
  return true;
}

bool TextReader::next_token(std::string& token) {
  token.clear();
  int c = 0;
  while (true) {
    c = get();
    if (c < 0) return false;
    if (at_line_start_) {
      ++line_;
      at_line_start_ = false;
    }
    if (c == '\n') {
      at_line_start_ = true;
      continue;
    }
    if (!is_space(c)) break;
  }
  token.push_back(static_cast<char>(c));
  while (true) {
    c = peek();
    if (c < 0 || is_space(c)) break;
    if (token.size() >= kMaxTokenBytes) {
      throw TraceError(path_, line_,
                       "value longer than " + std::to_string(kMaxTokenBytes) + " characters");
    }
    token.push_back(static_cast<char>(c));
    ++pos_;
  }
  return true;
}

void split_fields(const std::string& line, char delimiter, std::vector<std::string>& fields) {
  std::size_t n = 0;
  std::size_t begin = 0;
  while (true) {
    std::size_t end = line.find(delimiter, begin);
    const bool last = end == std::string::npos;
    if (last) end = line.size();
    std::size_t b = begin;
    std::size_t e = end;
    while (b < e && (line[b] == ' ' || line[b] == '\t'))
      ++b;
    while (e > b && (line[e - 1] == ' ' || line[e - 1] == '\t'))
      --e;
    if (n < fields.size()) {
      fields[n].assign(line, b, e - b);
    } else {
      fields.emplace_back(line, b, e - b);
    }
    ++n;
    if (last) break;
    begin = end + 1;
  }
  fields.resize(n);
}

bool parse_count(const std::string& text, std::uint64_t& out) {
  if (text.empty()) return false;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (*first == '+') ++first;
  const auto [ptr, ec] = std::from_chars(first, last, out);
  return ec == std::errc() && ptr == last;
}

bool parse_real(const std::string& text, double& out) {
  if (text.empty()) return false;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (*first == '+') ++first;
  const auto [ptr, ec] = std::from_chars(first, last, out);
  return ec == std::errc() && ptr == last && std::isfinite(out);
}

namespace {
bool digits(const std::string& s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(int y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return static_cast<std::int64_t>(era) * 146097 + doe - 719468;
}

int days_in_month(int year, int month) {
  static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}
}  // namespace

bool parse_datetime(const std::string& text, double& seconds_since_epoch) {
  // YYYY-MM-DD[ T]HH:MM:SS[.fff][Z]
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (text.size() < 19 || !digits(text, 0, 4, y) || text[4] != '-' || !digits(text, 5, 2, mo) ||
      text[7] != '-' || !digits(text, 8, 2, d) || (text[10] != ' ' && text[10] != 'T') ||
      !digits(text, 11, 2, h) || text[13] != ':' || !digits(text, 14, 2, mi) || text[16] != ':' ||
      !digits(text, 17, 2, s)) {
    return false;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || s > 60) {
    return false;  // 2010-02-30 is an error, not March 2
  }
  double frac = 0.0;
  std::size_t pos = 19;
  if (pos < text.size() && text[pos] == '.') {
    std::size_t e = pos + 1;
    while (e < text.size() && text[e] >= '0' && text[e] <= '9')
      ++e;
    if (e == pos + 1) return false;
    // Digits after the point, as a fraction: ".25" -> 0.25.
    double scale = 0.1;
    for (std::size_t i = pos + 1; i < e; ++i, scale *= 0.1)
      frac += scale * (text[i] - '0');
    pos = e;
  }
  if (pos < text.size() && text[pos] == 'Z') ++pos;
  if (pos != text.size()) return false;
  seconds_since_epoch = static_cast<double>(days_from_civil(y, mo, d)) * 86400.0 +
                        static_cast<double>(h * 3600 + mi * 60 + s) + frac;
  return true;
}

}  // namespace sim::traces
