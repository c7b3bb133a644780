// Flashpoint model partitioning (§4.1.3, §4.2) and the analytical model of §3.4.2, with
// expectations computed by hand from the thesis.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "flashpoint/partitioning.hpp"

namespace sim::policy::flashpoint {
namespace {

// §4.1.3, Fig. 4.2: 8 queued requests, 2 GPUs with the full model, 4 s per request, 24 s cold
// start. Each GPU serves 4 in turn: (28 + 32 + 36 + 40) / 4 = 34 s.
TEST(WorkedExample, FullModelAverages34s) {
  EXPECT_DOUBLE_EQ(worked_example_average_s(8, 2, 24.0, {4.0}, false), 34.0);
}

// Fig. 4.3: two halves of 2 s with a 1 s transfer between them, 12 s cold start, no
// pipelining: 5 s per request one after the other, 12 + 5 * (1 + ... + 8) / 8 = 12 + 22.5.
TEST(WorkedExample, PartitionedWithoutPipeliningAverages34_5s) {
  EXPECT_DOUBLE_EQ(worked_example_average_s(8, 1, 12.0, {2.0, 1.0, 2.0}, false), 34.5);
}

// Fig. 4.4: pipelined, the first GPU takes the next request after its 2 s: completions at
// 12 + 5, 7, ..., 19 -> 12 + (5 + 7 + ... + 19) / 8 = 12 + 12 = 24 s.
TEST(WorkedExample, PartitionedWithPipeliningAverages24s) {
  EXPECT_DOUBLE_EQ(worked_example_average_s(8, 1, 12.0, {2.0, 1.0, 2.0}, true), 24.0);
}

// The same examples through the closed form of eq. 4.5-4.8 (P = 2 GPUs).
std::vector<LayerCost> two_halves() {
  // Each half: 12 s cold start, 2 s execution; the first half's output takes 1 s to send.
  return {{12.0, 2.0, 1.0, 0.0}, {12.0, 2.0, 0.0, 0.0}};
}

TEST(AnalyticalModel, Eq4_8ReproducesTheWorkedExamples) {
  const auto layers = two_halves();
  const PlanCosts full = plan_costs(layers, {});
  EXPECT_DOUBLE_EQ(full.cold_start_s, 24.0);
  EXPECT_DOUBLE_EQ(full.inference_s, 4.0);
  // p = 1, P = 2: floor(2/1) = 2 pipelines; W = 4 * (ceil(y/2) - 1) = 0,0,4,4,8,8,12,12 (mean
  // 6): 24 + 6 + 4 = 34.
  EXPECT_DOUBLE_EQ(average_time_s(full, 8, 2), 34.0);
  const PlanCosts halves = plan_costs(layers, {0});
  EXPECT_DOUBLE_EQ(halves.cold_start_s, 12.0);
  EXPECT_DOUBLE_EQ(halves.bottleneck_s(), 2.0);
  EXPECT_DOUBLE_EQ(halves.incurred_s, 1.0);
  EXPECT_DOUBLE_EQ(halves.inference_s, 5.0);  // eq. 4.2: I(1) + IN = 4 + 1
  // p = 2: W = 2 * (y - 1), mean 7: 12 + 7 + 5 = 24.
  EXPECT_DOUBLE_EQ(average_time_s(halves, 8, 2), 24.0);
  EXPECT_DOUBLE_EQ(total_time_s(halves, 8, 2), 12.0 + 14.0 + 5.0);
  // p = 3 does not fit on P = 2 GPUs (floor(2/3) = 0).
  EXPECT_TRUE(std::isinf(
      waiting_time_s(plan_costs({{1, 1, 1, 0}, {1, 1, 1, 0}, {1, 1, 0, 0}}, {0, 1}), 1, 2)));
  // The DP picks the split at x = 8 and the full model at x = 1 would be 24 + 4 = 28 vs
  // 12 + 5 = 17: split again.
  EXPECT_EQ(best_plan(layers, 2, 8, 2).partitions(), 2);
}

// Brute force over every cut set of a small model: the DP with a fixed p returns a plan whose
// eq.-4.8 value is the minimum over all plans with p partitions whenever the objective is
// decided by one term (here: cold start dominates, transfers tiny).
TEST(CutSelection, DpMatchesExhaustiveSearchOnSmallModels) {
  const std::vector<LayerCost> layers{{3.0, 0.2, 0.05, 0}, {1.0, 0.1, 0.02, 0},
                                      {2.0, 0.3, 0.04, 0}, {4.0, 0.1, 0.01, 0},
                                      {1.5, 0.2, 0.03, 0}, {2.5, 0.1, 0.02, 0}};
  const int n = static_cast<int>(layers.size());
  for (int p = 1; p <= n; ++p) {
    for (const long x : {1L, 10L, 100L}) {
      double best = std::numeric_limits<double>::infinity();
      for (unsigned mask = 0; mask < (1u << (n - 1)); ++mask) {
        if (__builtin_popcount(mask) != p - 1) continue;
        std::vector<int> cuts;
        for (int i = 0; i < n - 1; ++i)
          if (mask & (1u << i)) cuts.push_back(i);
        best = std::min(best, average_time_s(plan_costs(layers, cuts), x, n));
      }
      const PlanCosts dp = best_plan_with(layers, p, x, n);
      EXPECT_EQ(dp.partitions(), p);
      EXPECT_NEAR(average_time_s(dp, x, n), best, 1e-9) << "p=" << p << " x=" << x;
    }
  }
}

TEST(CutSelection, FewerPartitionsWhenTransfersAreExpensive) {
  // Four equal layers (4 s cold start, 1 s execution). Cheap transfers: the model is cut into
  // 4 (C = 4 instead of 16). Transfers of 100 s: never cut.
  std::vector<LayerCost> cheap(4, {4.0, 1.0, 0.01, 0});
  EXPECT_EQ(best_plan(cheap, 4, 1, 4).partitions(), 4);
  std::vector<LayerCost> costly(4, {4.0, 1.0, 100.0, 0});
  EXPECT_EQ(best_plan(costly, 4, 1, 4).partitions(), 1);
}

// §4.2.2: with many requests the pipeline's throughput matters more than the cold start, so
// the optimal p falls as x grows; the search finds each range boundary exactly.
TEST(PlanSearch, ExponentialSearchFindsTheRangeBoundaries) {
  // Two layers: full model C = 20, I = 2 (P = 2 -> 2 replicas, W = 2 (ceil(y/2) - 1)).
  // Split: C = 10, B = max(E, N) = 3 (second half exec 3 s... see below), I = 1 + 3 + 0.5.
  const std::vector<LayerCost> layers{{10.0, 1.0, 0.5, 0}, {10.0, 3.0, 0.0, 0}};
  // Full: avg(x) = 20 + 4 + 4 * S2(x)/x ... computed by the code; check the boundary by brute
  // force over x and compare with the table.
  const PlanTable t = precalculate_plans(layers, 2, 3000);
  ASSERT_FALSE(t.ranges.empty());
  EXPECT_EQ(t.ranges.front().from, 1);
  EXPECT_EQ(t.ranges.back().to, 3000);
  for (long x = 1; x <= 3000; x += (x < 100 ? 1 : 37)) {
    const int expect = best_plan(layers, 2, x, 2).partitions();
    EXPECT_EQ(t.lookup(x, 2).partitions(), expect) << "x=" << x;
  }
  // With the split the pipeline admits one request per 3 s; two full replicas admit two per
  // 4 s, so for large x the full model wins: the table must switch from 2 to 1 partition.
  EXPECT_EQ(t.ranges.front().best.partitions(), 2);
  EXPECT_EQ(t.ranges.back().best.partitions(), 1);
  EXPECT_LT(t.evaluations, 60u);  // exponential search, not 3000 evaluations
  // At most one partition allowed: the full model.
  EXPECT_EQ(t.lookup(1, 1).partitions(), 1);
}

TEST(PlanSearch, Eq4_14ExpectedRequests) {
  // q_l = 100 queued, lambda = 80/s, mu = 50/s, C(1) = 56.344 s (T5-3B: 41 + 14.138 + 1.206):
  // 100 + 30 * 56.344 = 1790.32.
  EXPECT_NEAR(expected_requests(100, 80, 50, 56.344), 1790.32, 1e-9);
}

TEST(Baselines, GillisFillsTheLimitSerFerCutsMore) {
  // Six 100 MB layers, 250 MB limit: Gillis [100,100 | 100,100 | 100,100] -> cuts after 1, 3;
  // SerFer (cut past half the limit, 125 MB) -> one layer per partition.
  const std::vector<LayerCost> layers(6, {1.0, 1.0, 0.1, 100e6});
  EXPECT_EQ(gillis_cuts(layers, 250e6), (std::vector<int>{1, 3}));
  EXPECT_EQ(serfer_cuts(layers, 250e6), (std::vector<int>{0, 1, 2, 3, 4}));
}

// §3.4.2.
TEST(AnalyticalModel, Eq3_5WaitDuringExcessDemand) {
  // lambda = 60/s, mu = 40/s, E(d_c) = 56.344 s: (60/40 - 1) * 56.344 = 28.172 s.
  EXPECT_NEAR(expected_wait_s(60, 40, 56.344), 28.172, 1e-12);
  // No excess demand, no wait.
  EXPECT_DOUBLE_EQ(expected_wait_s(40, 40, 56.344), 0.0);
}

TEST(AnalyticalModel, Eq3_1To3_7) {
  // A 24 GB GPU, a 14 GB model using 100% of the compute: c(f) = min(24/14, 1/1) = 1.
  EXPECT_DOUBLE_EQ(concurrency(24, 14, 1.0, 1.0), 1.0);
  // Half the compute and 10 GB: min(2.4, 2) = 2.
  EXPECT_DOUBLE_EQ(concurrency(24, 10, 1.0, 0.5), 2.0);
  // lambda = 30/s, c_f = 1, m = 10: r = 30/10 - 1 = 2.
  EXPECT_DOUBLE_EQ(scale_ratio(30, 1.0, 10), 2.0);
  // Eq. 3.6 with T5-3B's stages: 2 * 41 + 14.138 + 1.206 = 97.344 s.
  EXPECT_NEAR(expected_cold_start_s(2.0, 41.0, 14.138, 1.206), 97.344, 1e-12);
}

}  // namespace
}  // namespace sim::policy::flashpoint
