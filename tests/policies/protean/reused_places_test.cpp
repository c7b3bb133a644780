// cluster_places / tag_places into reused storage (what JobDistributor does for every batch):
// the places, their loads and tags equal those built afresh whatever the previous call saw, and
// place_at finds each place by location as the map by location did.

#include <gtest/gtest.h>

#include "protean/cluster_places.hpp"

namespace sim::policy::protean {
namespace {

SliceView slice(const std::string& profile, double gb, bool enabled = true) {
  SliceView s;
  s.profile = profile;
  s.memory_gb = gb;
  s.memory_free_gb = gb;
  s.enabled = enabled;
  return s;
}

GpuView mig_gpu(bool enabled_2g = true) {
  GpuView g;
  g.sharing = GpuSharing::kMps;
  g.mig = true;
  g.memory_gb = 40;
  g.slices = {slice("1g.5gb", 5), slice("2g.10gb", 10, enabled_2g), slice("4g.20gb", 20)};
  return g;
}

GpuView whole_gpu() {
  GpuView g;
  g.sharing = GpuSharing::kMps;
  g.memory_gb = 40;
  g.memory_free_gb = 40;
  return g;
}

FunctionView function(std::uint32_t id, bool strict, double fbr, double gb, double rate) {
  FunctionView f;
  f.id = id;
  f.config.max_batch = 8;
  f.batch_latency_s = 1.0;
  f.device_memory_gb = gb;
  f.fbr = fbr;
  f.arrival_rate = {rate};
  f.arrivals = 10;
  f.strict_arrivals = strict ? 10 : 0;
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

HostView host(int index, std::vector<GpuView> gpus, bool available = true) {
  HostView h;
  h.index = index;
  h.available = available;
  h.gpus = std::move(gpus);
  return h;
}

// Host 0: a MIG GPU and a whole GPU; host 1: two MIG GPUs. A strict function with busy
// containers on host 0's 4g and whole GPU, a best-effort one busy on host 1's 1g.
PlatformView first_view() {
  PlatformView v;
  v.hosts = {host(0, {mig_gpu(), whole_gpu()}), host(1, {mig_gpu(), mig_gpu()})};
  v.functions = {function(0, true, 0.5, 6, 10), function(1, false, 0.25, 2, 20)};
  v.instances = {instance(1, 0, {0, 0, 2}, InstanceState::kBusy),
                 instance(2, 0, {0, 1, -1}, InstanceState::kBusy),
                 instance(3, 1, {1, 0, 0}, InstanceState::kBusy)};
  return v;
}

// Fewer places: host 0 has one MIG GPU with its 2g disabled, host 1 is unavailable, host 2 a
// whole GPU; 24 BE requests in flight need 3 batches of 2 GB = 6 GB, 3 GB per GPU.
PlatformView second_view() {
  PlatformView v;
  v.hosts = {host(0, {mig_gpu(false)}), host(1, {mig_gpu()}, false), host(2, {whole_gpu()})};
  // The memory the platform holds (the functions give only their footprints: batch-footprint,
  // every container holds its footprint): the 1g a BE container (2 GB), the 4g a strict one
  // (6 GB), the whole GPU an idle BE container (2 GB).
  v.hosts[0].gpus[0].slices[0].memory_free_gb = 3;
  v.hosts[0].gpus[0].slices[2].memory_free_gb = 14;
  v.hosts[2].gpus[0].memory_free_gb = 38;
  v.functions = {function(0, true, 0.5, 6, 0), function(1, false, 0.25, 2, 24)};
  v.instances = {instance(4, 1, {0, 0, 0}, InstanceState::kBusy),
                 instance(5, 0, {0, 0, 2}, InstanceState::kDraining),
                 instance(6, 0, {0, 0, 1}, InstanceState::kBusy),  // on the disabled 2g
                 instance(7, 0, {1, 0, 2}, InstanceState::kBusy),  // on the unavailable host
                 instance(8, 1, {2, 0, -1}, InstanceState::kIdle)};
  return v;
}

void expect_same(const std::vector<Place>& a, const std::vector<Place>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].location, b[k].location) << k;
    EXPECT_EQ(a[k].profile, b[k].profile) << k;
    EXPECT_EQ(a[k].instances, b[k].instances) << k;
    EXPECT_EQ(a[k].load.memory_gb, b[k].load.memory_gb) << k;
    EXPECT_EQ(a[k].load.memory_free_gb, b[k].load.memory_free_gb) << k;
    EXPECT_EQ(a[k].load.strict_fbr, b[k].load.strict_fbr) << k;
    EXPECT_EQ(a[k].load.best_effort_fbr, b[k].load.best_effort_fbr) << k;
    EXPECT_EQ(a[k].load.tag, b[k].load.tag) << k;
    EXPECT_EQ(a[k].load.tagged_best_effort_fbr, b[k].load.tagged_best_effort_fbr) << k;
    EXPECT_EQ(a[k].load.rdf, b[k].load.rdf) << k;
  }
}

