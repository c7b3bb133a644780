#include "sim/platform/serverless_platform.hpp"

#include "serverless/control_plane.hpp"

namespace sim::platform {

ServerlessPlatform::ServerlessPlatform(ServerlessConfig config, const gpu::ModelCatalog& catalog,
                                       PlatformContext context, Policies policies)
    : plane_(std::make_unique<serverless::ControlPlane>(std::move(config), catalog,
                                                        std::move(context), std::move(policies))) {}

ServerlessPlatform::~ServerlessPlatform() = default;

void ServerlessPlatform::on_arrival(const traces::Arrival& arrival, std::uint64_t request_id) {
  plane_->on_arrival(arrival, request_id);
}

std::uint64_t ServerlessPlatform::requests_in_system() const {
  return plane_->requests_in_system();
}

void ServerlessPlatform::add_timeseries_columns(metrics::TimeSeriesRecorder& recorder) {
  plane_->add_timeseries_columns(recorder);
}

nlohmann::json ServerlessPlatform::summary_extra(Time end) const {
  return plane_->summary_extra(end);
}

policy::PlatformView ServerlessPlatform::view() const {
  return plane_->view();
}

void ServerlessPlatform::apply(const policy::Decisions& decisions) {
  plane_->apply(decisions);
}

const std::vector<ColdStartRecord>& ServerlessPlatform::cold_starts() const {
  return plane_->cold_starts();
}

std::size_t ServerlessPlatform::live_instances() const {
  return plane_->live_instances();
}
std::uint64_t ServerlessPlatform::queued() const {
  return plane_->queued();
}
std::uint64_t ServerlessPlatform::running() const {
  return plane_->running();
}
std::uint64_t ServerlessPlatform::dropped() const {
  return plane_->dropped();
}
std::uint64_t ServerlessPlatform::completed() const {
  return plane_->completed();
}
std::size_t ServerlessPlatform::instance_queues() const {
  return plane_->instance_queues();
}

}  // namespace sim::platform
