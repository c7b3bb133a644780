// Eviction of idle containers under memory pressure (ServerlessConfig::evict_idle): when a start
// at a place, or a batch's activations, do not fit the place's free memory, the idle
// containers of other functions there are terminated, least recently used first, until it
// fits; busy containers never; none when all of them would not free enough.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "harness.hpp"

namespace sim::platform {
namespace {

using testing::Harness;

// One A100-40GB (40 GB) shared with MPS; test/mps4 runs a request in 4 s alone. Functions f, g,
// h with the given footprints (GB) and weights (GB).
ServerlessConfig one_gpu(ContainerMemory memory, EvictIdle evict,
                         const std::vector<std::pair<double, double>>& footprint_weights) {
  auto t = testing::host(1);
  t.spec.gpus[0].sharing = cluster::GpuSharing::kMps;
  ServerlessConfig c = testing::config(t);
  const char* names[] = {"f", "g", "h"};
  for (std::size_t k = 0; k < footprint_weights.size(); ++k) {
    c.functions.push_back(testing::function(names[k], "test/mps4", 1));
    c.functions.back().device_memory_gb = footprint_weights[k].first;
    c.functions.back().model_bytes = footprint_weights[k].second * 1e9;
  }
  c.container_memory = memory;
  c.evict_idle = evict;
  return c;
}

const policy::Location kGpu{0, 0, -1};

void start_at(Harness& h, Time t, std::uint32_t function, bool warm) {
  policy::Decisions d;
  policy::StartInstance s{function, 1, std::nullopt, kGpu};
  s.warm = warm;
  d.start.push_back(s);
  h.sim.schedule_at(t, [&h, d] { h.platform->apply(d); });
}

std::vector<std::string> with(const Harness& h, const std::string& event) {
  std::vector<std::string> out;
  for (const auto& e : h.events)
    if (e.find(" " + event + " ") != std::string::npos) out.push_back(e);
  return out;
}

std::vector<std::uint32_t> live_functions(const Harness& h) {
  std::vector<std::uint32_t> out;
  for (const auto& i : h.platform->view().instances)
    out.push_back(i.function);
  std::sort(out.begin(), out.end());
  return out;
}

Harness harness(ServerlessConfig c) {
  return Harness(std::move(c), testing::manual_policies(), 1, metrics::EventLevel::kLifecycle);
}

// Footprints of 20 GB (batch-footprint): the GPU holds two containers. f (instance 1) and g
// (2) start warm at 1 and 2 s; f serves a request 5-9 s, so at 10 s f has been idle since 9 s
// and g since 2 s. h's start at 10 s needs 20 GB with none free: g, the least recently used
// (not f, the older container), is evicted; f and h remain.
TEST(IdleEviction, TheLeastRecentlyUsedIdleContainerMakesRoomForANewOne) {
  Harness h = harness(one_gpu(ContainerMemory::kBatchFootprint, EvictIdle::kLeastRecentlyUsed,
                              {{20, 1}, {20, 1}, {20, 1}}));
  start_at(h, seconds(1), 0, true);
  start_at(h, seconds(2), 1, true);
  h.arrive(seconds(5), 0);
  start_at(h, seconds(10), 2, false);
  h.sim.run_until(seconds(11));
  EXPECT_EQ(with(h, "evicted"),
            (std::vector<std::string>{"10 evicted g 2 0 0 0 -1  -1 why=start;for_function=h"}));
  EXPECT_EQ(with(h, "ended"), (std::vector<std::string>{"10 ended g 2 0 0 0 -1  -1 batches=0"}));
  EXPECT_EQ(live_functions(h), (std::vector<std::uint32_t>{0, 2}));
  const auto m = h.platform->summary_extra(h.sim.now())["memory_utilisation"];
  EXPECT_EQ(m["idle_evictions"].get<int>(), 1);
  EXPECT_EQ(m["idle_evictions_for_start"].get<int>(), 1);
  EXPECT_EQ(m["idle_evictions_for_activations"].get<int>(), 0);
}

// The same with f busy (a request 8-12 s) at h's start at 10 s: g, idle, goes; busy f stays,
// although evicting it would free as much.
TEST(IdleEviction, ABusyContainerIsNeverEvicted) {
  Harness h = harness(one_gpu(ContainerMemory::kBatchFootprint, EvictIdle::kLeastRecentlyUsed,
                              {{20, 1}, {20, 1}, {20, 1}}));
  start_at(h, seconds(1), 0, true);
  start_at(h, seconds(2), 1, true);
  h.arrive(seconds(3), 1);  // g busy 3-7 s: at 10 s idle since 7 s, f since 1 s
  h.arrive(seconds(8), 0);  // f busy 8-12 s
  start_at(h, seconds(10), 2, false);
  h.sim.run_until(seconds(11));
  EXPECT_EQ(with(h, "evicted"),
            (std::vector<std::string>{"10 evicted g 2 0 0 0 -1  -1 why=start;for_function=h"}));
  EXPECT_EQ(live_functions(h), (std::vector<std::uint32_t>{0, 2}));
}

// f idle holds 10 GB, g busy 25 GB (5 GB free): h needs 20 GB, and evicting f would leave 15.
// Nothing is evicted and h's start is rejected; with both busy the same.
TEST(IdleEviction, NothingIsEvictedWhenTheIdleContainersCannotFreeEnough) {
  Harness h = harness(one_gpu(ContainerMemory::kBatchFootprint, EvictIdle::kLeastRecentlyUsed,
                              {{10, 1}, {25, 1}, {20, 1}}));
  start_at(h, seconds(1), 0, true);
  start_at(h, seconds(2), 1, true);
  h.arrive(seconds(8), 1);  // g busy 8-12 s
  start_at(h, seconds(10), 2, false);
  h.arrive(seconds(20), 0);  // f busy 20-24 s
  h.arrive(seconds(20), 1);  // g busy 20-24 s
  start_at(h, seconds(21), 2, false);
  h.sim.run_until(seconds(22));
  EXPECT_TRUE(with(h, "evicted").empty());
  EXPECT_EQ(with(h, "start_rejected"),
            (std::vector<std::string>{"10 start_rejected h -1 -1 -1 -1 -1  -1 "
                                      "why=start_invalid",
                                      "21 start_rejected h -1 -1 -1 -1 -1  -1 "
                                      "why=start_invalid"}));
  EXPECT_EQ(live_functions(h), (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(
      h.platform->summary_extra(h.sim.now())["memory_utilisation"]["idle_evictions"].get<int>(), 0);
}

// Weights-resident. f: W 5, A 20; g: W 2, A 10; h: W 13, A 1 (resident 20 + largest
// activations 20 = 40 GB: all three fit). f runs 5-9 s: 40 GB in use. g's request at 6 s needs
// 10 GB of activations with none free: idle h's 13 GB are evicted and g runs 6-10 s beside f.
TEST(IdleEviction, IdleContainersMakeRoomForABatchsActivations) {
  Harness h = harness(one_gpu(ContainerMemory::kWeightsResident, EvictIdle::kLeastRecentlyUsed,
                              {{25, 5}, {12, 2}, {14, 13}}));
  start_at(h, seconds(1), 0, true);
  start_at(h, seconds(1), 1, true);
  start_at(h, seconds(1), 2, true);
  h.arrive(seconds(5), 0);
  h.arrive(seconds(6), 1);
  h.sim.run_until(seconds(7));
  EXPECT_EQ(with(h, "evicted"),
            (std::vector<std::string>{
                "6 evicted h 3 0 0 0 -1  -1 why=activations;for_function=g;for_instance=2"}));
  EXPECT_EQ(live_functions(h), (std::vector<std::uint32_t>{0, 1}));
  // In use: 5 + 2 resident, 20 + 10 activations.
  EXPECT_DOUBLE_EQ(h.platform->view().hosts[0].gpus[0].memory_free_gb, 3.0);
  EXPECT_EQ(
      h.platform->summary_extra(h.sim.now())["memory_utilisation"]["idle_evictions_for_activations"]
          .get<int>(),
      1);
}

// As above with h: W 8, A 1 and g: W 2, A 14 (resident 15 + 20 = 35 GB). While f runs, 5 GB
// are free; g needs 14, and evicting h would give 13: nothing is evicted, g waits for f's
// activations (9 s) and runs 9-13 s.
TEST(IdleEviction, ABatchWaitsWhenEvictionCannotFreeEnough) {
  Harness h = harness(one_gpu(ContainerMemory::kWeightsResident, EvictIdle::kLeastRecentlyUsed,
                              {{25, 5}, {16, 2}, {9, 8}}));
  start_at(h, seconds(1), 0, true);
  start_at(h, seconds(1), 1, true);
  start_at(h, seconds(1), 2, true);
  h.arrive(seconds(5), 0);
  h.arrive(seconds(6), 1);
  h.sim.run_until(seconds(20));
  EXPECT_TRUE(with(h, "evicted").empty());
  EXPECT_EQ(live_functions(h), (std::vector<std::uint32_t>{0, 1, 2}));
  ASSERT_EQ(h.records.size(), 2u);
  auto r = h.records;
  std::sort(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  EXPECT_EQ(r[1].start, seconds(9));
  EXPECT_EQ(r[1].finish, seconds(13));
}

// Two MPS GPUs. GPU 1 holds f (W 5, A 20), g (instance 2; W 2, A 10) and h (W 13, A 1) as
// above, GPU 0 another g (instance 4). While f runs (5-9 s), g's request at 6 s goes to
// instance 4 on GPU 0, whose activations fit: nothing is evicted although instance 2 is short
// of memory. The request at 6.5 s finds instance 4 busy and instance 2 short: h is evicted.
TEST(IdleEviction, OnlyWhenNoIdleContainerOfTheQueueHasRoom) {
  ServerlessConfig c = one_gpu(ContainerMemory::kWeightsResident, EvictIdle::kLeastRecentlyUsed,
                               {{25, 5}, {12, 2}, {14, 13}});
  c.hosts[0].spec.gpus.push_back(c.hosts[0].spec.gpus[0]);
  Harness h = harness(std::move(c));
  const policy::Location gpu1{0, 1, -1};
  auto start = [&](Time t, std::uint32_t function, policy::Location loc) {
    policy::Decisions d;
    policy::StartInstance s{function, 1, std::nullopt, loc};
    s.warm = true;
    d.start.push_back(s);
    h.sim.schedule_at(t, [&h, d] { h.platform->apply(d); });
  };
  start(seconds(1), 0, gpu1);
  start(seconds(1), 1, gpu1);
  start(seconds(1), 2, gpu1);
  start(seconds(1), 1, kGpu);
  h.arrive(seconds(5), 0);
  h.arrive(seconds(6), 1);
  h.arrive(seconds(6.5), 1);
  h.sim.run_until(seconds(7));
  EXPECT_EQ(with(h, "evicted"),
            (std::vector<std::string>{
                "6.5 evicted h 3 0 1 1 -1  -1 why=activations;for_function=g;for_instance=2"}));
}

// The default (never): h's start at 10 s in the first test's state is rejected, nothing is
// evicted, and the summary has no eviction count.
TEST(IdleEviction, OffByDefault) {
  EXPECT_EQ(default_serverless_config().evict_idle, EvictIdle::kNever);
  Harness h = harness(
      one_gpu(ContainerMemory::kBatchFootprint, EvictIdle::kNever, {{20, 1}, {20, 1}, {20, 1}}));
  start_at(h, seconds(1), 0, true);
  start_at(h, seconds(2), 1, true);
  start_at(h, seconds(10), 2, false);
  h.sim.run_until(seconds(11));
  EXPECT_TRUE(with(h, "evicted").empty());
  EXPECT_EQ(with(h, "start_rejected").size(), 1u);
  EXPECT_FALSE(
      h.platform->summary_extra(h.sim.now())["memory_utilisation"].contains("idle_evictions"));
}

}  // namespace
}  // namespace sim::platform
