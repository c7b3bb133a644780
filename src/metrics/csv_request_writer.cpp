#include "sim/metrics/csv_request_writer.hpp"

#include <iterator>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/metrics/csv_format.hpp"

namespace sim::metrics {

namespace {

std::vector<std::string> escaped(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  out.reserve(names.size());
  for (const auto& n : names)
    out.push_back(csv_escape(n));
  return out;
}

const std::string& name_field(const std::vector<std::string>& table, std::uint32_t id,
                              const char* what, const RequestRecord& r,
                              const std::filesystem::path& path) {
  if (id >= table.size()) {
    throw std::invalid_argument(
        fmt::format("{}: request {}: {} id {} has no name (the name table has {} entries)",
                    path.string(), r.id, what, id, table.size()));
  }
  return table[id];
}

}  // namespace

std::string_view CsvRequestWriter::header() {
  return "id,function,application,class,arrival_ns,dispatch_ns,start_ns,finish_ns,"
         "queue_wait_ns,batching_wait_ns,cold_start_wait_ns,execution_ns,batch_size,device,"
         "slice,outcome,slo_ns,latency_s";
}

CsvRequestWriter::CsvRequestWriter(std::filesystem::path path, NameTables names)
    : file_(std::move(path)),
      function_fields_(escaped(names.functions)),
      application_fields_(escaped(names.applications)) {
  auto& out = file_.stream();
  out << header() << '\n';
}

void CsvRequestWriter::extend_names(const NameTables& grown) {
  if (grown.functions.size() < function_fields_.size() ||
      grown.applications.size() < application_fields_.size()) {
    throw std::invalid_argument(
        fmt::format("{}: the name tables may only grow", file_.final_path().string()));
  }
  // Only the new names are escaped; the writer keeps the escaped forms, not the originals.
  auto tail = [](const std::vector<std::string>& all, std::size_t from) {
    return std::vector<std::string>(all.begin() + static_cast<std::ptrdiff_t>(from), all.end());
  };
  for (auto& f : escaped(tail(grown.functions, function_fields_.size())))
    function_fields_.push_back(std::move(f));
  for (auto& a : escaped(tail(grown.applications, application_fields_.size())))
    application_fields_.push_back(std::move(a));
}

void CsvRequestWriter::write(const RequestRecord& r) {
  if (closed_) {
    throw std::logic_error(fmt::format("{}: write() after close()", file_.final_path().string()));
  }
  const auto& fn = name_field(function_fields_, r.function, "function", r, file_.final_path());
  const auto& app =
      name_field(application_fields_, r.application, "application", r, file_.final_path());
  line_.clear();
  auto it = std::back_inserter(line_);
  fmt::format_to(it, "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},", r.id, fn, app,
                 to_string(r.cls), r.arrival.ns(), r.dispatch.ns(), r.start.ns(), r.finish.ns(),
                 r.queue_wait.ns(), r.batching_wait.ns(), r.cold_start_wait.ns(), r.execution.ns(),
                 r.batch_size, r.device, r.slice, to_string(r.outcome), r.slo.ns());
  if (r.finished()) line_ += format_seconds(r.latency());
  line_.push_back('\n');
  auto& out = file_.stream();
  out.write(line_.data(), static_cast<std::streamsize>(line_.size()));
  if (!out) {
    throw std::runtime_error(
        fmt::format("{}: write failed after {} records", file_.temp_path().string(), written_));
  }
  ++written_;
}

void CsvRequestWriter::close() {
  if (closed_) {
    throw std::logic_error(fmt::format("{}: close() called twice", file_.final_path().string()));
  }
  closed_ = true;
  file_.commit();
}

}  // namespace sim::metrics
