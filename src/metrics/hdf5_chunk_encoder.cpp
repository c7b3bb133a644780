#include "hdf5_chunk_encoder.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace sim::metrics::h5 {

namespace {

// One element of S bytes (2, 4 or 8) as a little-endian integer: byte k at bits 8k.
template <std::size_t S>
std::uint64_t load(const std::uint8_t* p) {
  using U = std::conditional_t<S == 8, std::uint64_t,
                               std::conditional_t<S == 4, std::uint32_t, std::uint16_t>>;
  U u;
  std::memcpy(&u, p, S);
  return u;
}

// Swaps the bits of `a` at mask << shift with those of `b` at mask.
inline void swap_masked(std::uint64_t& a, std::uint64_t& b, int shift, std::uint64_t mask) {
  const std::uint64_t t = ((a >> shift) ^ b) & mask;
  b ^= t;
  a ^= t << shift;
}

// Byte k of element i to out[k * n + i], eight elements at a time: their bytes as an 8x8
// matrix (row j = element j) transposed in registers by three rounds of masked swaps (bytes,
// byte pairs, halves), so that one 8-byte store fills eight rows of a plane. Byte by byte,
// the shuffle cost a quarter of the deflate it feeds.
template <std::size_t S>
void shuffle(const std::uint8_t* in, std::size_t n, std::uint8_t* out) {
  static_assert(S == 2 || S == 4 || S == 8);
  constexpr std::uint64_t kBytes = 0x00FF00FF00FF00FFULL;
  constexpr std::uint64_t kPairs = 0x0000FFFF0000FFFFULL;
  constexpr std::uint64_t kHalves = 0x00000000FFFFFFFFULL;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const std::uint8_t* p = in + i * S;
    std::uint64_t x0 = load<S>(p), x1 = load<S>(p + S), x2 = load<S>(p + 2 * S),
                  x3 = load<S>(p + 3 * S), x4 = load<S>(p + 4 * S), x5 = load<S>(p + 5 * S),
                  x6 = load<S>(p + 6 * S), x7 = load<S>(p + 7 * S);
    swap_masked(x0, x1, 8, kBytes);
    swap_masked(x2, x3, 8, kBytes);
    swap_masked(x4, x5, 8, kBytes);
    swap_masked(x6, x7, 8, kBytes);
    swap_masked(x0, x2, 16, kPairs);
    swap_masked(x1, x3, 16, kPairs);
    swap_masked(x4, x6, 16, kPairs);
    swap_masked(x5, x7, 16, kPairs);
    swap_masked(x0, x4, 32, kHalves);
    swap_masked(x1, x5, 32, kHalves);
    swap_masked(x2, x6, 32, kHalves);
    swap_masked(x3, x7, 32, kHalves);
    // x_k: byte k of elements i..i+7.
    const std::uint64_t rows[8] = {x0, x1, x2, x3, x4, x5, x6, x7};
    for (std::size_t k = 0; k < S; ++k)
      std::memcpy(out + k * n + i, &rows[k], 8);
  }
  for (; i < n; ++i)
    for (std::size_t k = 0; k < S; ++k)
      out[k * n + i] = in[i * S + k];
}

}  // namespace

std::span<const std::uint8_t> ChunkEncoder::encode(std::span<const std::uint8_t> raw,
                                                   std::size_t element_size, bool& deflated) {
  // HDF5's shuffle (H5Zshuffle.c): byte plane k holds byte k of each element, in order; a
  // buffer of whole elements leaves no tail.
  shuffled_.resize(raw.size());
  switch (element_size) {
    case 1:
      std::copy(raw.begin(), raw.end(), shuffled_.begin());
      break;
    case 2:
      shuffle<2>(raw.data(), raw.size() / 2, shuffled_.data());
      break;
    case 4:
      shuffle<4>(raw.data(), raw.size() / 4, shuffled_.data());
      break;
    case 8:
      shuffle<8>(raw.data(), raw.size() / 8, shuffled_.data());
      break;
    default:
      for (std::size_t i = 0; i < raw.size(); ++i)
        shuffled_[(i % element_size) * (raw.size() / element_size) + i / element_size] = raw[i];
  }
  // One deflate block per byte plane: a plane's statistics are its own (runs or noise).
  const std::size_t length =
      rle_.encode(shuffled_, std::max<std::size_t>(raw.size() / element_size, 1), out_);
  deflated = length < shuffled_.size();
  if (!deflated) return shuffled_;
  return {out_.data(), length};
}

}  // namespace sim::metrics::h5
