#pragma once
/// The serving platform as the run loop sees it: it receives arrivals, produces one record per
/// finished or dropped request, exposes time-series columns, and adds platform-level figures
/// (utilisation, cost, ...) to the summary. `ServerlessPlatform` is the full control plane;
/// `FifoGpuPlatform` a minimal one.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/config/schema.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/metrics/event_log.hpp"
#include "sim/metrics/request_record.hpp"
#include "sim/metrics/time_series_recorder.hpp"
#include "sim/traces/arrival_source.hpp"

namespace sim::gpu {
class ModelCatalog;
}
namespace sim::policy {
class PolicyFactory;
}

namespace sim::platform {

using RecordSink = std::function<void(const metrics::RequestRecord&)>;

class Platform {
 public:
  virtual ~Platform() = default;
  /// A request arrives now (sim.now() == arrival.time).
  virtual void on_arrival(const traces::Arrival& arrival, std::uint64_t request_id) = 0;
  /// Requests accepted but not yet recorded (queued or running).
  [[nodiscard]] virtual std::uint64_t requests_in_system() const = 0;
  /// Registers the platform's columns with the time-series recorder.
  virtual void add_timeseries_columns(metrics::TimeSeriesRecorder& recorder) = 0;
  /// Platform-level summary figures at the end of the run (merged into summary.json).
  [[nodiscard]] virtual nlohmann::json summary_extra(Time end) const = 0;
};

/// What a platform needs from the run.
struct PlatformContext {
  Simulation* sim = nullptr;
  RecordSink record;
  /// Where lifecycle events go (output.events) and how many: none unless both are set. A
  /// platform that logs no events ignores them.
  metrics::EventSink events;
  metrics::EventLevel event_level = metrics::EventLevel::kNone;
  const traces::WorkloadLabels* labels = nullptr;
  /// The model catalog (data/models); platforms that run catalog models need it.
  const gpu::ModelCatalog* catalog = nullptr;
  /// Builds the policies a platform's scenario section names (the scenario registry).
  const policy::PolicyFactory* policies = nullptr;
};

struct PlatformKind {
  std::string name;
  std::string description;
  std::shared_ptr<const config::Schema> schema;
  std::function<std::unique_ptr<Platform>(const nlohmann::json& resolved, PlatformContext context)>
      make;
};

}  // namespace sim::platform
