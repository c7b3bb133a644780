#include "hdf5_chunk_encoder.hpp"

#include <stdexcept>
#include <string>

#include <zlib.h>

namespace sim::metrics::h5 {

// One z_stream for the writer's life, reset per chunk: deflateInit2 allocates ~270 KB.
struct ChunkEncoder::Stream {
  z_stream z{};
};

ChunkEncoder::ChunkEncoder(int level) : stream_(std::make_unique<Stream>()) {
  // windowBits 15 and memLevel 8: compress2's, so the stream's header is the library's.
  if (deflateInit2(&stream_->z, level, Z_DEFLATED, 15, 8, Z_RLE) != Z_OK) {
    throw std::runtime_error("zlib: deflateInit2 failed");
  }
}

ChunkEncoder::~ChunkEncoder() {
  deflateEnd(&stream_->z);
}

std::span<const std::uint8_t> ChunkEncoder::encode(std::span<const std::uint8_t> raw,
                                                   std::size_t element_size, bool& deflated) {
  // HDF5's shuffle (H5Zshuffle.c): byte plane k holds byte k of each element, in order; a
  // buffer of whole elements leaves no tail.
  const std::size_t n = raw.size() / element_size;
  shuffled_.resize(raw.size());
  for (std::size_t k = 0; k < element_size; ++k) {
    std::uint8_t* plane = shuffled_.data() + k * n;
    const std::uint8_t* in = raw.data() + k;
    for (std::size_t i = 0; i < n; ++i)
      plane[i] = in[i * element_size];
  }
  z_stream& z = stream_->z;
  if (deflateReset(&z) != Z_OK) throw std::runtime_error("zlib: deflateReset failed");
  out_.resize(deflateBound(&z, static_cast<uLong>(shuffled_.size())));
  z.next_in = shuffled_.data();
  z.avail_in = static_cast<uInt>(shuffled_.size());
  z.next_out = out_.data();
  z.avail_out = static_cast<uInt>(out_.size());
  const int rc = deflate(&z, Z_FINISH);
  if (rc != Z_STREAM_END) throw std::runtime_error("zlib: deflate returned " + std::to_string(rc));
  deflated = z.total_out < shuffled_.size();
  if (!deflated) return shuffled_;
  return {out_.data(), static_cast<std::size_t>(z.total_out)};
}

}  // namespace sim::metrics::h5
