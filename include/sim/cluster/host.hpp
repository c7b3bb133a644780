#pragma once
/// A host (a VM or an owned machine): CPU cores, memory, GPUs and a NIC on the topology.
///
/// GPUs without MIG are one execution unit each (exclusive: one batch at a time, FIFO; or MPS
/// co-location, Protean eq. 1); GPUs with a MIG geometry are a sim::gpu::MigGpu whose slices
/// are units. Memory accounting: instances reserve host memory (for the whole cold start) and
/// GPU memory (for their lifetime); model bytes are cached in whatever is left (ModelCache).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/cluster/model_cache.hpp"
#include "sim/engine/host_terms.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/gpu_models/execution_unit.hpp"
#include "sim/gpu_models/mig_gpu.hpp"

namespace sim::cluster {

// One type each for the whole simulator (sim/engine/host_terms.hpp).
using sim::GpuSharing;
using sim::Market;
using sim::parse_gpu_sharing;
using sim::parse_market;

// GpuSpec and HostSpec declare no defaults (members are value-initialised): a scenario's come
// from the serverless schema (src/platform/serverless_schema.cpp, the one place they are
// declared; default_host_template() resolves them), and a hand-built spec sets what it means.
struct GpuSpec {
  std::string type;              ///< a GPU type of the model catalog
  GpuSharing sharing{};          ///< (value-initialised: kExclusive)
  std::vector<std::string> mig;  ///< MIG geometry (profile names); empty = no MIG
};

struct HostSpec {
  double cores{};         ///< CPU cores (vCPUs)
  double memory_bytes{};  ///< host memory
  std::vector<GpuSpec> gpus;
  Market market{};          ///< (value-initialised: kOwned)
  double price_per_hour{};  ///< USD
};

class GpuDevice {
 public:
  GpuDevice(Simulation& sim, std::string name, const gpu::GpuType& type, const GpuSpec& spec);
  GpuDevice(const GpuDevice&) = delete;
  GpuDevice& operator=(const GpuDevice&) = delete;

  [[nodiscard]] const gpu::GpuType& type() const { return type_; }
  [[nodiscard]] GpuSharing sharing() const { return sharing_; }
  [[nodiscard]] bool mig() const { return mig_ != nullptr; }
  [[nodiscard]] gpu::MigGpu* mig_gpu() { return mig_.get(); }
  [[nodiscard]] const gpu::MigGpu* mig_gpu() const { return mig_.get(); }
  /// Number of places instances can go: MIG slices, or 1 (the whole GPU).
  [[nodiscard]] std::size_t places() const;
  /// The unit of a place (slice index, or -1 for the whole GPU).
  [[nodiscard]] gpu::ExecutionUnit& unit(int slice);
  [[nodiscard]] double place_memory_gb(int slice) const;
  [[nodiscard]] bool place_enabled(int slice) const;

  // Reservations by instances, per place.
  [[nodiscard]] double reserved_gb(int slice) const;
  [[nodiscard]] int instances(int slice) const;
  [[nodiscard]] int instances() const;
  /// An instance reserves `gb` for its lifetime; `activation_gb` is what each of its batches
  /// will hold on top while it runs (ContainerMemory::kWeightsResident, else 0), remembered
  /// for activation_room_gb(). release() takes the same two figures.
  void reserve(int slice, double gb, double activation_gb = 0.0);
  void release(int slice, double gb, double activation_gb = 0.0);
  /// The largest activations among the place's instances (0 without any): the room the
  /// platform's placement keeps free for a batch (serverless feasibility.cpp `fits`).
  [[nodiscard]] double activation_room_gb(int slice) const;
  /// Memory a running batch holds on top of its instance's reservation (activations of
  /// ContainerMemory::kWeightsResident): taken only if it fits the place's free memory, so the
  /// memory in use never exceeds the place's; false (nothing taken) when it does not fit.
  [[nodiscard]] bool hold(int slice, double gb);
  void unhold(int slice, double gb);
  /// Of reserved_gb(slice), what running batches hold.
  [[nodiscard]] double held_gb(int slice) const;
  /// What the accessors above tell of one place, read with one index check: the platform's
  /// views copy every place of every GPU per dispatched batch, where six calls per place
  /// were a third of that copy.
  struct PlaceFigures {
    double memory_gb;  ///< place_memory_gb
    bool enabled;      ///< place_enabled
    double reserved_gb;
    int instances;
    double held_gb;
    double activation_room_gb;
  };
  [[nodiscard]] PlaceFigures place_figures(int slice) const;

  // Busy time (any batch running on any place), for utilisation.
  void batch_started(Time now);
  void batch_finished(Time now);
  /// A hint, no effect on behaviour: starts fetching what batch_started / batch_finished
  /// touch, for a caller that knows a batch ends here soon and has other work meanwhile.
  void prefetch_batch_counters() const { __builtin_prefetch(&running_batches_); }
  [[nodiscard]] Time busy_time(Time now) const;

  /// Resets per-place reservations after a MIG geometry change (the GPU held no instance).
  void geometry_changed();

 private:
  std::size_t index(int slice) const;
  const gpu::GpuType& type_;
  GpuSharing sharing_;
  std::unique_ptr<gpu::ExecutionUnit> whole_;
  std::unique_ptr<gpu::MigGpu> mig_;
  std::vector<double> reserved_gb_;
  std::vector<int> instances_;
  std::vector<double> held_gb_;
  std::vector<std::vector<double>> activations_;  ///< per place, of each instance (> 0 only)
  int running_batches_ = 0;
  Time busy_since_;
  Time busy_total_;
};

struct Host {
  int index = 0;
  std::string name;
  int template_index = 0;
  HostSpec spec;
  std::optional<std::uint32_t> nic;  ///< topology node, when a network is configured
  std::vector<std::unique_ptr<GpuDevice>> gpus;
  ModelCache cache;
  double reserved_bytes = 0.0;  ///< host memory reserved by instances
  double reserved_cores = 0.0;
  bool available = true;  ///< takes new instances and batches
  bool gone = false;      ///< revoked or released: no longer exists
  std::optional<Time> revocation_at;
  Time up_since;                ///< when it started costing
  std::optional<Time> down_at;  ///< when it stopped costing

  [[nodiscard]] double free_bytes() const { return spec.memory_bytes - reserved_bytes; }
  /// Spare memory the cache may use.
  [[nodiscard]] double cache_capacity() const { return free_bytes() > 0 ? free_bytes() : 0.0; }
  [[nodiscard]] double cost_usd(Time end) const;
};

}  // namespace sim::cluster
