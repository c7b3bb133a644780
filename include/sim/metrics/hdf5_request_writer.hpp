#pragma once
/// requests.h5: per-request records in HDF5, written in chunks as they arrive.
///
/// Layout (one dataset per column, so that tools read one column without the others and each
/// column compresses on its own):
///
///   /                      attributes: format = "dcsim.requests", version = 1 (int32),
///                          records = number of rows (uint64, written on close)
///   /requests/<column>     1-D, extendible (unlimited), chunked (chunk_rows rows, default
///                          65536), shuffle + deflate filtered (whole chunks deflated by dcsim's
///                          run-length encoder, hdf5_chunk_encoder.hpp; any inflate reads them);
///                          every column has the same length
///       id u64, function u32, application u32, class u8 (0 strict, 1 best_effort),
///       arrival_ns dispatch_ns start_ns finish_ns queue_wait_ns batching_wait_ns
///       cold_start_wait_ns execution_ns (int64 nanoseconds), batch_size u32, device i32,
///       slice i32 (-1 = none), outcome u8 (0 ok, 1 slo_miss, 2 dropped), slo_ns i64 (0 = none)
///       class and outcome carry a "labels" string attribute spelling the codes.
///   /names/functions       1-D variable-length UTF-8 strings, indexed by the function column
///   /names/applications    1-D variable-length UTF-8 strings, indexed by the application column
///
/// The same records give the same file: whole chunks' compressed bytes are a function of the
/// chunk alone (dcsim's encoder chooses every token and code; libdeflate only computes the
/// adler32, so its version does not matter); the last, partial chunk of each column is
/// compressed by HDF5's own filter with the system's zlib.
///
/// At most chunk_rows records are buffered in memory; each full buffer is appended to the
/// datasets. The file is created under a temporary name and renamed into place by close().
///
/// The writer and the reader live in dcsim's HDF5 module, libdcsim_hdf5.so, which is loaded on
/// first use (beside the dcsim executable, or in the build directory): only the runs that write
/// requests.h5 load HDF5 (src/metrics/hdf5_module.hpp). Every function here throws
/// std::runtime_error naming the module if it is missing.

#include <filesystem>
#include <memory>

#include "sim/metrics/request_writer.hpp"

namespace sim::metrics {

class Hdf5RequestWriter final : public RequestWriter {
 public:
  static constexpr std::size_t kDefaultChunkRows = 65536;
  static constexpr int kDefaultDeflateLevel = 1;

  /// chunk_rows >= 1; deflate_level in [0, 9]: 0 = no filters (no shuffle, no deflate); 1-9 =
  /// shuffle + deflate, the level being the deflate filter's parameter in the file and zlib's
  /// level for the last, partial chunk, which HDF5's own filter compresses. Whole chunks are
  /// run-length coded by dcsim whatever the level (as zlib's Z_RLE strategy, used before,
  /// wrote the same bytes at every level); HDF5's filter accepts no level above 9. Throws
  /// std::invalid_argument for bad arguments, std::runtime_error naming the file if it cannot
  /// be created.
  Hdf5RequestWriter(std::filesystem::path path, NameTables names,
                    std::size_t chunk_rows = kDefaultChunkRows,
                    int deflate_level = kDefaultDeflateLevel);
  ~Hdf5RequestWriter() override;

  void write(const RequestRecord& r) override;
  /// The name tables are written at close(), so they may grow until then.
  void extend_names(const NameTables& grown) override;
  void close() override;
  [[nodiscard]] std::uint64_t records_written() const override;

 private:
  std::unique_ptr<RequestWriter> writer_;  // the module's
};

/// The requests.h5 writer itself, arguments as Hdf5RequestWriter's (which forwards to it).
std::unique_ptr<RequestWriter> make_hdf5_request_writer(
    std::filesystem::path path, NameTables names,
    std::size_t chunk_rows = Hdf5RequestWriter::kDefaultChunkRows,
    int deflate_level = Hdf5RequestWriter::kDefaultDeflateLevel);

/// Everything in a requests.h5 file.
struct RequestFile {
  std::vector<RequestRecord> records;
  NameTables names;
};

/// Reads a whole requests.h5 written by Hdf5RequestWriter. Throws std::runtime_error naming the
/// file and the dataset if it is not such a file, a column is missing or has another type or
/// length, or a class/outcome code is out of range (naming the row).
RequestFile read_requests_h5(const std::filesystem::path& path);

}  // namespace sim::metrics
