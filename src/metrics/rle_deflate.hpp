#pragma once
/// A zlib stream (RFC 1950 around RFC 1951 deflate) made of byte runs: a run-length deflate
/// encoder for requests.h5's shuffled chunks (hdf5_chunk_encoder.hpp). After the shuffle most
/// byte planes are runs of one byte and the rest nearly random bytes, so the only matches worth
/// finding are at distance 1 (what zlib's Z_RLE strategy looks for, one byte at a time): here a
/// run is found eight bytes at a time, each byte plane is one block (dynamic Huffman, fixed
/// Huffman or stored, whichever is smallest), and a run of r equal bytes costs one literal and
/// ceil((r - 1) / 258) matches. Any inflate reads the result (the Huffman codes are complete,
/// lengths within the format's limits); the bytes are a function of the input alone.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sim::metrics::h5 {

class RleDeflate {
 public:
  /// Writes the zlib stream of `in` to the front of `out` (grown to the stream's bound when
  /// smaller, never shrunk, so one buffer serves every chunk) and returns the stream's length:
  /// the bytes past it are not part of the stream. `in` is cut into blocks of `block_bytes` bytes
  /// (the last may be shorter); block_bytes >= 1. An empty input gives an empty final block.
  std::size_t encode(std::span<const std::uint8_t> in, std::size_t block_bytes,
                     std::vector<std::uint8_t>& out);

 private:
  std::vector<std::uint16_t>
      tokens_;  // < 256: a literal; 256 + (length - 3): a match at distance 1
};

}  // namespace sim::metrics::h5