TEST(ReusedPlaces, EqualPlacesBuiltAfresh) {
  std::vector<Place> places;
  PlaceScratch scratch;
  const PlatformView a = first_view();
  cluster_places(a, LoadScope::kBusy, {}, places, scratch);
  tag_places(places, a, ContainerCount::kInFlight, 1.0, ContainerScope::kCluster, scratch);
  ASSERT_EQ(places.size(), 10U);  // 3 + 1 + 3 + 3

  const PlatformView b = second_view();
  cluster_places(b, LoadScope::kBusy, {}, places, scratch);
  tag_places(places, b, ContainerCount::kInFlight, 1.0, ContainerScope::kCluster, scratch);
  auto fresh = cluster_places(b, LoadScope::kBusy);
  tag_places(fresh, b);
  expect_same(places, fresh);
  EXPECT_EQ(scratch.order, ascending_order(fresh));

  // By hand: places 1g (0,0,0), 4g (0,0,2), whole (2,0,-1). The 1g holds a BE batch: 5 - 2 = 3
  // GB free, BE FBR 0.25; the 4g a draining strict batch: 20 - 6 = 14, strict FBR 0.5; the
  // idle container on the whole GPU is no co-runner but holds its memory: 40 - 2 = 38 (the
  // view's free memory). Tags: 3 GB per GPU, GPU (0, 0) in ascending order 1g then 4g: 1g
  // min(1, 3/5) = 0.6, the rest 0; the whole GPU 3/40.
  ASSERT_EQ(places.size(), 3U);
  EXPECT_DOUBLE_EQ(places[0].load.memory_free_gb, 3.0);
  EXPECT_DOUBLE_EQ(places[0].load.best_effort_fbr, 0.25);
  EXPECT_DOUBLE_EQ(places[1].load.memory_free_gb, 14.0);
  EXPECT_DOUBLE_EQ(places[1].load.strict_fbr, 0.5);
  EXPECT_DOUBLE_EQ(places[2].load.memory_free_gb, 38.0);
  EXPECT_DOUBLE_EQ(places[0].load.tag, 0.6);
  EXPECT_DOUBLE_EQ(places[1].load.tag, 0.0);
  EXPECT_DOUBLE_EQ(places[2].load.tag, 3.0 / 40.0);
  // FBR per GB of the demand: 3 x 0.25 / 6 GB; the 1g's tagged FBR 0.6 x 5 x 0.125.
  EXPECT_DOUBLE_EQ(places[0].load.tagged_best_effort_fbr, 0.6 * 5 * 0.125);
}

TEST(ReusedPlaces, PlaceAtFindsEachPlaceByLocation) {
  std::vector<Place> places;
  PlaceScratch scratch;
  cluster_places(first_view(), LoadScope::kLive, {}, places, scratch);
  const PlatformView b = second_view();
  cluster_places(b, LoadScope::kLive, {}, places, scratch);
  constexpr auto kNone = PlaceScratch::kNone;
  EXPECT_EQ(place_at(scratch, {0, 0, 0}), 0U);
  EXPECT_EQ(place_at(scratch, {0, 0, 2}), 1U);
  EXPECT_EQ(place_at(scratch, {2, 0, -1}), 2U);
  EXPECT_EQ(place_at(scratch, {0, 0, 1}), kNone);   // disabled slice
  EXPECT_EQ(place_at(scratch, {0, 0, -1}), kNone);  // a MIG GPU has no whole-GPU place
  EXPECT_EQ(place_at(scratch, {2, 0, 0}), kNone);   // a whole GPU has no slices
  EXPECT_EQ(place_at(scratch, {1, 0, 2}), kNone);   // unavailable host
  EXPECT_EQ(place_at(scratch, {0, 1, 0}), kNone);   // host 0 now has one GPU
  EXPECT_EQ(place_at(scratch, {3, 0, -1}), kNone);  // no such host
  EXPECT_EQ(place_at(scratch, {-1, 0, 0}), kNone);
  // An excluded GPU has no places either.
  cluster_places(b, LoadScope::kLive, {{0, 0}}, places, scratch);
  ASSERT_EQ(places.size(), 1U);
  EXPECT_EQ(place_at(scratch, {0, 0, 0}), kNone);
  EXPECT_EQ(place_at(scratch, {2, 0, -1}), 0U);
}

}  // namespace
}  // namespace sim::policy::protean
