#include "sim/cluster/host.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/gpu_models/exclusive_unit.hpp"
#include "sim/gpu_models/shared_unit.hpp"
#include "sim/gpu_models/solo_latency.hpp"

namespace sim::cluster {

GpuDevice::GpuDevice(Simulation& sim, std::string name, const gpu::GpuType& type,
                     const GpuSpec& spec)
    : type_(type), sharing_(spec.sharing) {
  if (!spec.mig.empty()) {
    if (!type.supports_mig()) {
      throw std::invalid_argument("GPU type " + type.name + " has no MIG profiles");
    }
    gpu::MigGpuOptions options;
    options.mode = spec.sharing == GpuSharing::kMps         ? gpu::SliceMode::kMps
                   : spec.sharing == GpuSharing::kTimeSlice ? gpu::SliceMode::kTimeSlice
                                                            : gpu::SliceMode::kExclusive;
    options.shared.sharing.interference = type.mps_interference;
    mig_ = std::make_unique<gpu::MigGpu>(sim, name, type, gpu::MigGeometry::place(type, spec.mig),
                                         options);
  } else if (spec.sharing != GpuSharing::kExclusive) {
    gpu::SharedUnitOptions options;
    options.sharing.mode =
        spec.sharing == GpuSharing::kMps ? gpu::SharingMode::kMps : gpu::SharingMode::kTimeSlice;
    options.sharing.interference = type.mps_interference;
    whole_ = std::make_unique<gpu::SharedUnit>(sim, name, type, nullptr, options);
  } else {
    whole_ = std::make_unique<gpu::ExclusiveUnit>(sim, name,
                                                  std::make_unique<gpu::GpuSoloLatency>(type));
  }
  geometry_changed();
}

std::size_t GpuDevice::places() const {
  return mig_ ? mig_->slice_count() : 1;
}

std::size_t GpuDevice::index(int slice) const {
  if (mig_) {
    if (slice < 0 || static_cast<std::size_t>(slice) >= mig_->slice_count()) {
      throw std::out_of_range("no MIG slice " + std::to_string(slice));
    }
    return static_cast<std::size_t>(slice);
  }
  if (slice >= 0)
    throw std::out_of_range("a GPU without MIG has no slice " + std::to_string(slice));
  return 0;
}

gpu::ExecutionUnit& GpuDevice::unit(int slice) {
  return mig_ ? mig_->slice(index(slice)) : (index(slice), *whole_);
}

double GpuDevice::place_memory_gb(int slice) const {
  return mig_ ? mig_->slice_profile(index(slice)).memory_gb : (index(slice), type_.memory_gb);
}

bool GpuDevice::place_enabled(int slice) const {
  return mig_ ? mig_->slice(index(slice)).enabled() : true;
}

double GpuDevice::reserved_gb(int slice) const {
  return reserved_gb_[index(slice)];
}

int GpuDevice::instances(int slice) const {
  return instances_[index(slice)];
}

int GpuDevice::instances() const {
  int n = 0;
  for (int i : instances_)
    n += i;
  return n;
}

void GpuDevice::reserve(int slice, double gb, double activation_gb) {
  reserved_gb_[index(slice)] += gb;
  ++instances_[index(slice)];
  if (activation_gb > 0) activations_[index(slice)].push_back(activation_gb);
}

void GpuDevice::release(int slice, double gb, double activation_gb) {
  const auto i = index(slice);
  reserved_gb_[i] -= gb;
  --instances_[i];
  if (instances_[i] == 0) reserved_gb_[i] = 0.0;  // no drift
  if (activation_gb > 0) {
    auto& a = activations_[i];
    const auto it = std::find(a.begin(), a.end(), activation_gb);
    if (it != a.end()) a.erase(it);
  }
}

double GpuDevice::activation_room_gb(int slice) const {
  const auto& a = activations_[index(slice)];
  return a.empty() ? 0.0 : *std::max_element(a.begin(), a.end());
}

bool GpuDevice::hold(int slice, double gb) {
  const auto i = index(slice);
  // The same tolerance as placement (feasibility.cpp): sums of GB fractions drift.
  if (place_memory_gb(slice) - reserved_gb_[i] + 1e-9 < gb) return false;
  reserved_gb_[i] += gb;
  held_gb_[i] += gb;
  return true;
}

void GpuDevice::unhold(int slice, double gb) {
  const auto i = index(slice);
  reserved_gb_[i] -= gb;
  held_gb_[i] -= gb;
  if (held_gb_[i] < 1e-9) held_gb_[i] = 0.0;
}

double GpuDevice::held_gb(int slice) const {
  return held_gb_[index(slice)];
}

GpuDevice::PlaceFigures GpuDevice::place_figures(int slice) const {
  const std::size_t i = index(slice);
  const auto& a = activations_[i];
  return {mig_ ? mig_->slice_profile(i).memory_gb : type_.memory_gb,
          mig_ ? mig_->slice(i).enabled() : true,
          reserved_gb_[i],
          instances_[i],
          held_gb_[i],
          a.empty() ? 0.0 : *std::max_element(a.begin(), a.end())};
}

void GpuDevice::batch_started(Time now) {
  if (running_batches_++ == 0) busy_since_ = now;
}

void GpuDevice::batch_finished(Time now) {
  if (--running_batches_ == 0) busy_total_ += now - busy_since_;
}

Time GpuDevice::busy_time(Time now) const {
  return busy_total_ + (running_batches_ > 0 ? now - busy_since_ : Time::zero());
}

void GpuDevice::geometry_changed() {
  reserved_gb_.assign(places(), 0.0);
  instances_.assign(places(), 0);
  held_gb_.assign(places(), 0.0);
  activations_.assign(places(), {});
}

double Host::cost_usd(Time end) const {
  const Time until = down_at ? *down_at : end;
  if (until <= up_since) return 0.0;
  return (until - up_since).to_seconds() / 3600.0 * spec.price_per_hour;
}

}  // namespace sim::cluster
