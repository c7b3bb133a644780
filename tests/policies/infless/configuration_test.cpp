// Algorithm 1's AvailableConfig, the configuration space and eq. (10), hand-computed.

#include <gtest/gtest.h>

#include "infless/configuration_space.hpp"
#include "infless/resource_efficiency.hpp"
#include "sim/gpu_models/model_catalog.hpp"
#include "test_model.hpp"

namespace sim::policy::infless {
namespace {

// SLO 200 ms; with the +10% offset:
//  (4 threads, 20 %, b 4)  40 ms -> t = 44 ms <= 100: r_up = floor(22.7) * 4 = 88,
//                                   r_low = ceil(1 / 0.156 = 6.41) * 4 = 28
//  (2 threads, 10 %, b 4) 100 ms -> t = 110 ms > t_slo / 2: not available
//  (2 threads,  0 %, b 4)  30 ms -> CPU only: not a GPU instance here
//  (2 threads, 10 %, b 1) 150 ms -> t = 165 ms <= 200: available whatever R_k
//  (2 threads, 20 %, b 1) 190 ms -> t = 209 ms > 200: not available
gpu::OperatorModel slo_model() {
  return testing::model(
      {{4, 20, 4, 40.0}, {2, 10, 4, 100.0}, {2, 0, 4, 30.0}, {2, 10, 1, 150.0}, {2, 20, 1, 190.0}});
}

TEST(AvailableConfig, BatchAboveOneNeedsHalfTheSloAndEnoughRate) {
  const auto m = slo_model();
  const LatencyPredictor p(m, std::nullopt);
  EXPECT_DOUBLE_EQ(p.factor(), 1.1);
  // R_k = 28 is not > r_low = 28 (Algorithm 1 line 25 is strict).
  EXPECT_TRUE(available_configs(p, 4, 28.0, 0.2).empty());
  const auto c = available_configs(p, 4, 29.0, 0.2);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].threads, 4);
  EXPECT_EQ(c[0].gpu_percent, 20);
  EXPECT_NEAR(c[0].t_exec_s, 0.044, 1e-12);
  EXPECT_DOUBLE_EQ(c[0].bounds.r_up, 88.0);
  EXPECT_DOUBLE_EQ(c[0].bounds.r_low, 28.0);
}

TEST(CopMemo, RemembersEachConfigurationOfItsModel) {
  const auto m = slo_model();
  // 40 ms x 1.1: the offset is applied to the remembered profile latency, not remembered.
  const auto other = testing::model({{4, 20, 4, 70.0}});
  CopMemo memo;
  const LatencyPredictor p(m, std::nullopt, &memo);
  for (int round = 0; round < 2; ++round) {  // the second round reads the memo
    EXPECT_NEAR(*p.t_exec_s(4, 4, 20), 0.044, 1e-12);
    EXPECT_NEAR(*p.t_exec_s(1, 2, 10), 0.165, 1e-12);
    EXPECT_FALSE(p.t_exec_s(8, 4, 20));  // not profiled: remembered as such
  }
  // Another model through the same memo: its own latencies, not the first model's.
  const LatencyPredictor q(other, 1.0, &memo);
  EXPECT_NEAR(*q.t_exec_s(4, 4, 20), 0.070, 1e-12);
  EXPECT_FALSE(q.t_exec_s(1, 2, 10));
  EXPECT_NEAR(*p.t_exec_s(4, 4, 20), 0.044, 1e-12);
}

TEST(AvailableConfig, BatchOfOneOnlyChecksTheSlo) {
  const auto m = slo_model();
  const auto c = available_configs(LatencyPredictor(m, std::nullopt), 1, 0.5, 0.2);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].threads, 2);
  EXPECT_EQ(c[0].gpu_percent, 10);
}

// OP1.5: (4, 20, b 4) predicted 40 * 1.5 = 60 ms, still <= 100; OP2: 80 ms; a factor of 2.6
// gives 104 ms > 100: no configuration of b = 4.
TEST(AvailableConfig, AblationFactorsReplaceTheOffset) {
  const auto m = slo_model();
  EXPECT_NEAR(available_configs(LatencyPredictor(m, 1.5), 4, 100.0, 0.2)[0].t_exec_s, 0.06, 1e-12);
  EXPECT_NEAR(available_configs(LatencyPredictor(m, 2.0), 4, 100.0, 0.2)[0].t_exec_s, 0.08, 1e-12);
  EXPECT_TRUE(available_configs(LatencyPredictor(m, 2.6), 4, 100.0, 0.2).empty());
}

TEST(BatchSet, PowersOfTwoDescending) {
  EXPECT_EQ(batch_set(32), (std::vector<int>{32, 16, 8, 4, 2, 1}));
  EXPECT_EQ(batch_set(6), (std::vector<int>{4, 2, 1}));
  EXPECT_EQ(batch_set(1), (std::vector<int>{1}));
}

// implementations.md §3.3's worked example from the measured resnet-50 table: (4 threads,
// 10 %, b 4) = 98.8 ms at S = 300 ms. Eq. (1) without the offset: r_up = floor(1 / 0.09875 = 10.13)
// * 4 = 40, r_low = ceil(1 / 0.20125 = 4.97) * 4 = 20 (the public code's floor(4000 / 201.2) gives
// 19).
TEST(AvailableConfig, MeasuredResnet50TableMatchesTheWorkedExample) {
  const auto cat = gpu::ModelCatalog::load(SIM_SOURCE_DIR "/data/models");
  const auto& m = *cat.model("infless/resnet-50").operators;
  const LatencyPredictor p(m, 1.0);
  bool found = false;
  for (const Configuration& c : available_configs(p, 4, 100.0, 0.3)) {
    if (c.threads != 4 || c.gpu_percent != 10) continue;
    found = true;
    EXPECT_NEAR(c.t_exec_s, 0.09875, 1e-12);  // the table: 98.75 ms
    EXPECT_DOUBLE_EQ(c.bounds.r_up, 40.0);
    EXPECT_DOUBLE_EQ(c.bounds.r_low, 20.0);
  }
  EXPECT_TRUE(found);
  // b = 16 is infeasible at 300 ms (implementations.md §3.3).
  EXPECT_TRUE(available_configs(p, 16, 1000.0, 0.3).empty());
}

// beta from FLOPS: 64 GFLOPS per thread against 14,200 GFLOPS / 100 per SM percent:
// 64 / 142 = 0.450704... SM percent per thread.
TEST(ResourceEfficiency, BetaFromFlops) {
  EXPECT_NEAR(conversion_factor(64.0, 14200.0), 64.0 / 142.0, 1e-15);
  EXPECT_NEAR(unified_resource(4, 20, 0.5), 22.0, 1e-15);
}

// Eq. (10) with beta C_j + G_j = 1000 and e_max = 1: r_up 100 on 200 units gives
// (100 / 200) / (1 - 200 / 1000) = 0.625; r_up 200 on 400 units gives 0.5 / 0.6 = 0.8333.
TEST(ResourceEfficiency, EquationTen) {
  EXPECT_NEAR(resource_efficiency(100, 200, 1000, 1.0), 0.625, 1e-12);
  EXPECT_NEAR(resource_efficiency(200, 400, 1000, 1.0), 0.5 / 0.6, 1e-12);
  // Filling a server exactly: the fragment is floored at 0.001.
  EXPECT_NEAR(resource_efficiency(100, 1000, 1000, 1.0), 0.1 / kMinFragment, 1e-9);
}

}  // namespace
}  // namespace sim::policy::infless
