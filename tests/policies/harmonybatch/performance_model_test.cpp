// HarmonyBatch §III (eq. 1-6) and Alibaba's resource rules, against hand computation with
// the VGG-19 coefficients of data/models/harmonybatch.json.

#include <gtest/gtest.h>

#include <limits>

#include <cmath>
#include <vector>

#include "harmonybatch/performance_model.hpp"
#include "test_models.hpp"

namespace sim::policy::harmonybatch {
namespace {

using testing::model;

TEST(HarmonyBatchModel, CatalogCoefficientsMatchTheReferenceCode) {
  const auto m = model("vgg19");
  EXPECT_DOUBLE_EQ(m.cpu_avg[0].alpha, 1.8260695578676214);
  EXPECT_DOUBLE_EQ(m.cpu_max[3].gamma, 0.8287713748262584);
  EXPECT_DOUBLE_EQ(m.xi1_s, 0.001679844365532822);
  EXPECT_DOUBLE_EQ(m.xi2_s, 0.002113091944793135);
  EXPECT_DOUBLE_EQ(m.tau_s, 0.002);
  EXPECT_DOUBLE_EQ(m.m_max_gb, 24.0);
  EXPECT_DOUBLE_EQ(m.gpu_function_mem_mb, 512.0);
  EXPECT_DOUBLE_EQ(model("gpt-2").gpu_function_mem_mb, 1024.0);
  EXPECT_DOUBLE_EQ(model("bert").cpu_fraction, 0.57);
}

TEST(HarmonyBatchModel, SixtyFourMegabyteRoundingAndMemoryBounds) {
  const auto m = model("vgg19");
  // 36.571 + 807.619 = 844.19 MB -> 844 -> 14 * 64 = 896 MB.
  EXPECT_DOUBLE_EQ(round_up_64mb(844.19), 896.0);
  EXPECT_DOUBLE_EQ(round_up_64mb(896.0), 896.0);
  // implementations.md §1.5: 896/4/1024 = 0.21875 (b = 1, 2); 960/4/1024 = 0.234375 (b = 3, 4).
  EXPECT_DOUBLE_EQ(cpu_min_cores_for_memory(m, 1), 0.21875);
  EXPECT_DOUBLE_EQ(cpu_min_cores_for_memory(m, 2), 0.21875);
  EXPECT_DOUBLE_EQ(cpu_min_cores_for_memory(m, 3), 0.234375);
  // 0.2 vCPU may have at most 0.8 GB < 0.875 GB needed: infeasible.
  EXPECT_FALSE(cpu_function_memory_gb(m, 0.2, 1).has_value());
  // 0.5 vCPU: 0.875 GB needed, kept (>= 0.5 GB).
  EXPECT_DOUBLE_EQ(*cpu_function_memory_gb(m, 0.5, 1), 0.875);
  // 1.6 vCPU: at least 1.6 GB = 1638.4 MB -> 1638 -> 26 * 64 = 1664 MB = 1.625 GB.
  EXPECT_DOUBLE_EQ(*cpu_function_memory_gb(m, 1.6, 1), 1.625);
  EXPECT_DOUBLE_EQ(gpu_function_memory_gb(m), 0.5);
  // VGG-19's thresholds [0]: every batch needs g >= 2; VideoMAE [0,4,6,12,14].
  EXPECT_EQ(gpu_min_memory_gb(m, 1), 2);
  const auto v = model("videomae");
  EXPECT_EQ(gpu_min_memory_gb(v, 4), 2);
  EXPECT_EQ(gpu_min_memory_gb(v, 5), 3);
  EXPECT_EQ(gpu_min_memory_gb(v, 13), 5);
  EXPECT_EQ(gpu_min_memory_gb(v, 32), 6);
}

TEST(HarmonyBatchModel, LatencyEquations) {
  const auto m = model("vgg19");
  // eq. 1: 1.82607 e^{-1.6/0.52837} + 0.18015 = 1.82607 * 0.048410 + 0.18015 = 0.26855.
  EXPECT_NEAR(cpu_avg_latency_s(m, 1.6, 1), 0.26855, 5e-5);
  // eq. 2: L0(13) = 0.0016798 * 13 + 0.0021131 = 0.0239511.
  const double l0 = 0.001679844365532822 * 13 + 0.002113091944793135;
  // eq. 3: (24/2) L0 = 0.287413.
  EXPECT_NEAR(gpu_avg_latency_s(m, 2, 13), 12 * l0, 1e-12);
  // eq. 4: ceil(L0 / (2 * 0.002)) = ceil(5.988) = 6 slices, 6 * 22 * 0.002 + L0 = 0.287951;
  // times the code's 1.2 = 0.345541 (so the paper's timeouts 0.8 - 0.35 = 0.45 and 0.65).
  EXPECT_NEAR(gpu_max_latency_s(m, 2, 13, 1.0), 0.264 + l0, 1e-12);
  EXPECT_NEAR(gpu_max_latency_s(m, 2, 13, 1.2), 1.2 * (0.264 + l0), 1e-12);
  // No overhead with the whole GPU: L_max = L0.
  EXPECT_NEAR(gpu_max_latency_s(m, 24, 13, 1.2), l0, 1e-12);
  // BERT's CPU part: b L0 / min(g/3, 1) = 0.57 L0 / (2/3) at g = 2.
  const auto bert = model("bert");
  const double l0b = 0.0010292705272600062 + 0.0015764113037945399;
  EXPECT_NEAR(gpu_avg_latency_s(bert, 2, 1), 12 * 0.43 * l0b + 0.57 * l0b / (2.0 / 3.0), 1e-12);
}

TEST(HarmonyBatchModel, EquivalentTimeoutEq5) {
  // Two apps: 0.1 + (5/10) (1 - e^{-5 * 0.2}) / 5 = 0.1 + 0.5 * 0.126424 = 0.163212.
  const std::vector<double> t2{0.1, 0.3}, r2{5, 5};
  EXPECT_NEAR(equivalent_timeout_s(t2, r2), 0.163212, 1e-6);
  // Three apps, folded: (0.163212, 10) then + (0.5, 5):
  // 0.163212 + (5/15) (1 - e^{-10 * 0.336788}) / 10 = 0.163212 + 0.032185 = 0.195397.
  const std::vector<double> t3{0.1, 0.3, 0.5}, r3{5, 5, 5};
  EXPECT_NEAR(equivalent_timeout_s(t3, r3), 0.195397, 1e-6);
  // One app: its own timeout.
  const std::vector<double> t1{0.4}, r1{3};
  EXPECT_DOUBLE_EQ(equivalent_timeout_s(t1, r1), 0.4);
  // Equal timeouts: T_eq is that timeout.
  const std::vector<double> te{0.3, 0.3}, re{2, 7};
  EXPECT_DOUBLE_EQ(equivalent_timeout_s(te, re), 0.3);
}

TEST(HarmonyBatchModel, TimeoutSolverKeepsTheSloSpacing) {
  // implementations.md §1.7: T = 0.2, SLOs (0.7, 0.8), rates (5, 5) -> (0.16016, 0.26016).
  const std::vector<double> s{0.7, 0.8}, r{5, 5};
  const auto t = timeouts_for_equivalent(0.2, s, r);
  EXPECT_NEAR(t[0], 0.16016, 5e-5);
  EXPECT_NEAR(t[1] - t[0], 0.1, 1e-12);
  EXPECT_NEAR(equivalent_timeout_s(t, r), 0.2, 1e-3);
  // T = 0: all zeros.
  const auto z = timeouts_for_equivalent(0.0, s, r);
  EXPECT_EQ(z, (std::vector<double>{0.0, 0.0}));
}

TEST(HarmonyBatchModel, TimeoutSolverEndsForHugeTargets) {
  // A rate of 1e-22 req/s gives a target of ~3e22 s, where doubles are ~4e6 s apart: the
  // code's 1 ms stopping rule is never met and the solver once looped for ever. It must end
  // with the bracket collapsed on the target (the single timeout equals it).
  const std::vector<double> s{0.3}, r{1e-22};
  const auto t = timeouts_for_equivalent(3e22, s, r);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_NEAR(t[0] / 3e22, 1.0, 1e-9);
}

TEST(HarmonyBatchModel, CostEq6WithBothPriceTables) {
  const auto paper = PriceTable::paper();
  // CPU, 1.6 vCPU, D = 0.26855 s, b = 1: 1.3e-7 + 0.26855 * 1.6 * 1.3e-5 = 5.7162e-6.
  EXPECT_NEAR(cost_per_request(paper, FunctionType::kCpu, 1.6, 1.625, 0, 0.26855, 1),
              1.3e-7 + 0.26855 * 1.6 * 1.3e-5, 1e-15);
  // GPU, 2 GB, D = 0.2874 s billed as 1 s, b = 13: (1.3e-7 + 2 * 1.5e-5) / 13 = 2.3177e-6.
  EXPECT_NEAR(cost_per_request(paper, FunctionType::kGpu, 2.0 / 3, 0.5, 2, 0.2874, 13),
              (1.3e-7 + 3e-5) / 13, 1e-15);
  // Whole seconds: 1.2 s is billed as 2 s.
  EXPECT_NEAR(cost_per_request(paper, FunctionType::kGpu, 1, 0.5, 3, 1.2, 1),
              1.3e-7 + 2 * 3 * 1.5e-5, 1e-15);
  // The code's table at g = 2 (implementations.md §1.6): 9e-7 + (2/3 * 9e-5 + 0.5 * 9e-6 +
  // 2 * 1.1e-4) * 1 s = 2.854e-4 per batch.
  const auto code = PriceTable::code();
  EXPECT_NEAR(cost_per_request(code, FunctionType::kGpu, 2.0 / 3, 0.5, 2, 0.2874, 1), 2.854e-4,
              1e-12);
  // The code's CPU: 1.6 * 9e-5 + 1.625 * 9e-6 per second.
  EXPECT_NEAR(cost_per_request(code, FunctionType::kCpu, 1.6, 1.625, 0, 0.5, 2),
              (9e-7 + 0.5 * (1.6 * 9e-5 + 1.625 * 9e-6)) / 2, 1e-15);
  EXPECT_THROW(PriceTable::named("cny"), std::invalid_argument);
}

// b_avg = min(b, floor(r T) + 1), computed before the int conversion: an SLO of 1e20 s used
// to turn r T into INT_MIN ("no CPU coefficients for batch -2147483647").
TEST(HarmonyBatchModel, FormedBatchIsBoundedForHugeProducts) {
  EXPECT_EQ(formed_batch(1, 100.0), 1);
  EXPECT_EQ(formed_batch(8, 0.0), 1);
  EXPECT_EQ(formed_batch(8, 2.5), 3);
  EXPECT_EQ(formed_batch(8, 6.999), 7);
  EXPECT_EQ(formed_batch(8, 7.0), 8);
  EXPECT_EQ(formed_batch(8, 5.0e21), 8);
  EXPECT_EQ(formed_batch(8, std::numeric_limits<double>::infinity()), 8);
  EXPECT_EQ(formed_batch(8, std::numeric_limits<double>::quiet_NaN()), 8);
}

}  // namespace
}  // namespace sim::policy::harmonybatch
