#pragma once
/// A MIG-partitioned GPU: one execution unit per slice, each exclusive, MPS or time-sliced inside
/// (Protean §2.2, §4.4). A slice's resources are its share of the SMs (in its solo times, via
/// the model's RDF) and of the memory slices (its bandwidth, sharing_model.hpp).
///
/// Reconfiguring needs the affected slices idle (those whose profile or position changes) and
/// takes a downtime (the GPU type's reconfigure_downtime_s, ~2 s per Protean §4.4, or the
/// override given here); slices that stay in place keep running. New slices accept jobs once
/// the downtime has passed.

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/gpu_models/execution_unit.hpp"
#include "sim/gpu_models/mig_geometry.hpp"
#include "sim/gpu_models/shared_unit.hpp"

namespace sim::gpu {

enum class SliceMode { kExclusive, kMps, kTimeSlice };

struct MigGpuOptions {
  SliceMode mode = SliceMode::kMps;
  SharedUnitOptions shared;  ///< for kMps and kTimeSlice (its sharing.mode is set from `mode`)
  std::optional<double> reconfigure_downtime_s;  ///< overrides the GPU type's value
  bool require_all_idle = false;  ///< Protean §2.2 wording: every slice idle to reconfigure
};

class MigGpu {
 public:
  MigGpu(Simulation& sim, std::string name, const GpuType& gpu, const MigGeometry& geometry,
         MigGpuOptions options = {});
  ~MigGpu();
  // Slices and the pending end-of-reconfiguration event refer to this object.
  MigGpu(const MigGpu&) = delete;
  MigGpu& operator=(const MigGpu&) = delete;

  [[nodiscard]] const GpuType& gpu() const { return gpu_; }
  [[nodiscard]] const MigGeometry& geometry() const { return geometry_; }
  [[nodiscard]] std::size_t slice_count() const { return slices_.size(); }
  /// Slices are ordered by start memory slice; indices change on reconfiguration.
  [[nodiscard]] ExecutionUnit& slice(std::size_t i);
  [[nodiscard]] const ExecutionUnit& slice(std::size_t i) const;
  [[nodiscard]] const MigProfile& slice_profile(std::size_t i) const;
  /// The slice as a SharedUnit, or nullptr in exclusive mode.
  [[nodiscard]] SharedUnit* shared_slice(std::size_t i);
  [[nodiscard]] bool reconfiguring() const { return reconfiguring_; }
  [[nodiscard]] std::uint64_t reconfigurations() const { return reconfigurations_; }

  /// Starts a change to `profiles`. Returns the reason and changes nothing when the geometry
  /// is invalid, a reconfiguration is in progress, or an affected slice is busy. Otherwise
  /// the removed slices disappear now, the new ones exist disabled until the downtime ends,
  /// and then `on_done` runs.
  std::optional<std::string> reconfigure(std::span<const std::string> profiles,
                                         std::function<void()> on_done = {});

 private:
  struct Slice {
    PlacedSlice placement;
    const MigProfile* profile = nullptr;
    std::unique_ptr<ExecutionUnit> unit;
  };
  Slice make_slice(const PlacedSlice& p);

  Simulation& sim_;
  std::string name_;
  const GpuType& gpu_;
  MigGeometry geometry_;
  MigGpuOptions options_;
  std::vector<Slice> slices_;
  bool reconfiguring_ = false;
  EventHandle reconfigure_done_;
  std::uint64_t reconfigurations_ = 0;
};

}  // namespace sim::gpu
