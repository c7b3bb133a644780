// Two readings of Protean's Algorithm 1 (§4.3), each a parameter, checked by hand:
// - SliceOrder: "slices (in ascending order of resources)" with ties of memory broken by the
//   slice's compute (a 3g.20gb before a 4g.20gb) or by location;
// - AdmissionMemory: what the memory estimate Algorithm 1 admits a new container by charges an
//   idle container: its weights, as the platform holds them, or a whole batch footprint.

#include <gtest/gtest.h>

#include "protean/cluster_places.hpp"
#include "protean/job_distributor.hpp"
#include "protean/profiled_thresholds.hpp"
#include "protean/protean_autoscaler.hpp"
#include "protean/reconfiguration_planner.hpp"

namespace sim::policy::protean {
namespace {

SliceView slice(const std::string& profile, double gb) {
  SliceView s;
  s.profile = profile;
  s.memory_gb = gb;
  s.memory_free_gb = gb;
  return s;
}

HostView mig_host(int index, std::vector<SliceView> slices) {
  HostView h;
  h.index = index;
  GpuView g;
  g.type = "A100-40GB";
  g.sharing = GpuSharing::kMps;
  g.mig = true;
  g.memory_gb = 40;
  g.slices = std::move(slices);
  h.gpus.push_back(g);
  return h;
}

// A best-effort model: 2 GB batch footprint, FBR 0.2, 1000 rps x 0.1 s = 100 requests in
// flight -> one batch of 128 (n_c = 1), all arrivals best-effort.
FunctionView best_effort(std::uint32_t id) {
  FunctionView f;
  f.id = id;
  f.name = "be";
  f.config.max_batch = 128;
  f.batch_latency_s = 0.1;
  f.device_memory_gb = 2.0;
  f.fbr = 0.2;
  f.arrival_rate = {1000.0};
  f.arrivals = 100;
  f.strict_arrivals = 0;
  return f;
}

std::vector<std::size_t> order_of(const PlatformView& v, SliceOrder by) {
  return ascending_order(cluster_places(v, LoadScope::kLive), by);
}

TEST(ProfileCompute, ReadsTheName) {
  EXPECT_EQ(profile_compute_slices("3g.20gb"), 3);
  EXPECT_EQ(profile_compute_slices("4g.20gb"), 4);
  EXPECT_EQ(profile_compute_slices("1g.5gb"), 1);
  EXPECT_EQ(profile_compute_slices(""), kWholeGpuCompute);
  EXPECT_THROW((void)profile_compute_slices("g.20gb"), std::invalid_argument);
  EXPECT_THROW((void)profile_compute_slices("20gb"), std::invalid_argument);
}

TEST(SliceOrder, ThreeGBeforeFourGOfEqualMemoryByCompute) {
  PlatformView v;
  v.hosts = {mig_host(0, {slice("4g.20gb", 20), slice("3g.20gb", 20)})};
  // Places 0 = 4g, 1 = 3g, both 20 GB: by compute the 3g (3 GPCs) first; by location the 4g.
  EXPECT_EQ(order_of(v, SliceOrder::kMemoryThenCompute), (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(order_of(v, SliceOrder::kMemoryThenLocation), (std::vector<std::size_t>{0, 1}));
}

TEST(SliceOrder, AcrossGpusComputeThenLocation) {
  PlatformView v;
  // GPU 0 (4g, 3g), GPU 1 (3g, 4g): places 0 = 4g, 1 = 3g, 2 = 3g, 3 = 4g.
  v.hosts = {mig_host(0, {slice("4g.20gb", 20), slice("3g.20gb", 20)}),
             mig_host(1, {slice("3g.20gb", 20), slice("4g.20gb", 20)})};
  EXPECT_EQ(order_of(v, SliceOrder::kMemoryThenCompute), (std::vector<std::size_t>{1, 2, 0, 3}));
  EXPECT_EQ(order_of(v, SliceOrder::kMemoryThenLocation), (std::vector<std::size_t>{0, 1, 2, 3}));
}

TEST(SliceOrder, DistinctMemoriesAscendAlike) {
  PlatformView v;
  // (4g 20 GB, 2g 10 GB, 1g 5 GB): memory alone decides, 1g, 2g, 4g under both readings.
  v.hosts = {mig_host(0, {slice("4g.20gb", 20), slice("2g.10gb", 10), slice("1g.5gb", 5)})};
  EXPECT_EQ(order_of(v, SliceOrder::kMemoryThenCompute), (std::vector<std::size_t>{2, 1, 0}));
  EXPECT_EQ(order_of(v, SliceOrder::kMemoryThenLocation), (std::vector<std::size_t>{2, 1, 0}));
}

TEST(SliceOrder, TagsFillTheSmallerComputeSliceFirst) {
  PlatformView v;
  v.hosts = {mig_host(0, {slice("4g.20gb", 20), slice("3g.20gb", 20)})};
  FunctionView be = best_effort(0);
  be.device_memory_gb = 10.0;  // BE_mem = 1 container x 10 GB on the one GPU
  v.functions = {be};
  // Algorithm 1 lines 2-8: tag = min(1, 10 / 20) = 0.5 on the first slice in order, 0 after.
  auto places = cluster_places(v, LoadScope::kLive);
  tag_places(places, v, ContainerCount::kInFlight, 1.0, ContainerScope::kCluster,
             SliceOrder::kMemoryThenCompute);
  EXPECT_DOUBLE_EQ(places[1].load.tag, 0.5);  // 3g
  EXPECT_DOUBLE_EQ(places[0].load.tag, 0.0);  // 4g
  // tagged FBR = tag x memory x FBR per GB = 0.5 x 20 x 0.2 / 10 = 0.2.
  EXPECT_DOUBLE_EQ(places[1].load.tagged_best_effort_fbr, 0.2);
  places = cluster_places(v, LoadScope::kLive);
  tag_places(places, v, ContainerCount::kInFlight, 1.0, ContainerScope::kCluster,
             SliceOrder::kMemoryThenLocation);
  EXPECT_DOUBLE_EQ(places[0].load.tag, 0.5);
  EXPECT_DOUBLE_EQ(places[1].load.tag, 0.0);
}

TEST(SliceOrder, BestEffortContainerFirstFitOntoThe3g) {
  PlatformView v;
  v.hosts = {mig_host(0, {slice("4g.20gb", 20), slice("3g.20gb", 20)})};
  v.functions = {best_effort(0)};
  for (const SliceOrder by : {SliceOrder::kMemoryThenCompute, SliceOrder::kMemoryThenLocation}) {
    ProteanAutoscalerConfig c;
    c.reconfigure = false;
    c.slice_order = by;
    ProteanAutoscaler a(c);
    const auto d = a.decide(v);
    // n_c = ceil(100 / 128) = 1; first fit: the first slice in order (both hold 2 GB).
    ASSERT_EQ(d.start.size(), 1U);
    EXPECT_EQ(d.start[0].location->slice, by == SliceOrder::kMemoryThenCompute ? 1 : 0);
  }
}

TEST(SliceOrder, DispatcherPacksABestEffortBatchOntoThe3g) {
  PlatformView v;
  v.hosts = {mig_host(0, {slice("4g.20gb", 20), slice("3g.20gb", 20)})};
  v.functions = {best_effort(0)};
  InstanceView on4g;
  on4g.id = 1;
  on4g.function = 0;
  on4g.state = InstanceState::kIdle;
  on4g.location = {0, 0, 0};
  InstanceView on3g = on4g;
  on3g.id = 2;
  on3g.location = {0, 0, 1};
  v.instances = {on4g, on3g};
  const std::vector<InstanceView> idle = v.instances;
  std::vector<QueuedRequest> q(1);
  q[0].cls = RequestClass::kBestEffort;
  const std::vector<std::size_t> take{0};
  // Both slices have 20 GB free of running batches: first fit takes the first in order.
  JobDistributor by_compute(SliceOrder::kMemoryThenCompute);
  EXPECT_EQ(by_compute.choose({ms(0), 0, idle, q, take, &v}), 2U);
  JobDistributor by_location(SliceOrder::kMemoryThenLocation);
  EXPECT_EQ(by_location.choose({ms(0), 0, idle, q, take, &v}), 1U);
}

TEST(SliceOrder, ProfiledThresholdsTagTheSmallerComputeSliceFirst) {
  // A set (4g, 3g) with 10 GB of BE memory (one BE batch of 10 GB, FBR 1.0). By compute the
  // 3g is tagged min(1, 10 / 20) = 0.5 (tagged FBR 0.5 x 20 / 10 x 1.0 = 1.0, eta 1.7333 x
  // 1.48 = 2.565) and the 4g untagged: eta = 1.4125 x max{0.48, 1} = 1.4125. By location the
  // 4g is tagged (eta 1.4125 x 1.48 = 2.0905) and the untagged 3g gives 1.7333 x 1 = 1.7333.
  ThresholdProfile p;
  p.strict_fbr = 0.48;
  p.strict_rdf = {{"4g.20gb", 1.4125}, {"3g.20gb", 1.7333}};
  p.best_effort_fbr = 1.0;
  p.best_effort_batch_memory_gb = 10.0;
  p.best_effort_batch = 128;
  const std::vector<std::string> set{"4g.20gb", "3g.20gb"};
  p.slice_order = SliceOrder::kMemoryThenCompute;
  EXPECT_DOUBLE_EQ(strict_eta_on(set, 10.0, p), 1.4125);
  p.slice_order = SliceOrder::kMemoryThenLocation;
  EXPECT_DOUBLE_EQ(strict_eta_on(set, 10.0, p), 1.7333);
}

// ResNet 50 under weights-resident memory: 0.1 GB of weights, 6.4 GB of activations (footprint
// 6.5 GB, FBR 0.48, RDFs from protean.json), strict.
FunctionView resnet(double rate) {
  FunctionView f;
  f.id = 0;
  f.name = "resnet50";
  f.config.max_batch = 128;
  f.batch_latency_s = 0.11;
  f.device_memory_gb = 6.5;
  f.resident_gb = 0.1;
  f.activation_gb = 6.4;
  f.fbr = 0.48;
  f.rdf = {{"4g.20gb", 1.4125}, {"2g.10gb", 2.375}, {"1g.5gb", 4.3}};
  f.arrival_rate = {rate};
  f.arrivals = 100;
  f.strict_arrivals = 100;
  return f;
}

InstanceView instance(InstanceId id, std::uint32_t fn, Location at, InstanceState st) {
  InstanceView i;
  i.id = id;
  i.function = fn;
  i.location = at;
  i.state = st;
  return i;
}

// (1g, 2g, 4g) with two idle ResNet 50 containers on the 4g: resident 0.2 GB, free 19.8 GB.
PlatformView two_idle_on_4g() {
  PlatformView v;
  v.hosts = {mig_host(0, {slice("1g.5gb", 5), slice("2g.10gb", 10), slice("4g.20gb", 20)})};
  auto& s4 = v.hosts[0].gpus[0].slices[2];
  s4.instances = 2;
  s4.resident_gb = 0.2;
  s4.activation_room_gb = 6.4;
  s4.memory_free_gb = 19.8;
  v.functions = {resnet(5000)};
  v.instances = {instance(1, 0, {0, 0, 2}, InstanceState::kIdle),
                 instance(2, 0, {0, 0, 2}, InstanceState::kIdle)};
  return v;
}

TEST(AdmissionMemory, IdleContainersChargedWeightsOrFootprint) {
  const PlatformView v = two_idle_on_4g();
  // platform: the view's free memory, 20 - 2 x 0.1 = 19.8; batch-footprint: 20 - 2 x 6.5 = 7.
  EXPECT_NEAR(
      cluster_places(v, LoadScope::kLive, {}, AdmissionMemory::kPlatform)[2].load.memory_free_gb,
      19.8, 1e-12);
  EXPECT_NEAR(cluster_places(v, LoadScope::kLive, {}, AdmissionMemory::kBatchFootprint)[2]
                  .load.memory_free_gb,
              7.0, 1e-12);
}

TEST(AdmissionMemory, RunningBatchesAreChargedTheirActivationsUnderBoth) {
  PlatformView v = two_idle_on_4g();
  auto& s4 = v.hosts[0].gpus[0].slices[2];
  s4.activations_gb = 6.4;  // one batch running: free 19.8 - 6.4 = 13.4
  s4.memory_free_gb = 13.4;
  v.instances[0].state = InstanceState::kBusy;
  EXPECT_NEAR(
      cluster_places(v, LoadScope::kLive, {}, AdmissionMemory::kPlatform)[2].load.memory_free_gb,
      13.4, 1e-12);
  EXPECT_NEAR(cluster_places(v, LoadScope::kLive, {}, AdmissionMemory::kBatchFootprint)[2]
                  .load.memory_free_gb,
              7.0, 1e-12);
}

TEST(AdmissionMemory, PlatformAdmitsWhatIdleWeightsLeaveRoomFor) {
  // 5000 rps x 0.11 s = 550 requests -> ceil(550 / 128) = 5 containers; 2 live, 3 to start.
  const PlatformView v = two_idle_on_4g();
  ProteanAutoscalerConfig c;
  c.reconfigure = false;
  c.admission_memory = AdmissionMemory::kPlatform;
  const auto d = ProteanAutoscaler(c).decide(v);
  // Estimates: 1g 5 (< 6.5: never), 2g 10, 4g 19.8 (strict FBR 0.96 there).
  // 1st: 4g eta 1.4125 x (0.48 + 0.96) = 2.034 < 2g 2.375 -> 4g (19.8 - 6.5 = 13.3).
  // 2nd: 4g 1.4125 x (0.48 + 1.44) = 2.712 > 2g 2.375 -> 2g (10 - 6.5 = 3.5).
  // 3rd: the 2g no longer holds 6.5 GB; the 4g does (13.3; platform 0.3 + 0.1 + 6.4 <= 20).
  ASSERT_EQ(d.start.size(), 3U);
  EXPECT_EQ(d.start[0].location->slice, 2);
  EXPECT_EQ(d.start[1].location->slice, 1);
  EXPECT_EQ(d.start[2].location->slice, 2);
  // batch-footprint: the 4g's estimate is 7.0, so after the 1st (0.5 left) and the 2nd (2g),
  // none holds 6.5 GB: two starts.
  c.admission_memory = AdmissionMemory::kBatchFootprint;
  EXPECT_EQ(ProteanAutoscaler(c).decide(v).start.size(), 2U);
}

TEST(AdmissionMemory, EvictionFreesWhatTheIdleContainersAreCharged) {
  // A 20 GB GPU (no MIG) holds four containers of a model g with no demand (surplus): 3 GB of
  // weights and 5.5 GB of activations each (footprint 8.5), one of them running a batch:
  // resident 12, activations 5.5, free 20 - 12 - 5.5 = 2.5. One ResNet 50 container is needed
  // (100 rps x 0.11 s = 11 requests).
  PlatformView v;
  HostView h;
  GpuView g;
  g.type = "A100-40GB";
  g.sharing = GpuSharing::kMps;
  g.memory_gb = 20;
  g.instances = 4;
  g.resident_gb = 12;
  g.activations_gb = 5.5;
  g.activation_room_gb = 5.5;
  g.memory_free_gb = 2.5;
  h.gpus.push_back(g);
  v.hosts = {h};
  FunctionView other = resnet(0);
  other.id = 1;
  other.name = "g";
  other.device_memory_gb = 8.5;
  other.resident_gb = 3.0;
  other.activation_gb = 5.5;
  other.arrivals = 0;
  other.strict_arrivals = 0;
  v.functions = {resnet(100), other};
  v.instances = {instance(1, 1, {0, 0, -1}, InstanceState::kBusy),
                 instance(2, 1, {0, 0, -1}, InstanceState::kIdle),
                 instance(3, 1, {0, 0, -1}, InstanceState::kIdle),
                 instance(4, 1, {0, 0, -1}, InstanceState::kIdle)};
  ProteanAutoscalerConfig c;
  c.reconfigure = false;
  // platform: the platform's rule holds already (12 + 0.1 + 6.4 <= 20), the estimate 2.5 does
  // not hold 6.5 GB; each idle container stopped frees its 3 GB of weights: 5.5, then 8.5 ->
  // two stopped.
  c.admission_memory = AdmissionMemory::kPlatform;
  auto d = ProteanAutoscaler(c).decide(v);
  ASSERT_EQ(d.start.size(), 1U);
  EXPECT_EQ(d.stop.size(), 2U);
  // batch-footprint: 20 - 4 x 8.5 = -14; each stopped frees 8.5: -5.5, 3, 11.5 -> three.
  c.admission_memory = AdmissionMemory::kBatchFootprint;
  d = ProteanAutoscaler(c).decide(v);
  ASSERT_EQ(d.start.size(), 1U);
  EXPECT_EQ(d.stop.size(), 3U);
}

}  // namespace
}  // namespace sim::policy::protean
