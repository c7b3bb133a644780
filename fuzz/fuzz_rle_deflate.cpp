// requests.h5's run-length deflate encoder (src/metrics/rle_deflate.hpp): whatever the bytes and
// the block size, the stream must inflate with zlib to exactly the input, and encoding twice
// must give the same bytes. Unlike the other targets this one checks a writer, not a reader:
// a stream that zlib rejects or inflates to other bytes would be a file every HDF5 reader
// reads wrongly, so any mismatch aborts.

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "rle_deflate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  // The first two bytes choose the block size (1 to 65,536 bytes), as a chunk's byte plane
  // would be; the rest is the chunk.
  const std::size_t block_bytes = 1 + ((std::size_t{data[0]} << 8) | data[1]);
  const std::span<const std::uint8_t> in(data + 2, size - 2);

  sim::metrics::h5::RleDeflate encoder;
  std::vector<std::uint8_t> out;
  const std::size_t n = encoder.encode(in, block_bytes, out);
  if (n > out.size()) std::abort();

  std::vector<std::uint8_t> back(in.size() + 1);
  uLongf back_size = static_cast<uLongf>(back.size());
  if (uncompress(back.data(), &back_size, out.data(), static_cast<uLong>(n)) != Z_OK) std::abort();
  if (back_size != in.size()) std::abort();
  if (!in.empty() && std::memcmp(back.data(), in.data(), in.size()) != 0) std::abort();

  std::vector<std::uint8_t> again;
  const std::size_t m = encoder.encode(in, block_bytes, again);
  if (m != n || std::memcmp(again.data(), out.data(), n) != 0) std::abort();
  return 0;
}
