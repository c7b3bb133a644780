#include "sim/gpu_models/exclusive_unit.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <stdexcept>

#include "test_helpers.hpp"

namespace sim::gpu {
namespace {

using testing::a100;
using testing::gpu_model;
using testing::repo_catalog;

TEST(ExclusiveUnit, RunsOneBatchAtATimeFifo) {
  const GpuType gpu = a100();
  const auto a = gpu_model("a", 0.100, 0.9);
  const auto b = gpu_model("b", 0.050, 0.9);
  Simulation sim;
  ExclusiveUnit unit(sim, "gpu0", std::make_unique<GpuSoloLatency>(gpu));
  std::map<std::uint64_t, JobResult> done;
  auto cb = [&](const JobResult& r) { done[r.id] = r; };
  unit.submit({1, &a, 1, 1.0, cb});
  unit.submit({2, &b, 1, 1.0, cb});
  sim.schedule_at(ms(120), [&] { unit.submit({3, &b, 1, 1.0, cb}); });
  EXPECT_EQ(unit.running(), 1u);
  EXPECT_EQ(unit.queued(), 1u);
  // Backlog seen by a new batch at t = 0: 100 ms running + 50 ms queued.
  EXPECT_EQ(unit.predicted_backlog(), ms(150));
  sim.run();
  // No interference whatever the FBRs: job 1 0-100 ms, job 2 100-150 ms; job 3 arrives at
  // 120 ms while job 2 runs and starts at 150 ms -> 200 ms.
  EXPECT_EQ(done.at(1).finished, ms(100));
  EXPECT_EQ(done.at(2).started, ms(100));
  EXPECT_EQ(done.at(2).finished, ms(150));
  EXPECT_EQ(done.at(3).submitted, ms(120));
  EXPECT_EQ(done.at(3).started, ms(150));
  EXPECT_EQ(done.at(3).finished, ms(200));
  EXPECT_EQ(unit.completed(), 3u);
}

TEST(ExclusiveUnit, MigSliceScalesByRdfAndBoundsMemory) {
  const GpuType gpu = a100();
  const auto a = gpu_model("a", 0.100, 0.5, 8.0);
  Simulation sim;
  ExclusiveUnit slice(sim, "2g", std::make_unique<GpuSoloLatency>(gpu, &gpu.profile("2g.10gb")));
  // RDF(2g) = 2.0: 100 ms -> 200 ms.
  EXPECT_DOUBLE_EQ(slice.predict_solo_s(a, 1), 0.200);
  EXPECT_DOUBLE_EQ(slice.memory_capacity_gb(), 10.0);
  ExclusiveUnit small(sim, "1g", std::make_unique<GpuSoloLatency>(gpu, &gpu.profile("1g.5gb")));
  EXPECT_THROW(small.submit({1, &a, 1, 1.0, {}}), std::invalid_argument);  // 8 GB > 5 GB
}

TEST(ExclusiveUnit, CatalogModelAcrossGpus) {
  const auto& cat = repo_catalog();
  const auto& vgg = cat.model("protean/vgg-19");
  // Protean VGG 19: 180 ms at batch 128 on A100 (7g); 5% of it fixed: L(b) = 9 ms + 171 ms *
  // b / 128. Batch 64: 9 + 85.5 = 94.5 ms. On the H100 (speed 2.15): 180 / 2.15 = 83.72 ms.
  Simulation sim;
  ExclusiveUnit a(sim, "a100", std::make_unique<GpuSoloLatency>(cat.gpu("A100-40GB")));
  ExclusiveUnit h(sim, "h100", std::make_unique<GpuSoloLatency>(cat.gpu("H100-80GB")));
  EXPECT_NEAR(a.predict_solo_s(vgg, 128), 0.180, 1e-12);
  EXPECT_NEAR(a.predict_solo_s(vgg, 64), 0.0945, 1e-12);
  EXPECT_NEAR(h.predict_solo_s(vgg, 128), 0.180 / 2.15, 1e-12);
  // H100 1g.10gb looks up the A100 1g.5gb RDF (1 + 0.65 * 6 = 4.9).
  const GpuType& h100 = cat.gpu("H100-80GB");
  EXPECT_NEAR(vgg.gpu_solo_s(128, h100, &h100.profile("1g.10gb")), 0.180 / 2.15 * 4.9, 1e-12);
}

TEST(ExclusiveUnit, CpuFunctionFollowsEq1) {
  const auto& vgg = repo_catalog().model("harmonybatch/vgg19");
  Simulation sim;
  ExclusiveUnit avg(sim, "cpu",
                    std::make_unique<CpuFunctionLatency>(1.0, CpuLatencyMode::kAverage));
  ExclusiveUnit max(sim, "cpu",
                    std::make_unique<CpuFunctionLatency>(1.0, CpuLatencyMode::kMaximum));
  // eq. 1 at 1 core, b = 1: avg 0.4553046 s (see LatencyFormulas); max 2.80468 * exp(-1 /
  // 0.48620) + 0.24860 = 0.6072220 s.
  EXPECT_NEAR(avg.predict_solo_s(vgg, 1), 0.4553046, 1e-6);
  EXPECT_NEAR(max.predict_solo_s(vgg, 1), 0.6072220, 1e-6);
  JobResult r;
  avg.submit({7, &vgg, 1, 1.0, [&](const JobResult& x) { r = x; }});
  sim.run();
  EXPECT_EQ(r.finished, ceil_seconds(cpu_latency_s(vgg.cpu->avg[0], 1.0)));
  EXPECT_THROW(avg.submit({8, &vgg, 5, 1.0, {}}), std::invalid_argument);  // no b = 5 row
}

TEST(ExclusiveUnit, CpuFunctionSampledStaysAroundAverage) {
  const auto& vgg = repo_catalog().model("harmonybatch/vgg19");
  Simulation sim(42);
  CpuFunctionLatency lat(2.0, CpuLatencyMode::kSampled, sim.rng("test", "cpu"));
  const double avg = lat.predict_s(vgg, 2);
  const double max = vgg.cpu->latency_s(2, 2.0, LatencyStat::kMaximum);
  int above = 0;
  double sum = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const double x = lat.sample_s(vgg, 2);
    sum += x;
    above += x > max ? 1 : 0;
  }
  // Normal(avg, (max - avg) / 2.33): mean ~ avg, ~1% above max.
  EXPECT_NEAR(sum / n, avg, 0.01 * avg);
  EXPECT_NEAR(static_cast<double>(above) / n, 0.01, 0.004);
}

TEST(ExclusiveUnit, InflessShareUsesCombinedOperatorProfile) {
  const auto& resnet = repo_catalog().model("infless/resnet-50");
  Simulation sim;
  ExclusiveUnit unit(sim, "infless", std::make_unique<OperatorProfileLatency>(8, 50));
  // Measured table: 8 threads, 50% GPU, batch 8 -> 114.88 ms; operator shares on the critical
  // path sum to 1, so COP reproduces it.
  EXPECT_NEAR(unit.predict_solo_s(resnet, 8), 0.11488, 1e-12);
  // Batch 32 at 8 threads + 50% did not run (>= 20 s in the table): rejected.
  EXPECT_THROW((void)unit.predict_solo_s(resnet, 32), std::invalid_argument);
  EXPECT_THROW(OperatorProfileLatency(0, 0), std::invalid_argument);
  // Remembered latencies are per batch size and per model, and a rejection is not remembered
  // (2 threads + 10%: batch 1 60 ms, batch 2 72 ms in the table).
  ExclusiveUnit small(sim, "infless-small", std::make_unique<OperatorProfileLatency>(2, 10));
  for (int round = 0; round < 2; ++round) {
    EXPECT_NEAR(small.predict_solo_s(resnet, 1), 0.060, 1e-12);
    EXPECT_NEAR(small.predict_solo_s(resnet, 2), 0.072, 1e-12);
    EXPECT_THROW((void)small.predict_solo_s(resnet, 8), std::invalid_argument);
  }
  const auto& other = repo_catalog().model("infless/vggnet");
  EXPECT_EQ(small.predict_solo_s(other, 1), OperatorProfileLatency(2, 10).predict_s(other, 1));
  EXPECT_NE(small.predict_solo_s(other, 1), small.predict_solo_s(resnet, 1));
}

// The remembered latencies (the first model's indexed by batch, the rest scanned) against a
// fresh OperatorProfileLatency per query, which remembers nothing before it answers: random
// queries over two models and batches below and above the indexed range, some rejected.
TEST(ExclusiveUnit, InflessRememberedLatencyMatchesFreshComputation) {
  const ModelProfile* models[] = {&repo_catalog().model("infless/resnet-50"),
                                  &repo_catalog().model("infless/vggnet")};
  const int shares[][2] = {{2, 10}, {8, 50}, {16, 0}};
  std::mt19937 rng(24);
  for (const auto& share : shares) {
    for (int seq = 0; seq < 4; ++seq) {
      const OperatorProfileLatency memo(share[0], share[1]);
      int answered = 0;
      int rejected = 0;
      for (int q = 0; q < 300; ++q) {
        const ModelProfile& m = *models[rng() % 2];
        const int batch =
            rng() % 8 == 0 ? 1020 + static_cast<int>(rng() % 8) : static_cast<int>(rng() % 40);
        double want = 0.0;
        bool throws = false;
        try {
          want = OperatorProfileLatency(share[0], share[1]).predict_s(m, batch);
        } catch (const std::invalid_argument&) {
          throws = true;
        }
        if (throws) {
          EXPECT_THROW((void)memo.predict_s(m, batch), std::invalid_argument);
          ++rejected;
        } else {
          EXPECT_EQ(memo.predict_s(m, batch), want) << m.name << " batch " << batch;
          ++answered;
        }
      }
      EXPECT_GT(answered, 10);  // both outcomes exercised
      EXPECT_GT(rejected, 0);
    }
  }
}

TEST(ExclusiveUnit, DisabledUnitRejectsJobs) {
  const GpuType gpu = a100();
  const auto a = gpu_model("a", 0.1, 0.1);
  Simulation sim;
  ExclusiveUnit unit(sim, "gpu0", std::make_unique<GpuSoloLatency>(gpu));
  unit.set_enabled(false);
  EXPECT_THROW(unit.submit({1, &a, 1, 1.0, {}}), std::logic_error);
}

}  // namespace
}  // namespace sim::gpu
