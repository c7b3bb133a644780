#pragma once
/// The bytes of one full chunk of a requests.h5 column as HDF5's shuffle + deflate pipeline
/// stores them, made here and written with H5Dwrite_chunk. The deflate step is dcsim's own
/// run-length encoder (rle_deflate.hpp): after the shuffle most byte planes are runs of one byte
/// (high bytes of times, ids, codes) and the rest nearly random low bytes, so matches at
/// distance 1 are the only ones worth looking for. The result is an ordinary zlib stream, so
/// every HDF5 reader inflates it as it inflates the library's own: the values read back are
/// the same, only the compressed bytes differ from what the library's filter (zlib's compress2)
/// would write. The bytes are a function of the chunk alone (dcsim's code makes every choice;
/// libdeflate only computes the adler32), so every machine writes the same whole chunks. Measured
/// on the Protean 300 s run's columns (65,536-row chunks, 145 MB shuffled): zlib's default strategy
/// 0.45 CPU s and 13.8 MB, zlib's Z_RLE 0.26 s and 14.5 MB (session 11 to 14's encoder),
/// libdeflate 1.14 levels 1-6 0.33-0.53 s and 13.8-15.1 MB, this encoder 0.06 s and 14.4 MB
/// (docs/performance-history.md, goal 2, session 15).

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "rle_deflate.hpp"

namespace sim::metrics::h5 {

class ChunkEncoder {
 public:
  /// Shuffles `raw` (elements of `element_size` bytes: byte k of every element, then byte k+1)
  /// and deflates the result, one deflate block per byte plane. Returns the chunk's bytes (valid
  /// until the next call) and sets `deflated` false when deflating did not make them smaller: the
  /// shuffled bytes are then stored as they are, as HDF5's optional deflate filter does (its
  /// filter-mask bit set).
  std::span<const std::uint8_t> encode(std::span<const std::uint8_t> raw, std::size_t element_size,
                                       bool& deflated);

 private:
  RleDeflate rle_;
  std::vector<std::uint8_t> shuffled_;
  std::vector<std::uint8_t> out_;
};

}  // namespace sim::metrics::h5
