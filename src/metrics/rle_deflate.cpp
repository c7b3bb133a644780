#include "rle_deflate.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#include <libdeflate.h>

namespace sim::metrics::h5 {

namespace {

constexpr int kLitLenSymbols = 286;  // 0-255 literals, 256 end of block, 257-285 lengths
constexpr int kEndOfBlock = 256;
constexpr std::size_t kMaxMatch = 258;
constexpr std::size_t kMaxStored = 65535;

struct LengthCode {
  std::uint16_t symbol;
  std::uint8_t extra_bits;
  std::uint8_t extra;
};

// Match length - 3 -> its length symbol and extra bits (RFC 1951, 3.2.5; 258 is symbol 285).
constexpr std::array<LengthCode, 256> make_length_codes() {
  constexpr int base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                            31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
  constexpr int bits[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                            2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
  std::array<LengthCode, 256> t{};
  int k = 0;
  for (int len = 3; len <= 258; ++len) {
    while (k + 1 < 29 && base[k + 1] <= len)
      ++k;
    t[static_cast<std::size_t>(len - 3)] = {static_cast<std::uint16_t>(257 + k),
                                            static_cast<std::uint8_t>(bits[k]),
                                            static_cast<std::uint8_t>(len - base[k])};
  }
  return t;
}
constexpr auto kLengthCodes = make_length_codes();

// The order in which the code-length code's lengths are sent (RFC 1951, 3.2.7).
constexpr std::array<std::uint8_t, 19> kCodeLengthOrder = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                                           11, 4,  12, 3, 13, 2, 14, 1, 15};

std::uint16_t reverse_bits(std::uint32_t code, int length) {
  std::uint32_t r = 0;
  for (int i = 0; i < length; ++i) {
    r = (r << 1) | (code & 1U);
    code >>= 1;
  }
  return static_cast<std::uint16_t>(r);
}

// Canonical Huffman codes for `lengths` (RFC 1951, 3.2.2), bit-reversed: deflate sends a code
// from its most significant bit, the bit writer from the least.
void canonical_codes(const std::uint8_t* lengths, int n, std::uint16_t* codes) {
  int count[16] = {};
  for (int s = 0; s < n; ++s)
    ++count[lengths[s]];
  count[0] = 0;
  std::uint32_t next[16] = {};
  std::uint32_t code = 0;
  for (int bits = 1; bits < 16; ++bits) {
    code = (code + static_cast<std::uint32_t>(count[bits - 1])) << 1;
    next[bits] = code;
  }
  for (int s = 0; s < n; ++s) {
    codes[s] = lengths[s] != 0 ? reverse_bits(next[lengths[s]]++, lengths[s]) : 0;
  }
}

struct SymbolKey {
  std::uint32_t key;  // the frequency, then the code length
  std::uint16_t symbol;
};

// Moffat and Katajainen's in-place minimum-redundancy code lengths (A. Moffat, J. Katajainen,
// "In-place calculation of minimum-redundancy codes", WADS 1995, LNCS 955, pp. 393-402; the three
// phases of the paper's algorithm: combine, then parent pointers to depths, then depths to
// leaf lengths): `a` sorted by ascending frequency in, each entry's key its code length out.
void minimum_redundancy(SymbolKey* a, int n) {
  if (n == 1) {
    a[0].key = 1;
    return;
  }
  a[0].key += a[1].key;
  int root = 0;
  int leaf = 2;
  for (int next = 1; next < n - 1; ++next) {
    if (leaf >= n || a[root].key < a[leaf].key) {
      a[next].key = a[root].key;
      a[root++].key = static_cast<std::uint32_t>(next);
    } else {
      a[next].key = a[leaf++].key;
    }
    if (leaf >= n || (root < next && a[root].key < a[leaf].key)) {
      a[next].key += a[root].key;
      a[root++].key = static_cast<std::uint32_t>(next);
    } else {
      a[next].key += a[leaf++].key;
    }
  }
  a[n - 2].key = 0;
  for (int next = n - 3; next >= 0; --next)
    a[next].key = a[a[next].key].key + 1;
  int available = 1;
  int used = 0;
  std::uint32_t depth = 0;
  root = n - 2;
  int next = n - 1;
  while (available > 0) {
    while (root >= 0 && a[root].key == depth) {
      ++used;
      --root;
    }
    while (available > used) {
      a[next--].key = depth;
      --available;
    }
    available = 2 * used;
    ++depth;
    used = 0;
  }
}

// Code lengths for the n symbols' frequencies, none above max_bits, forming a complete code
// over two symbols at least (a one-symbol code is incomplete, which some inflaters refuse):
// unused symbols get length 0. Ties are broken by the symbol, so the lengths are a function
// of the frequencies.
void huffman_lengths(const std::uint32_t* freq, int n, int max_bits, std::uint8_t* lengths) {
  std::array<SymbolKey, kLitLenSymbols> a{};
  int used = 0;
  for (int s = 0; s < n; ++s) {
    if (freq[s] != 0)
      a[static_cast<std::size_t>(used++)] = {freq[s], static_cast<std::uint16_t>(s)};
  }
  for (int s = 0; used < 2; ++s) {
    if (freq[s] == 0) a[static_cast<std::size_t>(used++)] = {1, static_cast<std::uint16_t>(s)};
  }
  std::sort(a.begin(), a.begin() + used, [](const SymbolKey& x, const SymbolKey& y) {
    return x.key != y.key ? x.key < y.key : x.symbol < y.symbol;
  });
  minimum_redundancy(a.data(), used);
  // Codes longer than max_bits moved to max_bits, then the Kraft sum brought back to one: each
  // step drops a code of max_bits and splits a shorter one in two (the usual repair of a
  // length-limited Huffman code, as in zlib's and miniz's encoders; not optimal, always valid).
  std::array<int, kLitLenSymbols + 1> count{};
  for (int i = 0; i < used; ++i)
    ++count[std::min<std::uint32_t>(a[static_cast<std::size_t>(i)].key,
                                    static_cast<std::uint32_t>(max_bits))];
  std::uint32_t total = 0;
  for (int bits = max_bits; bits > 0; --bits)
    total += static_cast<std::uint32_t>(count[static_cast<std::size_t>(bits)]) << (max_bits - bits);
  while (total != (1U << max_bits)) {
    --count[static_cast<std::size_t>(max_bits)];
    for (int bits = max_bits - 1; bits > 0; --bits) {
      if (count[static_cast<std::size_t>(bits)] != 0) {
        --count[static_cast<std::size_t>(bits)];
        count[static_cast<std::size_t>(bits + 1)] += 2;
        break;
      }
    }
    --total;
  }
  // The most frequent symbols get the shortest codes.
  std::fill(lengths, lengths + n, std::uint8_t{0});
  int j = used;
  for (int bits = 1; bits <= max_bits; ++bits) {
    for (int c = count[static_cast<std::size_t>(bits)]; c > 0; --c)
      lengths[a[static_cast<std::size_t>(--j)].symbol] = static_cast<std::uint8_t>(bits);
  }
}

// Least significant bit first, as deflate packs its bits; at most 32 bits a call.
class BitWriter {
 public:
  explicit BitWriter(std::uint8_t* out) : p_(out) {}
  void put(std::uint32_t bits, unsigned count) {
    buffer_ |= static_cast<std::uint64_t>(bits) << filled_;
    filled_ += count;
    if (filled_ >= 32) {
      store32(static_cast<std::uint32_t>(buffer_));
      buffer_ >>= 32;
      filled_ -= 32;
    }
  }
  // Pads to a byte boundary and writes out what is buffered.
  void align() {
    while (filled_ > 0) {
      *p_++ = static_cast<std::uint8_t>(buffer_);
      buffer_ >>= 8;
      filled_ = filled_ > 8 ? filled_ - 8 : 0;
    }
  }
  // Only after align().
  void copy(const std::uint8_t* data, std::size_t n) {
    std::memcpy(p_, data, n);
    p_ += n;
  }
  [[nodiscard]] std::uint8_t* position() const { return p_; }

