#pragma once
/// The read-only picture of the platform that policies decide on (DESIGN.md "Policies").
///
/// A PlatformView is a plain value: the platform fills one at each control tick, and a policy
/// unit test can build one by hand. Policies never see the platform's own objects.
/// Indices: `function` ids are the workload's function ids (WorkloadLabels); hosts and GPUs
/// are indices into `hosts` and `HostView::gpus`; slices index `GpuView::slices` (ordered by
/// their first memory slice, as sim::gpu::MigGpu orders them).

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/engine/host_terms.hpp"
#include "sim/engine/time.hpp"
#include "sim/policy/memory_rule.hpp"

namespace sim::gpu {
struct ModelProfile;
}

namespace sim::policy {

using InstanceId = std::uint64_t;

/// cold-starting -> idle <-> busy -> terminated. `kDraining`: busy, and terminates when its
/// batch ends (stopped by a policy or on a host under revocation notice).
enum class InstanceState : std::uint8_t { kColdStarting, kIdle, kBusy, kDraining, kTerminated };

const char* to_string(InstanceState s);

/// How a GPU is shared and how a host is paid for: the cluster's own types
/// (sim/engine/host_terms.hpp), so the views copy them and procurement's requests need no
/// translation.
using sim::GpuSharing;
using sim::Market;

/// The stage a cold start is in. kNone: between stages (a part of a partitioned replica whose
/// own stages are done, waiting for the rest of its replica).
enum class ColdStartStage : std::uint8_t { kNone, kDownload, kRuntime, kLoad, kCopy };
const char* to_string(ColdStartStage s);  ///< "none", "download", "runtime", "load", "copy"

/// What an instance runs with. Instances of one function may differ (INFless non-uniform
/// scaling): each carries its own batch size and resource share.
///
/// Its initialisers are not configuration defaults but the plain instance, every knob at its
/// neutral value (batch 1, uncapped SMs, no cores, no time slice, no operator profile): the
/// value a policy builds a configuration of its own from (INFless's operator schedule,
/// HarmonyBatch's deploy plan, Python's InstanceConfig()), in the policy API, which cannot see
/// the platform's schema. A scenario's function configuration never relies on them: the
/// schema's function keys (src/platform/serverless_schema.cpp) set every field
/// (tests/platform/serverless_config_test.cpp checks each is read).
struct InstanceConfig {
  int max_batch = 1;       ///< largest batch the instance takes from the queue
  double cpu_cores = 0.0;  ///< CPU function instances: vCPUs (HarmonyBatch eq. 1)
  double gpu_share = 1.0;  ///< GPU instances under MPS: SM cap in (0, 1] (1 = uncapped)
  /// cGPU time slicing (HarmonyBatch §III, eq. 3-4): > 0 makes a GPU instance a time-sliced
  /// function with m = time_slice_gb GB of GPU memory out of the model's M_max; it owns a
  /// window of m*tau in every cycle of M_max*tau on a whole (non-MIG) GPU that holds only
  /// time-sliced instances. 0: not time-sliced.
  double time_slice_gb = 0.0;
  /// INFless operator-profile instance (INFless §3.3): > 0 gives a GPU instance this many CPU
  /// threads (reserved host cores) and round(100 * gpu_share) % of the GPU's SMs; its latency
  /// is the model's combined operator profile. The shares of such instances on one GPU sum
  /// to at most 1. 0: not an operator-profile instance.
  int cpu_threads = 0;
  friend bool operator==(const InstanceConfig&, const InstanceConfig&) = default;
};

/// Where an instance runs. gpu < 0: a CPU instance on the host's cores. slice < 0: the whole
/// GPU (no MIG).
struct Location {
  int host = -1;
  int gpu = -1;
  int slice = -1;
  friend bool operator==(const Location&, const Location&) = default;
};

/// One layer of a model with a per-layer profile (Flashpoint §4.1.3), in the platform's terms:
/// what a partitioned replica's part costs per layer.
struct LayerView {
  double cold_start_s = 0.0;  ///< download from the store + load + copy of this layer alone
  double exec_s = 0.0;        ///< warm execution (batch 1)
  double transfer_s = 0.0;    ///< sending its output to the next part (host-to-host rate)
};

struct InstanceView {
  InstanceId id = 0;
  std::uint32_t function = 0;
  InstanceState state = InstanceState::kColdStarting;
  InstanceConfig config;
  Location location;
  Time created;      ///< when its cold start began
  Time state_since;  ///< when it entered `state`
  std::uint64_t batches = 0;
  /// Solo latency (s) of a batch of config.max_batch on the instance's own execution unit
  /// (its GPU, slice or cores): what rate-split dispatchers weigh by. 0 when the model's
  /// profile cannot predict that unit.
  double batch_latency_s = 0.0;
  /// Partitioned replicas (Flashpoint §4.2): the part index (0 = the head, which takes the
  /// requests) and the number of parts; -1 / 1 for a full instance. `partition_head` is the
  /// head's id (stopping the head stops every part).
  int partition = -1;
  int partitions = 1;
  InstanceId partition_head = 0;
};

struct FunctionView {
  std::uint32_t id = 0;
  std::string name;
  std::string model;         ///< catalog name, e.g. "protean/resnet-50"
  bool gpu = true;           ///< false: a CPU function
  InstanceConfig config;     ///< the function's default instance configuration
  double model_bytes = 0.0;  ///< bytes moved by a cold start
  /// The model's batch footprint (weights + a full batch's activations): what a container
  /// holds while it runs a batch, under either `container_memory` of the platform.
  double device_memory_gb = 0.0;
  /// How the platform charges that footprint for an instance of `config` (docs/policy-authors.md
  /// "Container memory"): `resident_gb` for the container's lifetime (the whole footprint under
  /// batch-footprint, the weights under weights-resident) and `activation_gb` on top of it
  /// while one of its batches runs (0 under batch-footprint). resident + activation = footprint
  /// for a GPU function; both 0 for a CPU function.
  double resident_gb = 0.0;
  double activation_gb = 0.0;
  /// Solo latency (s) of a batch of config.max_batch on the first GPU type of the cluster (or
  /// on config.cpu_cores for CPU functions): the service time policies plan with.
  double batch_latency_s = 0.0;
  std::size_t queue_length = 0;
  /// Under per-node dispatch (dispatch_scope node): the requests of this function queued at
  /// each node, (host, count) by ascending host, nodes with none left out. They wait for that
  /// node's instances; queue_length minus their sum wait in the cluster-wide queue (not yet
  /// routed: no node hosted an instance). Empty under the other dispatch scopes.
  std::vector<std::pair<int, std::size_t>> node_queues;
  Time oldest_wait;  ///< now - arrival of the oldest queued request (0 when empty)
  /// Requests taken from the queue into a batch since time zero, and the sum of their queue
  /// waits (dispatch - arrival, s): per-dequeued-request queue time, as TorchServe's QueueTime
  /// metric records it (Flashpoint TSK). A request requeued after a spot revocation cut its
  /// batch (spot_revoked_batches: requeue) is counted once, at its first dequeue; its second
  /// wait (dispatch - requeue) adds to the sum.
  std::uint64_t dequeued = 0;
  double dequeued_wait_s = 0.0;
  /// Arrivals per second over each window of PlatformView::rate_windows (same order).
  std::vector<double> arrival_rate;
  std::uint64_t arrivals = 0;         ///< since time zero
  std::uint64_t strict_arrivals = 0;  ///< arrivals of the strict class since time zero
  /// The model's fractional bandwidth requirement (Protean eq. 1), 0 when its profile has none.
  double fbr = 0.0;
  /// The model's resource deficiency factor per MIG profile name (Protean §3: solo time on the
  /// slice / solo time on 7g), empty when its profile has none.
  std::map<std::string, double> rdf{};
  /// Per-layer costs when the model has a layer profile (else empty), for partitioning.
  std::vector<LayerView> layers;
  int cold_starting = 0;
  int idle = 0;
  int busy = 0;  ///< busy + draining
  /// The model's catalog profile (owned by the model catalog, which outlives the run), for
  /// policies that predict latencies of configurations other than the default (INFless
  /// Algorithm 1 explores (batch, threads, GPU %)). nullptr when the view is built by hand.
  const gpu::ModelProfile* profile = nullptr;
  [[nodiscard]] int live() const { return cold_starting + idle + busy; }
};

/// The GPU memory of a place (a MIG slice, or a whole GPU without MIG) as the platform holds
/// it: memory_free_gb = memory_gb - resident_gb - activations_gb.
struct SliceView {
  std::string profile;
  double memory_gb = 0.0;
  double memory_free_gb = 0.0;  ///< not held by its instances nor by their running batches
  int instances = 0;
  bool enabled = true;          ///< false while its MIG reconfiguration is in progress
  double resident_gb = 0.0;     ///< held by its instances for their lifetime (resident_gb each)
  double activations_gb = 0.0;  ///< held by the batches running there (activation_gb each)
  /// The largest activation_gb among its instances: the room the platform's placement keeps
  /// free so that a batch of each can run (container_fits()).
  double activation_room_gb = 0.0;
  bool operator==(const SliceView&) const = default;
};

struct GpuView {
  std::string type;
  GpuSharing sharing = GpuSharing::kExclusive;
  bool mig = false;
  double memory_gb = 0.0;
  double memory_free_gb = 0.0;  ///< whole GPU only (no MIG), as SliceView::memory_free_gb
  int instances = 0;
  bool reconfiguring = false;
  std::vector<SliceView> slices;    ///< empty without MIG
  double resident_gb = 0.0;         ///< whole GPU only, as SliceView
  double activations_gb = 0.0;      ///< whole GPU only, as SliceView
  double activation_room_gb = 0.0;  ///< whole GPU only, as SliceView
  bool operator==(const GpuView&) const = default;
};

struct HostView {
  int index = 0;
  std::string name;
  int host_template = 0;  ///< index of its template in the cluster's host list
  Market market = Market::kOwned;
  bool available = true;  ///< false once draining (spot_drain), revoked or released
  std::optional<Time> revocation_at;
  double cores = 0.0;
  double cores_free = 0.0;
  double memory_bytes = 0.0;
  double memory_free_bytes = 0.0;  ///< not reserved by instances (cached models are evictable)
  std::vector<GpuView> gpus;
  std::vector<std::string> cached_models;  ///< models whose bytes sit in spare memory, sorted
  bool operator==(const HostView&) const = default;
};

struct ColdStartView {
  InstanceId instance = 0;
  std::uint32_t function = 0;
  int host = 0;
  ColdStartStage stage = ColdStartStage::kNone;
  Time started;
};

struct PlatformView {
  Time now;
  Time control_interval;
  std::vector<Time> rate_windows;
  std::vector<FunctionView> functions;  ///< ordered by id
  std::vector<InstanceView> instances;  ///< live instances, ordered by id
  std::vector<HostView> hosts;          ///< every host ever provisioned, by index
  std::vector<ColdStartView> cold_starts;
  int pending_vms = 0;  ///< requested, still provisioning

