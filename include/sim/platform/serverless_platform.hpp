#pragma once
/// The serverless control plane ("serverless" platform kind): gateway -> queue (per function or
/// per queue group) -> batcher -> dispatcher -> instance -> execution unit -> record, with cold
/// starts that download, load and copy model bytes (chained multicast optional), an offline
/// planner at time zero, and a periodic control loop that hands the policies a
/// PlatformView and applies the decisions they return. docs/policy-authors.md describes the
/// semantics (which wait is which, when each policy is called) in full.
///
/// This is the façade; the control plane's parts live in src/platform/serverless/ (one job
/// each, none of them includes this header), its configuration in serverless_config.hpp.

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/gpu_models/model_catalog.hpp"
#include "sim/platform/platform.hpp"
#include "sim/platform/serverless_config.hpp"

namespace sim::platform {

namespace serverless {
class ControlPlane;
}

class ServerlessPlatform final : public Platform {
 public:
  /// `catalog` must outlive the platform. Throws std::invalid_argument naming the problem
  /// (unknown model or GPU type, a workload function without a spec, a missing policy).
  ServerlessPlatform(ServerlessConfig config, const gpu::ModelCatalog& catalog,
                     PlatformContext context, Policies policies);
  ~ServerlessPlatform() override;

  void on_arrival(const traces::Arrival& arrival, std::uint64_t request_id) override;
  [[nodiscard]] std::uint64_t requests_in_system() const override;
  void add_timeseries_columns(metrics::TimeSeriesRecorder& recorder) override;
  [[nodiscard]] nlohmann::json summary_extra(Time end) const override;

  /// The view policies get (built on demand; also for tests).
  [[nodiscard]] policy::PlatformView view() const;
  /// Checks and applies decisions now (what the control loop does with policy output).
  void apply(const policy::Decisions& decisions);

  [[nodiscard]] const std::vector<ColdStartRecord>& cold_starts() const;
  [[nodiscard]] std::size_t live_instances() const;
  [[nodiscard]] std::uint64_t queued() const;
  [[nodiscard]] std::uint64_t running() const;
  [[nodiscard]] std::uint64_t dropped() const;
  [[nodiscard]] std::uint64_t completed() const;
  /// Per-replica queues held under dispatch_scope instance (for tests: they are freed once
  /// their replica has ended and they are empty).
  [[nodiscard]] std::size_t instance_queues() const;

 private:
  std::unique_ptr<serverless::ControlPlane> plane_;
};

/// The "serverless" platform kind: schema and factory (policies built through
/// PlatformContext::policies, the catalog from PlatformContext::catalog).
PlatformKind serverless_platform_kind();

}  // namespace sim::platform
