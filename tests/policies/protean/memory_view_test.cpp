// Container memory in the policies' view (FunctionView::resident_gb / activation_gb, the
// places' resident, activation and room figures): policy::container_fits mirrors the
// platform's placement rule; Protean's placement under admission_memory batch-footprint
// counts every container at its batch footprint (§4.2-4.3; the platform reading, the default,
// in readings_test.cpp), the baselines place on what the platform enforces.

#include <gtest/gtest.h>

#include "protean/cluster_places.hpp"
#include "protean/protean_autoscaler.hpp"

namespace sim::policy::protean {
namespace {

// ResNet 50 under weights-resident: W = 0.1 GB of weights, A = 6.4 GB of activations
// (footprint 6.5 GB, FBR 0.48, RDFs from protean.json).
FunctionView resnet_weights_resident(double rate) {
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

SliceView slice(const std::string& profile, double gb) {
  SliceView s;
  s.profile = profile;
  s.memory_gb = gb;
  s.memory_free_gb = gb;
  return s;
}

// One A100 in (1g, 2g, 4g) under MPS; the 4g holds two idle ResNet 50 containers:
// resident 2 x 0.1 = 0.2 GB, no batch running, room 6.4 GB, free 20 - 0.2 = 19.8 GB.
PlatformView two_idle_on_4g(double rate) {
  PlatformView v;
  HostView h;
  GpuView g;
  g.type = "A100-40GB";
  g.sharing = policy::GpuSharing::kMps;
  g.mig = true;
  g.memory_gb = 40;
  g.slices = {slice("1g.5gb", 5), slice("2g.10gb", 10), slice("4g.20gb", 20)};
  auto& s4 = g.slices[2];
  s4.instances = 2;
  s4.resident_gb = 0.2;
  s4.activation_room_gb = 6.4;
  s4.memory_free_gb = 19.8;
  h.gpus.push_back(g);
  v.hosts.push_back(h);
  v.functions = {resnet_weights_resident(rate)};
  for (InstanceId id = 1; id <= 2; ++id) {
    InstanceView i;
    i.id = id;
    i.function = 0;
    i.state = InstanceState::kIdle;
    i.location = {0, 0, 2};
    v.instances.push_back(i);
  }
  return v;
}

TEST(ContainerFits, WeightsPlusTheLargestActivationsMustFitThePlace) {
  FunctionView f;
  f.device_memory_gb = 6.5;
  f.resident_gb = 0.1;
  f.activation_gb = 6.4;
  // 20 GB slice with 13 GB of weights: 13 + 0.1 + 6.4 = 19.5 <= 20.
  EXPECT_TRUE(container_fits(f, 20.0, 7.0, 13.0, 6.4));
  // With 13.6 GB of weights: 13.6 + 0.1 + 6.4 = 20.1 > 20, although 6.4 GB are free.
  EXPECT_FALSE(container_fits(f, 20.0, 6.4, 13.6, 6.4));
  // A co-located model with 10 GB of activations keeps a 10 GB room: 3 + 0.1 + 10 = 13.1 fits
  // 20, not 12.
  EXPECT_TRUE(container_fits(f, 20.0, 17.0, 3.0, 10.0));
  EXPECT_FALSE(container_fits(f, 12.0, 9.0, 3.0, 10.0));
  // Running batches hold activations: 0.05 GB free < the 0.1 GB of weights, now.
  EXPECT_FALSE(container_fits(f, 20.0, 0.05, 1.0, 6.4));
  // Batch-footprint (no activations): free >= footprint.
  FunctionView b;
  b.device_memory_gb = 6.5;
  b.resident_gb = 6.5;
  EXPECT_TRUE(container_fits(b, 20.0, 6.5, 13.5, 0.0));
  EXPECT_FALSE(container_fits(b, 20.0, 6.4, 13.6, 0.0));
  // A view built by hand with only device_memory_gb reads as batch-footprint.
  FunctionView hand;
  hand.device_memory_gb = 6.5;
  EXPECT_DOUBLE_EQ(resident_charge_gb(hand), 6.5);
  EXPECT_FALSE(container_fits(hand, 20.0, 6.4, 0.0, 0.0));
}

TEST(ClusterPlaces, ProteanCountsEveryContainerAtItsFootprint) {
  PlatformView v = two_idle_on_4g(0);
  // A batch of one of them runs: 6.4 GB of activations held, free 13.4 GB.
  v.hosts[0].gpus[0].slices[2].activations_gb = 6.4;
  v.hosts[0].gpus[0].slices[2].memory_free_gb = 13.4;
  v.instances[0].state = InstanceState::kBusy;
  const auto live = cluster_places(v, LoadScope::kLive, {}, AdmissionMemory::kBatchFootprint);
  ASSERT_EQ(live.size(), 3U);
  // kLive: 13.4 + 6.4 held - 2 x 6.4 for the two containers' batches = 7.0 = 20 - 2 x 6.5.
  EXPECT_NEAR(live[2].load.memory_free_gb, 7.0, 1e-12);
  EXPECT_DOUBLE_EQ(live[2].platform_free_gb, 13.4);
  EXPECT_DOUBLE_EQ(live[2].resident_gb, 0.2);
  EXPECT_DOUBLE_EQ(live[2].activation_room_gb, 6.4);
  EXPECT_DOUBLE_EQ(live[2].load.strict_fbr, 0.96);
  EXPECT_DOUBLE_EQ(live[1].load.memory_free_gb, 10.0);
  // kBusy: what the platform holds, 20 - 2 x 0.1 of weights - 6.4 of the running batch = 13.4
  // (not 20 - 6.5 = 13.5, which left out the idle container's weights).
  const auto busy = cluster_places(v, LoadScope::kBusy);
  EXPECT_NEAR(busy[2].load.memory_free_gb, 13.4, 1e-12);
  EXPECT_DOUBLE_EQ(busy[2].load.strict_fbr, 0.48);
}

TEST(ProteanAutoscaler, JobDistributionPlacesOneContainerPerBatchThatFits) {
  // 5000 rps x 0.11 s = 550 requests -> ceil(550/128) = 5 containers; 2 live, 3 needed.
  PlatformView v = two_idle_on_4g(5000);
  ProteanAutoscalerConfig c;
  c.reconfigure = false;
  c.admission_memory = AdmissionMemory::kBatchFootprint;
  ProteanAutoscaler a(c);
  const auto d = a.decide(v);
  // Protean's estimate: 4g 20 - 2 x 6.5 = 7.0, 2g 10, 1g 5 (< 6.5: never).
  // 1st: 4g eta 1.4125 x max{0.48 + 0.96, 1} = 2.034 < 2g 2.375 x 1 -> 4g (7.0 -> 0.5).
  // 2nd: only the 2g holds 6.5 -> 2g (10 -> 3.5). 3rd: no place holds 6.5 GB -> none, although
  // the platform would take it on the 4g (0.4 + 0.1 + 6.4 <= 20): its batch could not run
  // beside the others'.
  ASSERT_EQ(d.start.size(), 2U);
  EXPECT_EQ(d.start[0].location->slice, 2);
  EXPECT_EQ(d.start[1].location->slice, 1);
}

TEST(ProteanAutoscaler, SpreadPlacesOnWhatThePlatformEnforces) {
  PlatformView v = two_idle_on_4g(5000);
  ProteanAutoscalerConfig c;
  c.reconfigure = false;
  c.placement = ContainerPlacement::kSpread;
  ProteanAutoscaler a(c);
  const auto d = a.decide(v);
  // Platform free: 4g 19.8, 2g 10, 1g 5 (0.1 + 6.4 > 5: refused). Spread by free memory:
  // 4g (19.8 -> 19.7 -> 19.6 -> 19.5); each keeps 0.2 + 0.1 k + 6.4 <= 20.
  ASSERT_EQ(d.start.size(), 3U);
  for (const auto& s : d.start)
    EXPECT_EQ(s.location->slice, 2);
}

TEST(ProteanAutoscaler, ConsolidateStopsAtTheActivationRoom) {
  // 4g with 13.4 GB of weights already (and room 6.4): 13.4 + 0.1 + 6.4 = 19.9 <= 20 takes
  // one more; 13.5 + 0.1 + 6.4 = 20.0 <= 20 one more; then 20.1 > 20: the 2g (least free of
  // the rest that fits: 0.1 + 6.4 <= 10).
  PlatformView v = two_idle_on_4g(5000);
  auto& s4 = v.hosts[0].gpus[0].slices[2];
  s4.resident_gb = 13.4;
  s4.memory_free_gb = 6.6;
  ProteanAutoscalerConfig c;
  c.reconfigure = false;
  c.placement = ContainerPlacement::kConsolidate;
  ProteanAutoscaler a(c);
  const auto d = a.decide(v);
  ASSERT_EQ(d.start.size(), 3U);
  EXPECT_EQ(d.start[0].location->slice, 2);
  EXPECT_EQ(d.start[1].location->slice, 2);
  EXPECT_EQ(d.start[2].location->slice, 1);
}

}  // namespace
}  // namespace sim::policy::protean
