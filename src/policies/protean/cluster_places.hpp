#pragma once
/// The places of a cluster where Protean's containers and batches run (enabled MIG slices, or
/// whole GPUs without MIG), with the load already on them, built from a PlatformView.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "job_distribution.hpp"
#include "sim/policy/platform_view.hpp"

namespace sim::policy::protean {

struct Place {
  Location location;
  std::string profile;  ///< MIG profile, empty for a whole GPU
  bool exclusive = false;
  int instances = 0;
  /// compute slices (GPCs) of its MIG profile, kWholeGpuCompute for a whole GPU: the tie-break
  /// of SliceOrder::kMemoryThenCompute
  int compute_slices = 0;
  SliceLoad load;  ///< memory and co-runner FBRs (rdf and tags filled by the caller)
  /// The place's memory as the platform holds it (SliceView): free, held by its instances for
  /// their lifetime, and the activation room its placement keeps (policy::container_fits).
  double platform_free_gb = 0.0;
  double resident_gb = 0.0;
  double activation_room_gb = 0.0;
};

/// A function serves strict requests when most of its arrivals so far were strict (Protean §5:
/// strict requests are for one model, best-effort ones for another). No arrivals: strict.
bool is_strict(const FunctionView& f);

/// The RDF of `f` on a MIG profile (1 for a whole GPU or a profile the model does not list).
double rdf_on(const FunctionView& f, const std::string& profile);

/// What n_r ("incoming requests", Protean §4.2) counts; the paper does not define it further.
enum class ContainerCount : std::uint8_t {
  /// the requests that arrive during one batch on 7g (arrival rate over the first rate window x
  /// the batch latency) plus those already queued: the batches in flight
  kInFlight,
  /// the requests that arrive during one monitor interval plus those queued: "at least one
  /// container to service each incoming request batch" per interval (§4, Fig. 4)
  kIntervalBatches,
  /// the requests that arrive during one monitor interval, the queue not counted: §4.2's
  /// "one container spawned for each batch of requests received", n_r "the total number of
  /// incoming requests" read as arrivals only (a backlog adds no containers; those sized for
  /// the arrivals drain it)
  kIntervalArrivals
};

/// Where the batches that n_c counts are formed (Protean §4: requests are "load-balanced across
/// the worker nodes by the Dispatcher" and then "serviced as batches ... by GPU-accelerated
/// containers"; §4.2: "one container spawned for each batch of requests received").
enum class ContainerScope : std::uint8_t {
  /// each worker node forms its own batches from its even share of the requests to come and
  /// from its own queue: see ContainerNeed. A node's backlog gets containers on that node.
  kNode,
  /// each worker node forms its own batches from an even share of all of n_r, queued requests
  /// included (the count sees the cluster's totals only, not where the requests wait): n_c =
  /// sum over the k nodes of ceil((n_r / k) / batch_size), k = min(nodes, ceil(n_r)) (a node
  /// forms a batch only if it receives a request); placed anywhere
  kNodeEven,
  /// one cluster-wide queue forms the batches: n_c = ceil(n_r / batch_size)
  kCluster
};

/// n_c of one function by where its batches are formed.
///
/// kNode (Protean §4: requests are "load-balanced across the worker nodes by the Dispatcher",
/// then re-ordered and "serviced as batches" at the node; §4.2: "one container spawned for each
/// batch of requests received"). The pool P = the requests to come (n_r's arrival term) plus
/// those no worker node holds yet (cluster queue, nodes no longer available) is spread by the
/// gateway evenly over k = min(N, ceil(P)) of the N worker nodes, s = P / k each; worker node h
/// also holds its own queue q_h. Node h forms ceil((s + q_h) / B) batches. Of these,
/// ceil(s / B) per receiving node would be needed without the queue and may run on any node
/// (the gateway routes arrivals to the nodes that host an instance): `anywhere` = k x ceil(s /
/// B). The rest, ceil((s + q_h) / B) - ceil(s / B), are for requests already waiting at h, which
/// only h's containers can take: `at_node[h]`, placed on h. With equal queues on every node
/// this is kNodeEven's count; it differs where a node holds a backlog of its own.
///
/// kNodeEven and kCluster: everything in `anywhere` (containers_needed with N or 1 nodes).
struct ContainerNeed {
  int anywhere = 0;
  std::map<int, int> at_node;  ///< host -> containers for that node's own backlog (> 0 only)
  [[nodiscard]] int total() const;
};

/// The hosts of the worker nodes the gateway balances over: available, with at least one GPU,
/// ascending.
std::vector<int> worker_hosts(const PlatformView& view);
/// worker_hosts into `out`, reusing its storage.
void worker_hosts(const PlatformView& view, std::vector<int>& out);

ContainerNeed container_need(const FunctionView& f, ContainerCount count, double interval_s,
                             ContainerScope scope, const std::vector<int>& workers);

/// Containers a function needs (Protean §4.2): n_c = ceil(n_r / batch_size), n_r as `count`
/// says (`interval_s` is the monitor interval of kIntervalBatches), taken per node over
/// `nodes` worker nodes (kNode) or once for the cluster (nodes = 1 is the same).
int containers_needed(const FunctionView& f, ContainerCount count = ContainerCount::kInFlight,
                      double interval_s = 1.0, int nodes = 1);

/// The worker nodes the gateway balances over: available hosts with at least one GPU (>= 1).
int worker_nodes(const PlatformView& view);

/// GPUs (host, gpu) the caller wants left alone (e.g. draining for a reconfiguration).
using GpuSet = std::set<std::pair<int, int>>;

/// Which instances count as co-runners (the FBR sums of eq. 2). Memory: see cluster_places.
enum class LoadScope : std::uint8_t {
  kLive,  ///< every live instance is a potential co-runner (placing containers)
  kBusy   ///< only instances running a batch (dispatching a batch)
};

/// What Protean's estimate of a place's free memory (load.memory_free_gb under LoadScope::kLive,
/// the memory Algorithm 1 admits a new container and first-fits best-effort work by) charges
/// each live container.
enum class AdmissionMemory : std::uint8_t {
  /// what the platform holds: every live container its weights (resident_gb), the batches
  /// running now their activations, i.e. the view's free memory. Algorithm 1 measures a slice
  /// by what BE *requests* occupy ("what fraction of its memory will be occupied by BE
  /// requests", BE_mem / slice.available_mem, §4.3), not by its idle containers, and the
  /// platform runs weights-resident memory (§6.1.4: 39-42% memory use). A new container is
  /// started for a batch ("one container spawned for each batch", §4.2), so it must hold its
  /// whole footprint (weights + that batch's activations) beside the batches running now.
  kPlatform,
  /// every live container, idle or not, one batch in flight at its footprint
  /// (device_memory_gb): the reading before session 12 ("one container ... for each batch",
  /// §4.2, read as every container always holding a batch)
  kBatchFootprint
};

/// Every place on an available host, in host, GPU, slice order, skipping disabled slices,
/// reconfiguring GPUs and `excluded` GPUs. FBR sums by the functions' classes.
/// load.memory_free_gb is Protean's estimate of the memory left for batches (slices hold BE
/// *requests* by their memory, "~2 to 14 GB per batch", §4.3, §5, §6.1.1 Fig. 7):
/// kLive under AdmissionMemory::kPlatform, and kBusy (either), the view's free memory: what
/// the platform holds, the resident memory of every live container (idle, cold-starting or
/// busy: its weights under weights-resident) and the activations of the running batches.
/// kLive under kBatchFootprint, the place's memory minus the footprints of its live containers
/// (the view's free memory, plus the activations running batches hold, minus the activations
/// every live container's batch would take). Under the platform's batch-footprint memory both
/// kLive readings are what the platform holds. (kBusy charged the running batches their
/// footprints and the other containers nothing before session 13: it overstated the free
/// memory by the weights of the idle and cold-starting containers; see JobDistributor.) The
/// platform's own figures are in Place::platform_free_gb, resident_gb and activation_room_gb.
std::vector<Place> cluster_places(const PlatformView& view, LoadScope scope,
                                  const GpuSet& excluded = {},
                                  AdmissionMemory memory = AdmissionMemory::kPlatform);

/// Storage that cluster_places, tag_places and place_at reuse from call to call: the
/// dispatcher builds the places for every batch, where a std::map of places and a map of GPUs
/// built per call were most of its cost. `out`'s places are overwritten in place.
struct PlaceScratch {
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  // The view's places laid out flat: each host's GPUs, each GPU's slots (its slices, or one
  // for the whole GPU), with the index of the Place at each slot (kNone: no place there).
  std::vector<std::size_t> host_at;     ///< host index -> position in view.hosts (kNone: none)
  std::vector<std::size_t> gpu_begin;   ///< host position -> its first GPU (one past: next's)
  std::vector<std::size_t> slot_begin;  ///< GPU -> its first slot (one past: next GPU's)
  std::vector<char> mig;                ///< GPU -> whether its slots are MIG slices
  std::vector<std::size_t> place;       ///< slot -> place index, kNone when none
  // tag_places' and the callers' working storage.
  std::vector<int> workers;
  std::vector<std::size_t> order;  ///< ascending_order of the places
  std::vector<std::size_t> rank;   ///< place -> position in `order`
  std::vector<std::size_t> by_gpu;
};

/// cluster_places(view, scope, excluded) into `out`, reusing `out`'s and `scratch`'s storage.
void cluster_places(const PlatformView& view, LoadScope scope, const GpuSet& excluded,
                    std::vector<Place>& out, PlaceScratch& scratch,
                    AdmissionMemory memory = AdmissionMemory::kPlatform);

/// The index in `out` of the last cluster_places(..., out, scratch) of the place at `l`, or
/// PlaceScratch::kNone.
std::size_t place_at(const PlaceScratch& scratch, const Location& l);

/// Algorithm 1's tags on every GPU: the best-effort memory demand (sum over best-effort
/// functions of container_need(count, scope).total() x device memory) is shared evenly among the
/// GPUs, and each GPU's places are tagged in ascending order of resources (`by`);
/// tagged_best_effort_fbr = tag x memory x the demand's FBR per GB.
void tag_places(std::vector<Place>& places, const PlatformView& view,
                ContainerCount count = ContainerCount::kInFlight, double interval_s = 1.0,
                ContainerScope scope = ContainerScope::kCluster,
                SliceOrder by = SliceOrder::kMemoryThenCompute);

/// tag_places reusing `scratch`; leaves scratch.order = ascending_order(places, by) and
/// scratch.rank its inverse.
void tag_places(std::vector<Place>& places, const PlatformView& view, ContainerCount count,
                double interval_s, ContainerScope scope, PlaceScratch& scratch,
                SliceOrder by = SliceOrder::kMemoryThenCompute);

/// Indices of `places` in Algorithm 1's ascending order of resources: memory, then (`by`)
/// compute and location, or location.
std::vector<std::size_t> ascending_order(const std::vector<Place>& places,
                                         SliceOrder by = SliceOrder::kMemoryThenCompute);
/// ascending_order into `order`, reusing its storage.
void ascending_order(const std::vector<Place>& places, std::vector<std::size_t>& order,
                     SliceOrder by = SliceOrder::kMemoryThenCompute);

}  // namespace sim::policy::protean