 private:
  void store32(std::uint32_t v) {
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(p_, &v, 4);
    } else {
      for (int i = 0; i < 4; ++i)
        p_[i] = static_cast<std::uint8_t>(v >> (8 * i));
    }
    p_ += 4;
  }

  std::uint8_t* p_;
  std::uint64_t buffer_ = 0;
  unsigned filled_ = 0;
};

// The fixed Huffman code's literal/length lengths (RFC 1951, 3.2.6) and its codes.
struct FixedCode {
  std::array<std::uint8_t, 288> lengths{};
  std::array<std::uint16_t, 288> codes{};
  FixedCode() {
    for (std::size_t s = 0; s < 288; ++s)
      lengths[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
    canonical_codes(lengths.data(), 288, codes.data());
  }
};
const FixedCode& fixed_code() {
  static const FixedCode code;
  return code;
}

// The end of the run of p[i] that starts at i, eight bytes at a time.
inline std::size_t run_end(const std::uint8_t* p, std::size_t i, std::size_t m) {
  const std::uint64_t pattern = p[i] * 0x0101010101010101ULL;
  std::size_t j = i + 1;
  for (; j + 8 <= m; j += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + j, 8);
    w ^= pattern;
    if (w != 0) {
      if constexpr (std::endian::native == std::endian::little) {
        return j + static_cast<std::size_t>(std::countr_zero(w)) / 8;
      } else {
        return j + static_cast<std::size_t>(std::countl_zero(w)) / 8;
      }
    }
  }
  while (j < m && p[j] == p[i])
    ++j;
  return j;
}

// With p[0..9) readable: the first k in [0, 6) where four equal bytes start (p[k] == p[k + 1]
// == p[k + 2] == p[k + 3]), or 6 if none does, from two overlapping words.
inline unsigned first_run_of_four(const std::uint8_t* p) {
  std::uint64_t a;
  std::uint64_t b;
  std::memcpy(&a, p, 8);
  std::memcpy(&b, p + 1, 8);
  const std::uint64_t d = a ^ b;  // byte k is zero where p[k] == p[k + 1]
  constexpr std::uint64_t kLow7 = 0x7F7F7F7F7F7F7F7FULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  const std::uint64_t equal = ~(((d & kLow7) + kLow7) | d) & kHigh;
  const std::uint64_t run = equal & (equal >> 8) & (equal >> 16) & 0x0000808080808080ULL;
  return run != 0 ? static_cast<unsigned>(std::countr_zero(run)) / 8 : 6;
}

// A block's tokens (RleDeflate::tokens_) and their statistics.
struct BlockTokens {
  std::array<std::uint32_t, kLitLenSymbols> freq{};  // literal/length symbols, end of block too
  std::uint64_t extra_bits = 0;                      // the length symbols' extra bits
  std::uint64_t matches = 0;                         // each also codes distance 1
  const std::uint16_t* end = nullptr;
};

// Cuts p[0..m) into tokens written from t: a run of r >= 4 equal bytes is a literal and matches
// at distance 1 (at most kMaxMatch each), anything shorter literals.
void tokenize(const std::uint8_t* p, std::size_t m, std::uint16_t* t, BlockTokens& block) {
  auto& freq = block.freq;
  for (std::size_t i = 0; i < m;) {
    if constexpr (std::endian::native == std::endian::little) {
      // Literals in bulk up to where a run of four starts (nearly random planes): the same
      // tokens as run by run, since no run of four or more starts before it.
      if (i + 9 <= m) {
        const unsigned k = first_run_of_four(p + i);
        if (k > 0) {
          for (unsigned j = 0; j < k; ++j) {
            *t++ = p[i + j];
            ++freq[p[i + j]];
          }
          i += k;
          continue;
        }
      }
    }
    const std::uint8_t v = p[i];
    const std::size_t end = run_end(p, i, m);
    std::size_t r = end - i;
    i = end;
    if (r >= 4) {
      *t++ = v;
      ++freq[v];
      r -= 1;
      for (; r >= kMaxMatch; r -= kMaxMatch) {
        *t++ = static_cast<std::uint16_t>(256 + kMaxMatch - 3);
        ++freq[285];
        ++block.matches;
      }
      if (r >= 3) {
        const LengthCode& lc = kLengthCodes[r - 3];
        *t++ = static_cast<std::uint16_t>(256 + r - 3);
        ++freq[lc.symbol];
        block.extra_bits += lc.extra_bits;
        ++block.matches;
        r = 0;
      }
    }
    freq[v] += static_cast<std::uint32_t>(r);
    for (; r > 0; --r)
      *t++ = v;
  }
  block.end = t;
  freq[kEndOfBlock] = 1;
}

// The block's size in bits with the fixed Huffman code.
std::uint64_t fixed_size(const BlockTokens& block) {
  const FixedCode& fixed = fixed_code();
  std::uint64_t size = 3 + block.extra_bits + 5 * block.matches;
  for (std::size_t s = 0; s < kLitLenSymbols; ++s)
    size += static_cast<std::uint64_t>(block.freq[s]) * fixed.lengths[s];
  return size;
}

// A dynamic Huffman header (RFC 1951, 3.2.7): the literal/length code, two distance codes of
// one bit (a complete code; only distance 1, code 0, is used) and the code lengths' own
// run-length code.
struct DynamicCode {
  std::array<std::uint8_t, kLitLenSymbols + 2> lengths{};  // literal/length, then distance
  int hlit = kLitLenSymbols;
  // (symbol, extra bits' value) of the code-length sequence.
  std::array<std::pair<std::uint8_t, std::uint8_t>, kLitLenSymbols + 2> cl_seq{};
  int cl_n = 0;
  std::array<std::uint32_t, 19> cl_freq{};
  std::array<std::uint8_t, 19> cl_lengths{};
  int hclen = 19;
  std::uint64_t size = 0;  // the block's size in bits with this code
};

// Appends (symbol, extra) to the code-length sequence.
void add_code_length(DynamicCode& code, std::uint8_t symbol, std::uint8_t extra) {
  code.cl_seq[static_cast<std::size_t>(code.cl_n++)] = {symbol, extra};
  ++code.cl_freq[symbol];
}

// The code lengths as a sequence of lengths and repeats: 16 repeats the previous length 3-6
// times, 17 and 18 repeat zero 3-10 and 11-138 times.
void run_length_code(DynamicCode& code) {
  const int all = code.hlit + 2;
  for (int i = 0; i < all;) {
    const std::uint8_t v = code.lengths[static_cast<std::size_t>(i)];
    int r = 1;
    while (i + r < all && code.lengths[static_cast<std::size_t>(i + r)] == v)
      ++r;
    i += r;
    if (v == 0) {
      for (; r >= 11; r -= std::min(r, 138))
        add_code_length(code, 18, static_cast<std::uint8_t>(std::min(r, 138) - 11));
      if (r >= 3) {
        add_code_length(code, 17, static_cast<std::uint8_t>(r - 3));
        r = 0;
      }
    } else {
      add_code_length(code, v, 0);
      --r;
      for (; r >= 3; r -= std::min(r, 6))
        add_code_length(code, 16, static_cast<std::uint8_t>(std::min(r, 6) - 3));
    }
    for (; r > 0; --r)
      add_code_length(code, v, 0);
  }
}

void build_dynamic_code(const BlockTokens& block, DynamicCode& code) {
  huffman_lengths(block.freq.data(), kLitLenSymbols, 15, code.lengths.data());
  while (code.hlit > 257 && code.lengths[static_cast<std::size_t>(code.hlit - 1)] == 0)
    --code.hlit;
  code.lengths[static_cast<std::size_t>(code.hlit)] = 1;  // distance codes 0 and 1 follow
  code.lengths[static_cast<std::size_t>(code.hlit + 1)] = 1;
  run_length_code(code);
  huffman_lengths(code.cl_freq.data(), 19, 7, code.cl_lengths.data());
  while (code.hclen > 4 &&
         code.cl_lengths[kCodeLengthOrder[static_cast<std::size_t>(code.hclen - 1)]] == 0)
    --code.hclen;
  code.size = 3 + 5 + 5 + 4 + 3 * static_cast<std::uint64_t>(code.hclen) + block.extra_bits +
              block.matches + 2 * code.cl_freq[16] + 3 * code.cl_freq[17] + 7 * code.cl_freq[18];
  for (std::size_t s = 0; s < 19; ++s)
    code.size += static_cast<std::uint64_t>(code.cl_freq[s]) * code.cl_lengths[s];
  for (std::size_t s = 0; s < kLitLenSymbols; ++s)
    code.size += static_cast<std::uint64_t>(block.freq[s]) * code.lengths[s];
}

// The header of a dynamic block, after its three block bits.
void write_dynamic_header(BitWriter& w, const DynamicCode& code) {
  w.put(static_cast<std::uint32_t>(code.hlit - 257), 5);
  w.put(1, 5);  // two distance codes
  w.put(static_cast<std::uint32_t>(code.hclen - 4), 4);
  for (int i = 0; i < code.hclen; ++i)
    w.put(code.cl_lengths[kCodeLengthOrder[static_cast<std::size_t>(i)]], 3);
  std::array<std::uint16_t, 19> cl_codes{};
  canonical_codes(code.cl_lengths.data(), 19, cl_codes.data());
  for (int i = 0; i < code.cl_n; ++i) {
    const auto [sym, extra] = code.cl_seq[static_cast<std::size_t>(i)];
    w.put(cl_codes[sym], code.cl_lengths[sym]);
    if (sym >= 16) w.put(extra, sym == 16 ? 2U : sym == 17 ? 3U : 7U);
  }
}

// p[0..m) as stored blocks of at most kMaxStored bytes; the last is final if `final`.
void write_stored(BitWriter& w, const std::uint8_t* p, std::size_t m, std::uint32_t final) {
  const std::size_t pieces = (m + kMaxStored - 1) / kMaxStored;
  for (std::size_t k = 0; k < pieces; ++k) {
    const std::size_t len = std::min(kMaxStored, m - k * kMaxStored);
    w.put(k + 1 == pieces ? final : 0U, 3);  // stored
    w.align();
    w.put(static_cast<std::uint32_t>(len) | (static_cast<std::uint32_t>(~len & 0xFFFF) << 16), 32);
    w.copy(p + k * kMaxStored, len);
  }
}

// The tokens [q, end) and the end of block in a literal/length code; a match's distance code
// (distance 1) is `dist_bits` zero bits.
void write_tokens(BitWriter& w, const std::uint16_t* q, const std::uint16_t* end,
                  const std::uint8_t* lit_lengths, const std::uint16_t* lit_codes,
                  unsigned dist_bits) {
  constexpr std::uint32_t kDistCode = 0;
  for (; q != end; ++q) {
    if (*q < 256) {
      if (q + 1 != end && q[1] < 256) {  // two literals in one call (30 bits at most)
        w.put(lit_codes[*q] | (static_cast<std::uint32_t>(lit_codes[q[1]]) << lit_lengths[*q]),
              static_cast<unsigned>(lit_lengths[*q]) + lit_lengths[q[1]]);
        ++q;
      } else {
        w.put(lit_codes[*q], lit_lengths[*q]);
      }
    } else {
      const LengthCode& lc = kLengthCodes[*q - 256U];
      const unsigned len = lit_lengths[lc.symbol];
      w.put(lit_codes[lc.symbol] | (static_cast<std::uint32_t>(lc.extra) << len) |
                (kDistCode << (len + lc.extra_bits)),
            len + lc.extra_bits + dist_bits);
    }
  }
  w.put(lit_codes[kEndOfBlock], lit_lengths[kEndOfBlock]);
}

}  // namespace

