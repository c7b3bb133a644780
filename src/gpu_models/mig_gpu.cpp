#include "sim/gpu_models/mig_gpu.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/gpu_models/exclusive_unit.hpp"
#include "sim/gpu_models/solo_latency.hpp"

namespace sim::gpu {

MigGpu::MigGpu(Simulation& sim, std::string name, const GpuType& gpu, const MigGeometry& geometry,
               MigGpuOptions options)
    : sim_(sim), name_(std::move(name)), gpu_(gpu), geometry_(geometry), options_(options) {
  if (geometry.gpu_name() != gpu.name) {
    throw std::invalid_argument("MigGpu " + name_ + ": geometry is for " + geometry.gpu_name() +
                                ", GPU is " + gpu.name);
  }
  for (const auto& p : geometry_.slices())
    slices_.push_back(make_slice(p));
}

MigGpu::~MigGpu() {
  reconfigure_done_.cancel();
}

MigGpu::Slice MigGpu::make_slice(const PlacedSlice& p) {
  Slice s;
  s.placement = p;
  s.profile = &gpu_.profile(p.profile);
  const std::string unit_name = name_ + "/" + p.profile + "@" + std::to_string(p.start);
  if (options_.mode != SliceMode::kExclusive) {
    SharedUnitOptions shared = options_.shared;
    shared.sharing.mode =
        options_.mode == SliceMode::kMps ? SharingMode::kMps : SharingMode::kTimeSlice;
    s.unit = std::make_unique<SharedUnit>(sim_, unit_name, gpu_, s.profile, shared);
  } else {
    s.unit = std::make_unique<ExclusiveUnit>(sim_, unit_name,
                                             std::make_unique<GpuSoloLatency>(gpu_, s.profile));
  }
  return s;
}

ExecutionUnit& MigGpu::slice(std::size_t i) {
  return *slices_.at(i).unit;
}
const ExecutionUnit& MigGpu::slice(std::size_t i) const {
  return *slices_.at(i).unit;
}
const MigProfile& MigGpu::slice_profile(std::size_t i) const {
  return *slices_.at(i).profile;
}

SharedUnit* MigGpu::shared_slice(std::size_t i) {
  return dynamic_cast<SharedUnit*>(slices_.at(i).unit.get());
}

std::optional<std::string> MigGpu::reconfigure(std::span<const std::string> profiles,
                                               std::function<void()> on_done) {
  if (reconfiguring_) return std::string("a reconfiguration of " + name_ + " is in progress");
  if (auto why = MigGeometry::why_invalid(gpu_, profiles)) return why;
  // Prefer the current positions so that unchanged slices are not affected.
  MigGeometry next = MigGeometry::place(gpu_, profiles, geometry_.slices());
  auto kept = [&](const PlacedSlice& p) {
    return std::find(next.slices().begin(), next.slices().end(), p) != next.slices().end();
  };
  for (const auto& s : slices_) {
    const bool affected = !kept(s.placement);
    if ((affected || options_.require_all_idle) && !s.unit->idle()) {
      return "slice " + s.placement.profile + "@" + std::to_string(s.placement.start) + " of " +
             name_ + " is busy (" + std::to_string(s.unit->running()) + " running, " +
             std::to_string(s.unit->queued()) + " queued); MIG reconfiguration needs it idle";
    }
  }
  std::vector<Slice> updated;
  for (const auto& p : next.slices()) {
    auto old = std::find_if(slices_.begin(), slices_.end(),
                            [&](const Slice& s) { return s.placement == p; });
    if (old != slices_.end()) {
      updated.push_back(std::move(*old));
    } else {
      updated.push_back(make_slice(p));
      updated.back().unit->set_enabled(false);
    }
  }
  slices_ = std::move(updated);
  geometry_ = std::move(next);
  reconfiguring_ = true;
  ++reconfigurations_;
  const double downtime = options_.reconfigure_downtime_s.value_or(gpu_.reconfigure_downtime_s);
  reconfigure_done_ = sim_.schedule_in(ceil_seconds(downtime), [this, done = std::move(on_done)] {
    for (auto& s : slices_)
      s.unit->set_enabled(true);
    reconfiguring_ = false;
    if (done) done();
  });
  return std::nullopt;
}

}  // namespace sim::gpu
