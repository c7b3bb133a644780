// The exact number parsing and writing of `dcsim flows` (namespace detail, declared in
// sim/network/flows_tool.hpp): parse_number's fast path for plain decimals, and the writing of
// times and doubles as fmt's shortest round trip writes them, mostly without its search.
// tests/network/flows_number_test.cpp compares them with from_chars and fmt.
#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "sim/network/flows_tool.hpp"

namespace sim::net {

namespace detail {

double parse_number(std::string_view s, bool& ok) {
  // The usual cells ("499000000", "4.659492270"): digits, perhaps a point and more digits. With
  // at most 19 digits making an integer m <= 2^53 and k <= 22 after the point, m and 10^k are
  // doubles exactly and one division rounds m / 10^k correctly, as from_chars does (Clinger's
  // fast path). Anything else (an exponent, a sign, more digits) goes to from_chars.
  // Only the point's place is kept in the loop (the counts of digits follow from it and the
  // size: a count per character was half of the loop's work).
  if (const std::size_t n = s.size(); n != 0 && n <= 20) {
    constexpr std::size_t kNoPoint = ~std::size_t{0};
    std::uint64_t m = 0;
    std::size_t point = kNoPoint;
    bool plain = true;
    for (std::size_t i = 0; i < n; ++i) {
      const auto d = static_cast<unsigned>(static_cast<unsigned char>(s[i]) - '0');
      if (d <= 9) {
        m = m * 10 + d;
      } else if (s[i] == '.' && point == kNoPoint && i > 0) {
        point = i;
      } else {
        plain = false;
        break;
      }
    }
    const std::size_t digits = point == kNoPoint ? n : n - 1;
    const int after = point == kNoPoint ? -1 : static_cast<int>(n - point - 1);
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

}  // namespace sim::net
