#include "sim/gpu_models/latency_formulas.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace sim::gpu {
namespace {

TEST(LatencyFormulas, CpuExponentialMatchesHandComputation) {
  // HarmonyBatch eq. 1, VGG-19 average, b = 1: 1.82607 * exp(-1 / 0.52837) + 0.18015 at 1 core
  // = 1.8260696 * 0.1501432 + 0.1801543 = 0.4553046 s.
  const ExpCoefficients k{1.8260695578676214, 0.5283726420022545, 0.18015427168547402};
  EXPECT_NEAR(cpu_latency_s(k, 1.0), 0.4553046, 1e-6);
  // b = 4 at 2 cores: 8.92256 * exp(-2 / 0.44847) + 0.75699 = 0.8601992 s.
  const ExpCoefficients k4{8.922555068657605, 0.4484733129911248, 0.7569893954072374};
  EXPECT_NEAR(cpu_latency_s(k4, 2.0), 0.8601992, 1e-6);
  EXPECT_THROW((void)cpu_latency_s(k, 0.0), std::invalid_argument);
}

TEST(LatencyFormulas, GpuLinear) {
  // HarmonyBatch eq. 2, VGG-19 on an A10: 0.0016798 * 8 + 0.0021131 = 0.0155518 s.
  EXPECT_NEAR(gpu_base_latency_s(0.001679844365532822, 0.002113091944793135, 8), 0.0155518, 1e-6);
  EXPECT_THROW((void)gpu_base_latency_s(1, 1, 0), std::invalid_argument);
}

TEST(LatencyFormulas, CgpuAverageAndMax) {
  const double l0 = 0.01555184686905571;
  // eq. 3: (24 / 2) * L0 = 0.1866222 s.
  EXPECT_NEAR(cgpu_average_latency_s(l0, 2, 24), 0.1866222, 1e-6);
  // eq. 4: ceil(0.0155518 / (2 * 0.002)) = ceil(3.888) = 4 windows, each preceded by
  // (24 - 2) * 2 ms = 44 ms of preemption: 4 * 0.044 + 0.0155518 = 0.1915518 s.
  EXPECT_NEAR(cgpu_max_latency_s(l0, 2, 24, 0.002), 0.1915518, 1e-6);
  // The whole GPU (m = M_max) is never preempted: max = L0.
  EXPECT_DOUBLE_EQ(cgpu_max_latency_s(l0, 24, 24, 0.002), l0);
  EXPECT_THROW((void)cgpu_average_latency_s(l0, 25, 24), std::invalid_argument);
}

TEST(LatencyFormulas, CgpuSlotScheduleFigure8) {
  // HarmonyBatch Fig. 8: a request needing 2 m tau. m = 4, M_max = 24, tau = 2 ms: cycle 48 ms,
  // own window 8 ms, request needs 16 ms of GPU time.
  const double m = 4, mm = 24, tau = 0.002, need = 2 * m * tau;
  // (b) arriving at the start of an own window: 8 ms, 40 ms preempted, 8 ms = (M+m) tau = 56 ms.
  EXPECT_NEAR(cgpu_slot_finish_s(0.0, need, m, mm, tau), (mm + m) * tau, 1e-12);
  // (a) arriving at the start of a preempted slice (8 ms): 40 + 8 + 40 + 8 = 2 M tau = 96 ms.
  EXPECT_NEAR(cgpu_slot_finish_s(0.008, need, m, mm, tau) - 0.008, 2 * mm * tau, 1e-12);
  // Which equals eq. 4: ceil(16 / 8) * 20 * 2 ms + 16 ms = 96 ms.
  EXPECT_NEAR(cgpu_max_latency_s(need, m, mm, tau), 2 * mm * tau, 1e-12);
  // A window offset shifts the schedule: with the window at [10, 18) ms, arriving at 10 ms is
  // case (b) again.
  EXPECT_NEAR(cgpu_slot_finish_s(0.010, need, m, mm, tau, 0.010) - 0.010, (mm + m) * tau, 1e-12);
}

TEST(LatencyFormulas, CgpuSlotScheduleWorstCaseIsEq4) {
  // Sweep arrival phases over two cycles in 0.1 ms steps; the worst latency must equal eq. 4
  // and none may exceed it.
  for (double l0 : {0.0155518, 0.003, 0.05, 0.016}) {
    for (double m : {1.0, 2.0, 5.0, 12.0}) {
      const double tau = 0.002, mm = 24;
      double worst = 0;
      for (int i = 0; i < 960; ++i) {
        const double start = 0.0001 * i;
        worst = std::max(worst, cgpu_slot_finish_s(start, l0, m, mm, tau) - start);
      }
      EXPECT_NEAR(worst, cgpu_max_latency_s(l0, m, mm, tau), 1e-9) << "l0=" << l0 << " m=" << m;
    }
  }
}

}  // namespace
}  // namespace sim::gpu
