#pragma once
/// The lifecycle event log (output.events): what the platform did, one row per event, in the
/// order the events happened (simulated time, then the engine's scheduling order).
///
/// events.csv columns (times are exact decimal seconds of simulated time, format_seconds):
///   time_s                  when
///   event                   the kind (docs/events.md lists them)
///   function, model         the function's and the model's name; empty for a host event
///   instance                the instance id; -1 when none
///   host, gpu               host index and the GPU's index on it; -1 when none
///   device                  the GPU's cluster-wide index (a request record's device); -1
///   slice, profile          MIG slice index on its GPU and its profile (e.g. "3g.20gb");
///                           -1 and empty on a whole GPU or without one
///   batch                   requests in the batch (batch events); -1 otherwise
///   detail                  event-specific text: key=value pairs separated by ';'
/// Fields are quoted per RFC 4180 where needed; lines end in "\n"; the text does not depend on
/// the locale. The file is written to a temporary and renamed into place on close() (AtomicFile).

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "sim/engine/time.hpp"
#include "sim/metrics/atomic_file.hpp"

namespace sim::metrics {

/// How much the log holds: nothing, the lifecycle (placements, readiness, idleness, stops,
/// reconfigurations, VMs), or that and every batch's start and end.
enum class EventLevel { kNone, kLifecycle, kAll };

/// "none" | "lifecycle" | "all" (the schema's choice, /output/events).
EventLevel parse_event_level(std::string_view s);

struct LifecycleEvent {
  Time time;
  std::string_view event;
  std::string_view function;
  std::string_view model;
  std::int64_t instance = -1;
  int host = -1;
  int gpu = -1;
  int device = -1;
  int slice = -1;
  std::string_view profile;
  int batch = -1;
  std::string detail;
};

using EventSink = std::function<void(const LifecycleEvent&)>;

class CsvEventWriter {
 public:
  /// Opens a temporary next to `path` and writes the header.
  explicit CsvEventWriter(std::filesystem::path path);
  void write(const LifecycleEvent& e);
  /// Renames the file into place; twice is a std::logic_error.
  void close();
  [[nodiscard]] std::uint64_t events_written() const { return written_; }
  static std::string_view header();

 private:
  AtomicFile file_;
  std::string line_;  // reused buffer
  std::uint64_t written_ = 0;
  bool closed_ = false;
};

}  // namespace sim::metrics