std::size_t RleDeflate::encode(std::span<const std::uint8_t> in, std::size_t block_bytes,
                               std::vector<std::uint8_t>& out) {
  const std::size_t n = in.size();
  block_bytes = std::max<std::size_t>(block_bytes, 1);
  const std::size_t blocks = n == 0 ? 1 : (n + block_bytes - 1) / block_bytes;
  // A block is never larger than stored: its data plus, per stored piece of at most 65,535
  // bytes, 3 header bits, the padding and 4 length bytes (6 bytes bound it); then the zlib
  // header and trailer.
  const std::size_t bound = n + 6 * (n / kMaxStored + blocks + 1) + 16;
  if (out.size() < bound) out.resize(bound);
  out[0] = 0x78;  // deflate, 32 KB window
  out[1] = 0x01;  // no dictionary, "fastest" level; 0x7801 is a multiple of 31
  BitWriter w(out.data() + 2);
  if (tokens_.size() < std::min(n, block_bytes)) tokens_.resize(std::min(n, block_bytes));

  const FixedCode& fixed = fixed_code();
  if (n == 0) {
    w.put(1U | (1U << 1), 3);  // final, fixed Huffman
    w.put(fixed.codes[kEndOfBlock], fixed.lengths[kEndOfBlock]);
  }
  for (std::size_t b = 0; b < blocks && n > 0; ++b) {
    const std::uint8_t* p = in.data() + b * block_bytes;
    const std::size_t m = std::min(block_bytes, n - b * block_bytes);
    const std::uint32_t final = b + 1 == blocks ? 1U : 0U;
    BlockTokens block;
    tokenize(p, m, tokens_.data(), block);
    const std::uint64_t fixed_bits = fixed_size(block);
    DynamicCode dynamic;
    build_dynamic_code(block, dynamic);
    // Stored's size (an upper bound: 3 header bits and up to 7 of padding a piece).
    const std::size_t pieces = (m + kMaxStored - 1) / kMaxStored;
    const std::uint64_t stored_bits = 8 * static_cast<std::uint64_t>(m) + 42 * pieces;
    // Whichever of the three is smallest.
    if (stored_bits < std::min(fixed_bits, dynamic.size)) {
      write_stored(w, p, m, final);
    } else if (dynamic.size <= fixed_bits) {
      w.put(final | (2U << 1), 3);
      write_dynamic_header(w, dynamic);
      std::array<std::uint16_t, kLitLenSymbols> codes{};
      canonical_codes(dynamic.lengths.data(), dynamic.hlit, codes.data());  // not the distances
      write_tokens(w, tokens_.data(), block.end, dynamic.lengths.data(), codes.data(), 1);
    } else {
      w.put(final | (1U << 1), 3);
      write_tokens(w, tokens_.data(), block.end, fixed.lengths.data(), fixed.codes.data(), 5);
    }
  }
  w.align();
  std::uint8_t* end = w.position();
  // libdeflate's adler32 (vectorised; zlib's scalar one took a third of this encoder's time).
  const std::uint32_t adler = libdeflate_adler32(1, in.data(), in.size());
  for (int i = 0; i < 4; ++i)
    *end++ = static_cast<std::uint8_t>(adler >> (24 - 8 * i));
  return static_cast<std::size_t>(end - out.data());
}

}  // namespace sim::metrics::h5
