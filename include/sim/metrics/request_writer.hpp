#pragma once
/// Per-request output (requests.csv / requests.h5): one row per RequestRecord, streamed.

#include <cstdint>

#include "sim/metrics/request_record.hpp"

namespace sim::metrics {

/// Writers stream records to a temporary file and rename it into place on close(); a writer
/// destroyed without close() leaves no file behind (see AtomicFile).
class RequestWriter {
 public:
  RequestWriter() = default;
  RequestWriter(const RequestWriter&) = delete;
  RequestWriter& operator=(const RequestWriter&) = delete;
  virtual ~RequestWriter() = default;

  /// Appends one record. Throws std::invalid_argument if an id has no name in the writer's
  /// name tables, std::runtime_error naming the file on an I/O error, std::logic_error after
  /// close().
  virtual void write(const RequestRecord& r) = 0;
  /// Replaces the name tables by `grown`, which keeps every current entry at its index and adds
  /// names after them: workloads that discover functions as they read (Azure per-function
  /// traces) name them after the writer was created. Throws std::invalid_argument otherwise.
  virtual void extend_names(const NameTables& grown) = 0;
  /// Flushes what is buffered and renames the file into place. Throws std::runtime_error naming
  /// the file on failure; calling it twice is a std::logic_error.
  virtual void close() = 0;
  [[nodiscard]] virtual std::uint64_t records_written() const = 0;
};

}  // namespace sim::metrics