  /// The function with this id, or nullptr.
  [[nodiscard]] const FunctionView* function(std::uint32_t id) const {
    for (const auto& f : functions)
      if (f.id == id) return &f;
    return nullptr;
  }
};

/// What a container of `f` holds for its lifetime: resident_gb, or device_memory_gb for a view
/// built by hand that gives neither resident_gb nor activation_gb (read as batch-footprint).
[[nodiscard]] inline double resident_charge_gb(const FunctionView& f) {
  return f.resident_gb > 0 || f.activation_gb > 0 ? f.resident_gb : f.device_memory_gb;
}

/// The platform's memory rule for placing a container of `f` (with its default config) on a
/// place of `memory_gb` with `free_gb` free, whose instances hold `resident_gb` for their
/// lifetime and keep `activation_room_gb` (policy::memory_fits, which the platform checks): the
/// container's resident memory fits the free memory now, and the place's resident memory with it
/// plus the largest activations among them fits the place, so that a batch of every container there
/// can start once the others are idle. Under batch-footprint (no activations) this is free >=
/// footprint.
[[nodiscard]] inline bool container_fits(const FunctionView& f, double memory_gb, double free_gb,
                                         double resident_gb, double activation_room_gb) {
  const double resident = resident_charge_gb(f);
  const double room = activation_room_gb > f.activation_gb ? activation_room_gb : f.activation_gb;
  return memory_fits(free_gb, resident, resident_gb + resident, room, memory_gb);
}
[[nodiscard]] inline bool container_fits(const FunctionView& f, const SliceView& s) {
  return container_fits(f, s.memory_gb, s.memory_free_gb, s.resident_gb, s.activation_room_gb);
}
[[nodiscard]] inline bool container_fits(const FunctionView& f, const GpuView& g) {
  return container_fits(f, g.memory_gb, g.memory_free_gb, g.resident_gb, g.activation_room_gb);
}

}  // namespace sim::policy
