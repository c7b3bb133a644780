#include "hdf5_chunk_encoder.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "rle_deflate.hpp"
#include "sim/engine/random.hpp"

namespace sim::metrics::h5 {
namespace {

// zlib's inflate of a whole stream, `expected_size` bytes out (one more byte of room, so that
// a stream holding too much fails).
std::vector<std::uint8_t> inflate_all(std::span<const std::uint8_t> stream,
                                      std::size_t expected_size) {
  std::vector<std::uint8_t> out(expected_size + 1);
  uLongf n = static_cast<uLongf>(out.size());
  const int rc = uncompress(out.data(), &n, stream.data(), static_cast<uLong>(stream.size()));
  EXPECT_EQ(rc, Z_OK);
  out.resize(rc == Z_OK ? n : 0);
  return out;
}

// HDF5's shuffle, byte by byte.
std::vector<std::uint8_t> shuffled(const std::vector<std::uint8_t>& raw, std::size_t size) {
  std::vector<std::uint8_t> out(raw.size());
  const std::size_t n = raw.size() / size;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < size; ++k)
      out[k * n + i] = raw[i * size + k];
  return out;
}

// Columns as requests.h5 has them: constant, slowly rising (times), random low bytes under
// constant high ones, random, and runs of random lengths (1 to 600) of random bytes.
enum class Pattern { kConstant, kRising, kLowNoise, kRandom, kRuns };

std::vector<std::uint8_t> make(Pattern p, std::size_t bytes, RandomStream& rng) {
  std::vector<std::uint8_t> v(bytes);
  std::uint64_t t = 1'700'000'000'000'000'000ULL;
  for (std::size_t i = 0; i < bytes;) {
    switch (p) {
      case Pattern::kConstant:
        v[i++] = 0x2A;
        break;
      case Pattern::kRising: {
        t += rng.uniform_int(0, 5'000'000);
        for (std::size_t k = 0; k < 8 && i < bytes; ++k)
          v[i++] = static_cast<std::uint8_t>(t >> (8 * k));
        break;
      }
      case Pattern::kLowNoise:
        v[i] = i % 8 == 0 ? static_cast<std::uint8_t>(rng.next_u64()) : 0;
        ++i;
        break;
      case Pattern::kRandom:
        v[i++] = static_cast<std::uint8_t>(rng.next_u64());
        break;
      case Pattern::kRuns: {
        const auto b = static_cast<std::uint8_t>(rng.uniform_int(0, 3));
        for (std::size_t r = rng.uniform_int(1, 600); r > 0 && i < bytes; --r)
          v[i++] = b;
        break;
      }
    }
  }
  return v;
}

// Every chunk the encoder deflates inflates (zlib) to the shuffled input; one it does not is the
// shuffled input itself. Sizes include the empty chunk and one row.
TEST(ChunkEncoder, DeflatedChunksInflateToTheShuffledInput) {
  RandomStream rng(15);
  ChunkEncoder encoder;
  int deflated_count = 0;
  for (const std::size_t rows : {0, 1, 2, 7, 8, 9, 100, 4097, 65536}) {
    for (const std::size_t size : {1, 2, 3, 4, 8}) {
      for (const Pattern p : {Pattern::kConstant, Pattern::kRising, Pattern::kLowNoise,
                              Pattern::kRandom, Pattern::kRuns}) {
        const auto raw = make(p, rows * size, rng);
        const auto expected = shuffled(raw, size);
        bool deflated = false;
        const auto bytes = encoder.encode(raw, size, deflated);
        const std::string what = std::to_string(rows) + " rows of " + std::to_string(size) +
                                 " bytes, pattern " + std::to_string(static_cast<int>(p));
        if (deflated) {
          ++deflated_count;
          EXPECT_LT(bytes.size(), raw.size()) << what;
          EXPECT_EQ(inflate_all(bytes, raw.size()), expected) << what;
        } else {
          EXPECT_EQ(std::vector<std::uint8_t>(bytes.begin(), bytes.end()), expected) << what;
        }
        if (rows <= 1) {
          EXPECT_FALSE(deflated) << what;  // a zlib stream is at least 8 bytes
        }
        if (rows >= 100 && p == Pattern::kConstant) {
          EXPECT_TRUE(deflated) << what;
        }
        if (rows >= 100 && p == Pattern::kRandom) {
          EXPECT_FALSE(deflated) << what;  // incompressible: stored as before, shuffled only
        }
      }
    }
  }
  EXPECT_GT(deflated_count, 40);
}

TEST(ChunkEncoder, SameInputSameBytes) {
  RandomStream rng(3);
  const auto raw = make(Pattern::kRising, 65536 * 8, rng);
  ChunkEncoder a;
  ChunkEncoder b;
  bool da = false;
  bool db = false;
  const auto x = a.encode(raw, 8, da);
  const std::vector<std::uint8_t> first(x.begin(), x.end());
  (void)b.encode(make(Pattern::kRuns, 1000, rng), 4, db);  // b's buffers already used
  const auto y = b.encode(raw, 8, db);
  EXPECT_TRUE(da);
  EXPECT_TRUE(db);
  EXPECT_EQ(first, std::vector<std::uint8_t>(y.begin(), y.end()));
}

// The encoder on its own: run lengths around the longest match (258) and the stored block's
// limit (65,535 bytes), blocks of every kind, and the empty stream.
TEST(RleDeflate, EveryStreamInflates) {
  RleDeflate rle;
  std::vector<std::uint8_t> out;
  // The empty input: one empty final block.
  const std::size_t empty = rle.encode({}, 1, out);
  EXPECT_EQ(inflate_all({out.data(), empty}, 0).size(), 0U);

  RandomStream rng(7);
  for (const std::size_t run :
       {1, 2, 3, 4, 5, 257, 258, 259, 260, 261, 262, 516, 517, 518, 519, 70000, 200000}) {
    std::vector<std::uint8_t> in(run, 0x55);
    in.push_back(0x11);
    in.insert(in.end(), run, 0x00);
    for (const std::size_t block : {1, 3, 258, 65535, 65536, 1 << 20}) {
      const std::size_t n = rle.encode(in, block, out);
      EXPECT_EQ(inflate_all({out.data(), n}, in.size()), in) << run << " " << block;
    }
  }
  for (const Pattern p : {Pattern::kConstant, Pattern::kRising, Pattern::kLowNoise,
                          Pattern::kRandom, Pattern::kRuns}) {
    for (const std::size_t bytes : {1, 10, 1000, 65535, 65536, 65537, 300000}) {
      const auto in = make(p, bytes, rng);
      for (const std::size_t block : {std::size_t{1000}, std::size_t{65536}, bytes}) {
        const std::size_t n = rle.encode(in, block, out);
        EXPECT_EQ(inflate_all({out.data(), n}, in.size()), in)
            << static_cast<int>(p) << " " << bytes << " " << block;
      }
    }
  }
  // Random bytes with rare runs: nearly every literal used, codes up to the 15-bit limit.
  std::vector<std::uint8_t> skewed(1 << 18);
  for (std::size_t i = 0; i < skewed.size(); ++i) {
    const std::uint64_t r = rng.next_u64();
    skewed[i] = static_cast<std::uint8_t>(std::countr_zero(r | (1ULL << 40)) * 6 + (r >> 60));
  }
  const std::size_t n = rle.encode(skewed, skewed.size(), out);
  EXPECT_EQ(inflate_all({out.data(), n}, skewed.size()), skewed);
}

// The bytes are dcsim's: a change to the encoder that moves them shows here (they are pinned
// so that requests.h5 stays the same file across machines and builds).
TEST(RleDeflate, PinnedBytes) {
  RleDeflate rle;
  std::vector<std::uint8_t> out;
  std::vector<std::uint8_t> in(300, 7);
  for (std::uint8_t i = 0; i < 20; ++i)
    in.push_back(i);
  in.insert(in.end(), 40, 0);
  const std::size_t n = rle.encode(in, in.size(), out);
  std::string hex;
  for (std::size_t i = 0; i < n; ++i) {
    static constexpr char kDigits[] = "0123456789abcdef";
    hex += kDigits[out[i] >> 4];
    hex += kDigits[out[i] & 15];
  }
  EXPECT_EQ(hex, "7801631f05440306462666165636760e4e2e6e1e5e3e7e0141216106220100e36608f3");
  EXPECT_EQ(inflate_all({out.data(), n}, in.size()), in);
}

}  // namespace
}  // namespace sim::metrics::h5
