#pragma once
/// requests.csv: one header line, then one line per record, in the order written.
///
/// Columns (all times are integer nanoseconds of simulated time):
///   id, function, application      request id; function and application *names*
///   class                          strict | best_effort
///   arrival_ns, dispatch_ns, start_ns, finish_ns
///   queue_wait_ns, batching_wait_ns, cold_start_wait_ns, execution_ns
///   batch_size, device, slice      device / slice are -1 when none
///   outcome                        ok | slo_miss | dropped
///   slo_ns                         0 = no SLO
///   latency_s                      (finish - arrival) as exact decimal seconds; empty for a
///                                  dropped request, which has no latency
/// Names are quoted per RFC 4180 when they contain a comma, quote or line break. Lines end in
/// "\n". The text does not depend on the locale.

#include <filesystem>
#include <string>
#include <vector>

#include "sim/metrics/atomic_file.hpp"
#include "sim/metrics/request_writer.hpp"

namespace sim::metrics {

class CsvRequestWriter final : public RequestWriter {
 public:
  /// Opens a temporary next to `path`; the header is written at once.
  CsvRequestWriter(std::filesystem::path path, NameTables names);

  void write(const RequestRecord& r) override;
  void extend_names(const NameTables& grown) override;
  void close() override;
  [[nodiscard]] std::uint64_t records_written() const override { return written_; }

  /// The header line, without its newline.
  static std::string_view header();

 private:
  AtomicFile file_;
  std::vector<std::string> function_fields_;     // CSV-escaped names
  std::vector<std::string> application_fields_;  // CSV-escaped names
  std::string line_;                             // reused buffer
  std::uint64_t written_ = 0;
  bool closed_ = false;
};

}  // namespace sim::metrics
