// Container memory (ServerlessConfig::container_memory): under kWeightsResident an idle
// container holds its weights and a batch holds its activations only while it runs; a batch
// whose activations do not fit its GPU's free memory waits in the queue.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "harness.hpp"

namespace sim::platform {
namespace {

using testing::Harness;
namespace ref = policy::reference;

// One A100-40GB (40 GB) shared with MPS. test/mps4 runs a request in 4 s. Its footprint is
// set to 25 GB and its bytes to 10 GB: W = 10 GB of weights, A = 15 GB of activations.
ServerlessConfig one_mps_gpu(ContainerMemory memory) {
  auto t = testing::host(1);
  t.spec.gpus[0].sharing = cluster::GpuSharing::kMps;
  ServerlessConfig c = testing::config(t);
  c.functions.push_back(testing::function("f", "test/mps4", 1));
  c.functions.back().device_memory_gb = 25.0;
  c.functions.back().model_bytes = 10e9;
  c.container_memory = memory;
  return c;
}

double free_gb(const Harness& h) {
  return h.platform->view().hosts[0].gpus[0].memory_free_gb;
}

TEST(ContainerMemory, IdleContainersHoldTheirWeightsAndABatchItsActivations) {
  auto p = testing::reference_policies();
  p.autoscaler = std::make_unique<ref::FixedPoolAutoscaler>(2);
  Harness h(one_mps_gpu(ContainerMemory::kWeightsResident), std::move(p));
  // Both instances are ready long before 200 s (10 GB: 80 s download + 12 s load + 40 s copy).
  h.arrive(seconds(200.0), 0);
  h.arrive(seconds(200.5), 0);
  std::vector<double> free;
  for (const double t : {199.0, 202.0, 206.0, 210.0})
    h.sim.schedule_at(seconds(t), [&] { free.push_back(free_gb(h)); });
  h.sim.run_until(seconds(300));
  EXPECT_EQ(h.platform->live_instances(), 2u);
  // In use: 2W = 20 GB idle; 2W + A = 35 GB while r0 runs (200-204 s) and while r1 runs
  // (204-208 s); r1 waits because 35 + 15 = 50 GB > 40 GB. Idle again at 210 s: 20 GB.
  EXPECT_EQ(free, (std::vector<double>{20.0, 5.0, 5.0, 20.0}));
  ASSERT_EQ(h.records.size(), 2u);
  auto r = h.records;
  std::sort(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  EXPECT_EQ(r[0].finish, seconds(204));
  EXPECT_EQ(r[1].start, seconds(204));   // waited for r0's activations
  EXPECT_EQ(r[1].finish, seconds(208));  // alone on the GPU: its solo 4 s
  // Its 3.5 s wait for memory is queueing, not batching: the instance was idle but could not
  // take a batch (latency 7.5 s = 3.5 s queue + 4 s execution).
  EXPECT_EQ(r[1].queue_wait, seconds(3.5));
  EXPECT_EQ(r[1].batching_wait, Time::zero());
  const auto extra = h.platform->summary_extra(h.sim.now());
  EXPECT_DOUBLE_EQ(extra["memory_utilisation"]["gpu_activations_peak_gb"].get<double>(), 15.0);
  // Activations held 8 s of the 300 s: 15 x 8 / (40 x 300) = 0.01.
  EXPECT_NEAR(extra["memory_utilisation"]["gpu_activations"].get<double>(), 0.01, 1e-12);
  EXPECT_NEAR(extra["memory_utilisation"]["gpu"].get<double>(),
              extra["memory_utilisation"]["gpu_resident"].get<double>() + 0.01, 1e-12);
}

TEST(ContainerMemory, BatchFootprintHoldsTheFootprintWhileIdle) {
  auto p = testing::reference_policies();
  p.autoscaler = std::make_unique<ref::FixedPoolAutoscaler>(2);
  Harness h(one_mps_gpu(ContainerMemory::kBatchFootprint), std::move(p));
  h.arrive(seconds(200.0), 0);
  h.arrive(seconds(200.5), 0);
  double idle_free = -1;
  h.sim.schedule_at(seconds(199), [&] { idle_free = free_gb(h); });
  h.sim.run_until(seconds(300));
  // 25 GB each: the second instance does not fit the 40 GB GPU, so the requests run in turn
  // on one instance that holds 25 GB idle or busy.
  EXPECT_EQ(h.platform->live_instances(), 1u);
  EXPECT_DOUBLE_EQ(idle_free, 15.0);
  ASSERT_EQ(h.records.size(), 2u);
  const auto extra = h.platform->summary_extra(h.sim.now());
  EXPECT_FALSE(extra["memory_utilisation"].contains("gpu_activations"));
}

TEST(ContainerMemory, PlacementKeepsRoomForTheLargestActivations) {
  // f: W = 2 GB, A = 30 GB (footprint 32); g: W = 4 GB, A = 1 GB (footprint 5). Four instances
  // of f fit: 4 x 2 + 30 = 38 GB <= 40. An instance of g would leave 8 + 4 + 30 = 42 GB > 40:
  // f's batch could never start while g's weights sit there, so g is refused although the
  // placement policy sees room for its footprint (40 - 8 = 32 GB free >= 5).
  ServerlessConfig c = one_mps_gpu(ContainerMemory::kWeightsResident);
  c.functions[0].device_memory_gb = 32.0;
  c.functions[0].model_bytes = 2e9;
  c.functions.push_back(testing::function("g", "test/mps4", 1));
  c.functions.back().device_memory_gb = 5.0;
  c.functions.back().model_bytes = 4e9;
  auto p = testing::reference_policies();
  p.autoscaler = std::make_unique<ref::FixedPoolAutoscaler>(4);
  Harness h(c, std::move(p));
  h.sim.run_until(seconds(300));
  const auto v = h.platform->view();
  EXPECT_EQ(v.instances.size(), 4u);
  for (const auto& i : v.instances)
    EXPECT_EQ(i.function, 0u);
  EXPECT_DOUBLE_EQ(v.hosts[0].gpus[0].memory_free_gb, 32.0);
}

// The policies' view reports the memory as the platform holds it (PlatformView docs): per
// function what a container keeps and what its batch adds, per place the instances' resident
// memory, the activations of running batches, and the room placement keeps.
TEST(ContainerMemory, ViewReportsResidentActivationsAndRoom) {
  auto p = testing::reference_policies();
  p.autoscaler = std::make_unique<ref::FixedPoolAutoscaler>(2);
  Harness h(one_mps_gpu(ContainerMemory::kWeightsResident), std::move(p));
  h.arrive(seconds(200.0), 0);
  h.arrive(seconds(200.5), 0);
  std::vector<policy::GpuView> at;
  for (const double t : {199.0, 202.0})
    h.sim.schedule_at(seconds(t), [&] { at.push_back(h.platform->view().hosts[0].gpus[0]); });
  h.sim.run_until(seconds(300));
  const auto v = h.platform->view();
  ASSERT_EQ(v.functions.size(), 1u);
  // W = 10 GB of 25: 10 resident, 15 per running batch.
  EXPECT_DOUBLE_EQ(v.functions[0].device_memory_gb, 25.0);
  EXPECT_DOUBLE_EQ(v.functions[0].resident_gb, 10.0);
  EXPECT_DOUBLE_EQ(v.functions[0].activation_gb, 15.0);
  ASSERT_EQ(at.size(), 2u);
  // 199 s, both idle: 2 x 10 resident, nothing running, room 15, free 40 - 20 = 20.
  EXPECT_DOUBLE_EQ(at[0].resident_gb, 20.0);
  EXPECT_DOUBLE_EQ(at[0].activations_gb, 0.0);
  EXPECT_DOUBLE_EQ(at[0].activation_room_gb, 15.0);
  EXPECT_DOUBLE_EQ(at[0].memory_free_gb, 20.0);
  // 202 s, r0 runs (r1 waits for memory): 15 GB of activations held, free 40 - 20 - 15 = 5.
  EXPECT_DOUBLE_EQ(at[1].resident_gb, 20.0);
  EXPECT_DOUBLE_EQ(at[1].activations_gb, 15.0);
  EXPECT_DOUBLE_EQ(at[1].activation_room_gb, 15.0);
  EXPECT_DOUBLE_EQ(at[1].memory_free_gb, 5.0);
  // A third container does not fit (3 x 10 + 15 = 45 > 40 GB), by the platform's rule as the
  // policies' container_fits() applies it to these figures.
  EXPECT_FALSE(policy::container_fits(v.functions[0], at[0]));
}

TEST(ContainerMemory, ViewUnderBatchFootprintHasNoActivations) {
  auto p = testing::reference_policies();
  p.autoscaler = std::make_unique<ref::FixedPoolAutoscaler>(2);
  Harness h(one_mps_gpu(ContainerMemory::kBatchFootprint), std::move(p));
  h.sim.run_until(seconds(300));
  const auto v = h.platform->view();
  EXPECT_DOUBLE_EQ(v.functions[0].resident_gb, 25.0);
  EXPECT_DOUBLE_EQ(v.functions[0].activation_gb, 0.0);
  const auto& g = v.hosts[0].gpus[0];
  // One instance (the second's 25 GB do not fit): 25 resident, free 15, no room kept.
  EXPECT_DOUBLE_EQ(g.resident_gb, 25.0);
  EXPECT_DOUBLE_EQ(g.activations_gb, 0.0);
  EXPECT_DOUBLE_EQ(g.activation_room_gb, 0.0);
  EXPECT_DOUBLE_EQ(g.memory_free_gb, 15.0);
  EXPECT_FALSE(policy::container_fits(v.functions[0], g));
}

TEST(ContainerMemory, ViewOfMigSlicesAndTheRoomOfTwoModels) {
  // MIG (4g.20gb, 2g.10gb, 1g.5gb). f: footprint 4 GB, W = 1 GB, A = 3 GB; g: footprint
  // 9 GB, W = 0.5 GB, A = 8.5 GB. First fit (free >= footprint) puts the three f containers
  // and then the g container on the 4g (free 20, 19, 18, 17 >= 9).
  auto t = testing::host(1);
  t.spec.gpus[0].sharing = cluster::GpuSharing::kMps;
  t.spec.gpus[0].mig = {"4g.20gb", "2g.10gb", "1g.5gb"};
  ServerlessConfig c = testing::config(t);
  c.container_memory = ContainerMemory::kWeightsResident;
  c.functions.push_back(testing::function("f", "test/mps30ms", 1));
  c.functions.back().device_memory_gb = 4.0;
  c.functions.back().model_bytes = 1e9;
  c.functions.push_back(testing::function("g", "test/mps30ms", 1));
  c.functions.back().device_memory_gb = 9.0;
  c.functions.back().model_bytes = 0.5e9;
  auto p = testing::reference_policies();
  p.autoscaler = std::make_unique<ref::FixedPoolAutoscaler>(3);
  Harness h(c, std::move(p));
  h.sim.run_until(seconds(300));
  const auto v = h.platform->view();
  const auto& s = v.hosts[0].gpus[0].slices;
  ASSERT_EQ(s.size(), 3u);
  std::size_t on_4g = 0;
  for (const auto& i : v.instances)
    on_4g += i.location.slice == 0 ? 1 : 0;
  // 3 f (3 x 1 GB) + 3 g (3 x 0.5 GB), room max(3, 8.5) = 8.5: 4.5 + 8.5 = 13 <= 20.
  EXPECT_EQ(on_4g, 6u);
  EXPECT_EQ(s[0].profile, "4g.20gb");
  EXPECT_DOUBLE_EQ(s[0].resident_gb, 4.5);
  EXPECT_DOUBLE_EQ(s[0].activations_gb, 0.0);
  EXPECT_DOUBLE_EQ(s[0].activation_room_gb, 8.5);
  EXPECT_DOUBLE_EQ(s[0].memory_free_gb, 15.5);
  EXPECT_DOUBLE_EQ(s[1].activation_room_gb, 0.0);
  EXPECT_DOUBLE_EQ(s[1].memory_free_gb, 10.0);
}

// Property: over random footprints, weights, batch sizes and arrivals, on a whole MPS GPU and
// on MIG slices, the memory in use on a GPU or slice never exceeds its capacity, and every
// request is served (placement leaves room for a batch of every container).
TEST(ContainerMemory, MemoryInUseNeverExceedsCapacity) {
  std::uint64_t memory_waits = 0;
  for (std::uint32_t seed = 1; seed <= 12; ++seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    auto t = testing::host(1);
    t.spec.gpus[0].sharing = cluster::GpuSharing::kMps;
    if (seed % 2 == 0) t.spec.gpus[0].mig = {"4g.20gb", "2g.10gb", "1g.5gb"};
    ServerlessConfig c = testing::config(t);
    c.container_memory = ContainerMemory::kWeightsResident;
    const int functions = 2 + static_cast<int>(rng() % 3);
    for (int f = 0; f < functions; ++f) {
      // test/mps30ms: 30 ms per request.
      c.functions.push_back(testing::function("f" + std::to_string(f), "test/mps30ms",
                                              1 + static_cast<int>(rng() % 8)));
      const double footprint = 1.0 + u(rng) * (seed % 2 == 0 ? 3.5 : 20.0);
      c.functions.back().device_memory_gb = footprint;
      c.functions.back().model_bytes = footprint * (0.05 + 0.5 * u(rng)) * 1e9;
    }
    auto p = testing::reference_policies();
    p.autoscaler = std::make_unique<ref::FixedPoolAutoscaler>(3);
    Harness h(c, std::move(p), seed);
    std::vector<std::uint64_t> sent(static_cast<std::size_t>(functions), 0);
    double at = 100.0;
    while (at < 160.0) {
      at += -std::log(1.0 - u(rng)) * 0.05;  // ~20 requests/s
      const auto f = static_cast<std::uint32_t>(rng() % functions);
      h.arrive(seconds(at), f);
      ++sent[f];
    }
    double worst = 0.0;  // most over-committed GB seen on any place
    for (int k = 0; k < 10000; ++k) {
      h.sim.schedule_at(seconds(100.0 + 0.007 * k), [&] {
        // The view is a value: iterating a member of the temporary would read freed memory.
        const auto view = h.platform->view();
        for (const auto& g : view.hosts[0].gpus) {
          worst = std::max(worst, -g.memory_free_gb);
          for (const auto& s : g.slices)
            worst = std::max(worst, -s.memory_free_gb);
        }
      });
    }
    h.sim.run_until(seconds(2000));
    EXPECT_LE(worst, 1e-9) << "seed " << seed;
    // Every request of a function that got an instance is served (one that placement could
    // not fit keeps its requests queued).
    const auto v = h.platform->view();
    std::vector<std::uint64_t> served(sent.size(), 0);
    for (const auto& r : h.records)
      ++served[r.function];
    for (std::size_t f = 0; f < sent.size(); ++f) {
      const bool placed = std::any_of(v.instances.begin(), v.instances.end(),
                                      [&](const auto& i) { return i.function == f; });
      if (placed) {
        EXPECT_EQ(served[f], sent[f]) << "seed " << seed << " function " << f;
      }
    }
    const auto m = h.platform->summary_extra(h.sim.now())["memory_utilisation"];
    memory_waits += m["dispatches_short_of_memory"].get<std::uint64_t>();
  }
  // The draws do make batches wait for memory, so the property is exercised.
  EXPECT_GT(memory_waits, 0u);
}

}  // namespace
}  // namespace sim::platform
