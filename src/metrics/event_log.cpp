#include "sim/metrics/event_log.hpp"

#include <iterator>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/metrics/csv_format.hpp"

namespace sim::metrics {

EventLevel parse_event_level(std::string_view s) {
  if (s == "none") return EventLevel::kNone;
  if (s == "lifecycle") return EventLevel::kLifecycle;
  if (s == "all") return EventLevel::kAll;
  throw std::invalid_argument(
      fmt::format("output.events: expected none, lifecycle or all, found \"{}\"", s));
}

std::string_view CsvEventWriter::header() {
  return "time_s,event,function,model,instance,host,gpu,device,slice,profile,batch,detail";
}

CsvEventWriter::CsvEventWriter(std::filesystem::path path) : file_(std::move(path)) {
  file_.stream() << header() << '\n';
}

void CsvEventWriter::write(const LifecycleEvent& e) {
  if (closed_) {
    throw std::logic_error(fmt::format("{}: write() after close()", file_.final_path().string()));
  }
  line_.clear();
  auto it = std::back_inserter(line_);
  fmt::format_to(it, "{},{},{},{},{},{},{},{},{},{},{},{}\n", format_seconds(e.time),
                 csv_escape(e.event), csv_escape(e.function), csv_escape(e.model), e.instance,
                 e.host, e.gpu, e.device, e.slice, csv_escape(e.profile), e.batch,
                 csv_escape(e.detail));
  auto& out = file_.stream();
  out.write(line_.data(), static_cast<std::streamsize>(line_.size()));
  if (!out) {
    throw std::runtime_error(
        fmt::format("{}: write failed after {} events", file_.temp_path().string(), written_));
  }
  ++written_;
}

void CsvEventWriter::close() {
  if (closed_) {
    throw std::logic_error(fmt::format("{}: close() called twice", file_.final_path().string()));
  }
  closed_ = true;
  file_.commit();
}

}  // namespace sim::metrics
