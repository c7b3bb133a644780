// INFless Algorithm 1 (Schedule) on hand-built servers, hand-computed.

#include <gtest/gtest.h>

#include "infless/resource_efficiency.hpp"
#include "infless/schedule.hpp"
#include "test_model.hpp"

namespace sim::policy::infless {
namespace {

// SLO 200 ms, +10% offset:
//  A (4 thr, 20 %, b 4) 40 ms -> 44 ms: r_up 88, r_low 28, demand beta*4 + 20 = 21.8028
//  B (2 thr, 10 %, b 4) 90 ms -> 99 ms: r_up 40, r_low ceil(9.90) * 4 = 40, demand 10.9014
//  C (2 thr, 10 %, b 1) 30 ms -> 33 ms: r_up 30, demand 10.9014
// with beta = 64 / 142 = 0.450704. e_max = max(88 / 21.8028, 40 / 10.9014, 30 / 10.9014) =
// 4.03617 (A).
gpu::OperatorModel model() {
  return testing::model({{4, 20, 4, 40.0}, {2, 10, 4, 90.0}, {2, 10, 1, 30.0}});
}

// S1: 32 free threads, two free GPUs: beta*32 + 200 = 214.4225.
// S2: 8 free threads, one GPU with 25 % free: beta*8 + 25 = 28.6056.
std::vector<ServerState> servers() {
  ServerState s1;
  s1.host = 0;
  s1.cores_free = 32;
  s1.memory_free_bytes = 1e11;
  s1.gpus = {{0, true, 1.0, 11.0}, {1, true, 1.0, 11.0}};
  ServerState s2;
  s2.host = 1;
  s2.cores_free = 8;
  s2.memory_free_bytes = 1e11;
  s2.gpus = {{0, true, 0.25, 11.0}};
  return {s1, s2};
}

ScheduleOptions options(bool rs) {
  ScheduleOptions o;
  o.batches = {4, 1};
  o.t_slo_s = 0.2;
  o.beta = conversion_factor(64, 14200);
  o.resource_scheduling = rs;
  o.model_bytes = 1e8;
  o.device_memory_gb = 1.0;
  return o;
}

// R_k = 100. Iteration 1 (b = 4, A and B available): e(A, S1) = 1 / (1 - 21.80/214.42) = 1.113,
// e(A, S2) = 1 / (1 - 21.80/28.61) = 4.205, e(B, S1) = 0.9091 / 0.9492 = 0.958,
// e(B, S2) = 0.9091 / 0.6189 = 1.469: A on S2 (best fit), R_k = 100 - 88 = 12.
// Iteration 2: 12 is below r_low of A (28) and B (40); b = 1: C fits only S1 (S2 has 5 % of
// SMs left): C on S1, GPU 0 (both free, the first wins), R_k = 12 - 30 < 0: done.
TEST(Schedule, LargestBatchFirstThenMostEfficientServer) {
  const auto m = model();
  const LatencyPredictor p(m, std::nullopt);
  auto s = servers();
  const auto placed = schedule(100.0, options(true), p, s);
  ASSERT_EQ(placed.size(), 2u);
  EXPECT_EQ(placed[0].config.batch, 4);
  EXPECT_EQ(placed[0].config.threads, 4);
  EXPECT_EQ(placed[0].config.gpu_percent, 20);
  EXPECT_EQ(placed[0].location, (Location{1, 0, -1}));
  EXPECT_EQ(placed[1].config.batch, 1);
  EXPECT_EQ(placed[1].location, (Location{0, 0, -1}));
  // Lines 13-14: the servers' resources are booked.
  EXPECT_DOUBLE_EQ(s[1].cores_free, 4.0);
  EXPECT_NEAR(s[1].gpus[0].share_free, 0.05, 1e-12);
  EXPECT_DOUBLE_EQ(s[0].cores_free, 30.0);
  EXPECT_NEAR(s[0].gpus[0].share_free, 0.9, 1e-12);
}

// RS off: the most throughput per resource of b = 4 (A; also the largest r_up), on the first
// server it fits (S1, GPU 0); then C on S1 too, on GPU 0 (best fit: 80 % free beats 100 %).
TEST(Schedule, ResourceSchedulingOffTakesMaxThroughputFirstFit) {
  const auto m = model();
  const LatencyPredictor p(m, std::nullopt);
  auto s = servers();
  const auto placed = schedule(100.0, options(false), p, s);
  ASSERT_EQ(placed.size(), 2u);
  EXPECT_EQ(placed[0].config.batch, 4);
  EXPECT_EQ(placed[0].location, (Location{0, 0, -1}));
  EXPECT_EQ(placed[1].config.batch, 1);
  EXPECT_EQ(placed[1].location, (Location{0, 0, -1}));
}

// The RS ablation's two readings of "the maximum throughput", with a fourth configuration
//  D (8 thr, 50 %, b 4) 20 ms -> 22 ms: r_up floor(45.45) * 4 = 180, r_low ceil(5.62) * 4 = 24,
//  demand beta*8 + 50 = 53.6056: 3.358 per unit, below A's 88 / 21.8028 = 4.036.
// Per resource (the default): A on S1, R_k = 12, below every b = 4 r_low (A 28, B 40, D 24),
// then C: two instances. r_up: D (180 >= 100): one instance.
TEST(Schedule, ResourceSchedulingOffReadsMaxThroughputPerResourceOrAsRup) {
  const auto m =
      testing::model({{4, 20, 4, 40.0}, {2, 10, 4, 90.0}, {2, 10, 1, 30.0}, {8, 50, 4, 20.0}});
  const LatencyPredictor p(m, std::nullopt);
  auto s = servers();
  auto o = options(false);
  const auto per_resource = schedule(100.0, o, p, s);
  ASSERT_EQ(per_resource.size(), 2u);
  EXPECT_EQ(per_resource[0].config.threads, 4);
  EXPECT_EQ(per_resource[0].config.gpu_percent, 20);
  EXPECT_EQ(per_resource[1].config.batch, 1);
  s = servers();
  o.rs_off_per_resource = false;
  const auto by_rup = schedule(100.0, o, p, s);
  ASSERT_EQ(by_rup.size(), 1u);
  EXPECT_EQ(by_rup[0].config.threads, 8);
  EXPECT_EQ(by_rup[0].config.gpu_percent, 50);
  EXPECT_EQ(by_rup[0].location, (Location{0, 0, -1}));
}

// No room anywhere: the loop ends instead of spinning (the public code's quirk).
TEST(Schedule, StopsWhenNothingFits) {
  const auto m = model();
  const LatencyPredictor p(m, std::nullopt);
  std::vector<ServerState> none = {servers()[1]};
  none[0].cores_free = 1;  // fewer than any configuration's threads
  EXPECT_TRUE(schedule(100.0, options(true), p, none).empty());
}

// The BB ablation: B = {1}: ceil(100 / 30) = 4 instances of C.
TEST(Schedule, BatchingOffUsesBatchOne) {
  const auto m = model();
  const LatencyPredictor p(m, std::nullopt);
  auto s = servers();
  auto o = options(true);
  o.batches = {1};
  const auto placed = schedule(100.0, o, p, s);
  ASSERT_EQ(placed.size(), 4u);
  for (const auto& x : placed)
    EXPECT_EQ(x.config.batch, 1);
}

TEST(Schedule, ServersOfSubtractsSmSharesOfOperatorInstances) {
  PlatformView v;
  HostView h0;
  h0.index = 0;
  h0.cores_free = 30;
  h0.memory_free_bytes = 1e11;
  GpuView g;
  g.sharing = GpuSharing::kMps;
  g.memory_gb = 11;
  g.memory_free_gb = 10;
  h0.gpus = {g, g};
  HostView h1 = h0;
  h1.index = 1;
  h1.available = false;
  v.hosts = {h0, h1};
  InstanceView i;
  i.config.cpu_threads = 2;
  i.config.gpu_share = 0.3;
  i.location = {0, 1, -1};
  v.instances = {i};
  const auto s = servers_of(v);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_DOUBLE_EQ(s[0].gpus[0].share_free, 1.0);
  EXPECT_NEAR(s[0].gpus[1].share_free, 0.7, 1e-12);
  EXPECT_NEAR(s[0].available(0.5), 0.5 * 30 + 170, 1e-9);
}

// The baselines' first fit: 16 threads + 50% SMs fit twice on S1 (32 threads, two GPUs) and
// never on S2 (8 threads); asked for 3, it places 2 on S1 and reports 2.
TEST(PlaceFirstFit, FillsServersInOrderAndStopsWhenNothingFits) {
  auto s = servers();
  const Configuration big{1, 16, 50, 0.01, rate_bounds(0.01, 0.2, 1)};
  std::vector<StartInstance> out;
  EXPECT_EQ(place_first_fit(7, big, options(true), 3, s, out), 2);
  ASSERT_EQ(out.size(), 2u);
  for (const auto& i : out) {
    EXPECT_EQ(i.function, 7u);
    EXPECT_EQ(i.location->host, 0);
    EXPECT_EQ(i.config->cpu_threads, 16);
  }
  EXPECT_DOUBLE_EQ(s[0].cores_free, 0.0);
  EXPECT_DOUBLE_EQ(s[1].cores_free, 8.0);
  // A small configuration still fits S2 once S1 is full.
  const Configuration small{1, 2, 10, 0.01, rate_bounds(0.01, 0.2, 1)};
  EXPECT_EQ(place_first_fit(8, small, options(true), 1, s, out), 1);
  EXPECT_EQ(out.back().location->host, 1);
}

}  // namespace
}  // namespace sim::policy::infless
