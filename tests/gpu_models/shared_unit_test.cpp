#include "sim/gpu_models/shared_unit.hpp"

#include <gtest/gtest.h>

#include <map>

#include "test_helpers.hpp"

namespace sim::gpu {
namespace {

using testing::a100;
using testing::gpu_model;
using testing::linear_model;

struct Recorder {
  std::map<std::uint64_t, Time> finished;
  BatchJob job(std::uint64_t id, const ModelProfile& m, int batch = 1, double cap = 1.0) {
    return BatchJob{id, &m, batch, cap,
                    [this](const JobResult& r) { finished[r.id] = r.finished; }};
  }
};

// Finish times are rounded up to whole nanoseconds at every re-evaluation.
constexpr std::int64_t kSlackNs = 5;
void expect_at(Time t, double seconds) {
  EXPECT_GE(t.ns(), std::llround(seconds * 1e9) - 1);
  EXPECT_LE(t.ns(), std::llround(seconds * 1e9) + kSlackNs);
}

// A: 0.01 s/sample + 0.02 s, batch 8 -> 0.1 s, compute 0.08/0.1 = 0.8, FBR 0.3.
// B: 0.005 s/sample + 0.05 s, batch 10 -> 0.1 s, compute 0.05/0.1 = 0.5, FBR 0.6.
const ModelProfile kA = linear_model("a", 0.01, 0.02, 0.3);
const ModelProfile kB = linear_model("b", 0.005, 0.05, 0.6);
const ModelProfile kC = linear_model("c", 0.006, 0.04, 0.5);  // batch 10: 0.1 s, compute 0.6

TEST(SharedUnit, TwoCoRunnersShareComputeWithInterference) {
  const GpuType gpu = a100();
  Simulation sim;
  SharedUnitOptions o;
  o.sharing.interference = 0.5;
  SharedUnit unit(sim, "gpu0", gpu, nullptr, o);
  Recorder rec;
  unit.submit(rec.job(1, kA, 8));
  unit.submit(rec.job(2, kB, 10));
  // s = max{1, 0.8 + 0.5, 0.3 + 0.6} = 1.3 (compute-bound).
  // r_A = 1 / (1.3 (1 + 0.5 x 0.6)) = 1 / 1.69; r_B = 1 / (1.3 (1 + 0.5 x 0.3)) = 1 / 1.495.
  ASSERT_EQ(unit.rates().size(), 2u);
  EXPECT_NEAR(unit.rates()[0], 1 / 1.69, 1e-12);
  EXPECT_NEAR(unit.rates()[1], 1 / 1.495, 1e-12);
  sim.run();
  // B ends at 0.1 x 1.495 = 0.1495; A has done 0.1495 / 1.69 = 0.0884615 and runs the
  // remaining 0.0115385 alone: 0.1610385.
  expect_at(rec.finished.at(2), 0.1495);
  expect_at(rec.finished.at(1), 0.16103846153846);
}

TEST(SharedUnit, ThreeCoRunnersWithArrivalAndDeparture) {
  const GpuType gpu = a100();
  Simulation sim;
  SharedUnit unit(sim, "gpu0", gpu);  // kappa 0
  Recorder rec;
  unit.submit(rec.job(1, kA, 8));
  sim.schedule_at(ms(50), [&] {
    unit.submit(rec.job(2, kB, 10));
    unit.submit(rec.job(3, kC, 10));
  });
  sim.run();
  // 0-50 ms: A alone at rate 1, 0.05 s left. Then s = max{1, 0.8+0.5+0.6, 0.3+0.6+0.5} = 1.9:
  // A ends at 0.05 + 0.05 x 1.9 = 0.145; B and C have done 0.05 each. Then s = max{1, 1.1,
  // 1.1} = 1.1: they end at 0.145 + 0.05 x 1.1 = 0.2.
  expect_at(rec.finished.at(1), 0.145);
  expect_at(rec.finished.at(2), 0.2);
  expect_at(rec.finished.at(3), 0.2);
}

TEST(SharedUnit, SmallBatchesGainOnlyTheirUnusedCompute) {
  const GpuType gpu = a100();
  Simulation sim;
  SharedUnit unit(sim, "gpu0", gpu);
  Recorder rec;
  // Batch 1 of A: 0.03 s, compute 0.01 / 0.03 = 1/3, bandwidth 0.3. Three fill the SMs:
  // s = max{1, 1, 0.9} = 1, all at full speed. A fourth makes s = 4/3.
  for (std::uint64_t i = 1; i <= 3; ++i)
    unit.submit(rec.job(i, kA, 1));
  for (double r : unit.rates())
    EXPECT_NEAR(r, 1.0, 1e-12);
  unit.submit(rec.job(4, kA, 1));
  for (double r : unit.rates())
    EXPECT_NEAR(r, 0.75, 1e-12);
  sim.run();
  // 4 samples in 0.04 s = 100/s = the peak 1 / xi1, never more.
  for (std::uint64_t i = 1; i <= 4; ++i)
    expect_at(rec.finished.at(i), 0.04);
}

TEST(SharedUnit, BandwidthBoundOnASlice) {
  const GpuType gpu = a100();
  Simulation sim;
  SharedUnit unit(sim, "slice", gpu, &gpu.profile("3g.20gb"));
  Recorder rec;
  // On 3g (RDF 1.5, 4 of 8 memory slices): d = 0.6 / (1.5 x 0.5) = 0.8 for B.
  unit.submit(rec.job(1, kB, 1));  // batch 1: 0.055 x 1.5 s, compute 0.005 / 0.055
  unit.submit(rec.job(2, kB, 1));
  ASSERT_EQ(unit.demands().size(), 2u);
  EXPECT_NEAR(unit.demands()[0].bandwidth, 0.8, 1e-12);
  EXPECT_NEAR(unit.demands()[0].compute, 0.005 / 0.055, 1e-12);
  // s = max{1, 0.18, 1.6} = 1.6: both end at 0.0825 x 1.6 = 0.132.
  sim.run();
  expect_at(rec.finished.at(1), 0.132);
  expect_at(rec.finished.at(2), 0.132);
}

TEST(SharedUnit, TimeSliceSharesTheUnitEqually) {
  const GpuType gpu = a100();
  Simulation sim;
  SharedUnitOptions o;
  o.sharing.mode = SharingMode::kTimeSlice;
  SharedUnit unit(sim, "gpu0", gpu, nullptr, o);
  Recorder rec;
  unit.submit(rec.job(1, kA, 1));  // 0.03 s alone; compute 1/3 would fit three under MPS
  unit.submit(rec.job(2, kA, 1));
  sim.run();
  // Contexts take turns: each at 1/2 -> both end at 0.06 s.
  expect_at(rec.finished.at(1), 0.06);
  expect_at(rec.finished.at(2), 0.06);
}

TEST(SharedUnit, SmCapScalesSoloTimeAndDemands) {
  const GpuType gpu = a100();
  Simulation sim;
  SharedUnit unit(sim, "gpu0", gpu, nullptr, SharedUnitOptions{0.6, 48, {}});
  Recorder rec;
  // Cap 0.3 with knee 0.6: solo 0.1 x 2 = 0.2 s; compute min(0.8, 0.3) = 0.3; bandwidth 0.3 / 2.
  unit.submit(rec.job(1, kA, 8, 0.3));
  EXPECT_NEAR(unit.demands()[0].compute, 0.3, 1e-12);
  EXPECT_NEAR(unit.demands()[0].bandwidth, 0.15, 1e-12);
  sim.run();
  expect_at(rec.finished.at(1), 0.2);
}

TEST(SharedUnit, SliceMemoryBoundsConcurrency) {
  const GpuType gpu = a100();
  const MigProfile& one_g = gpu.profile("1g.5gb");
  const auto a = gpu_model("a", 0.100, 0.2, 3.0);
  Simulation sim;
  SharedUnit unit(sim, "slice", gpu, &one_g);
  Recorder rec;
  unit.submit(rec.job(1, a));
  unit.submit(rec.job(2, a));
  // 3 + 3 GB > 5 GB: the second job waits.
  EXPECT_EQ(unit.running(), 1u);
  EXPECT_EQ(unit.queued(), 1u);
  EXPECT_DOUBLE_EQ(unit.memory_free_gb(), 2.0);
  sim.run();
  // Solo on 1g: 100 ms x RDF 3 = 300 ms each, one after the other.
  expect_at(rec.finished.at(1), 0.300);
  expect_at(rec.finished.at(2), 0.600);
  // A batch larger than the slice can never run.
  const auto big = gpu_model("big", 0.1, 0.2, 6.0);
  EXPECT_THROW(unit.submit(rec.job(3, big)), std::invalid_argument);
}

TEST(SharedUnit, ModelWithoutFbrIsRejected) {
  const GpuType gpu = a100();
  auto m = gpu_model("nofbr", 0.1, 0.1);
  m.gpu->fbr.reset();
  Simulation sim;
  SharedUnit unit(sim, "gpu0", gpu);
  try {
    unit.submit(BatchJob{1, &m, 1, 1.0, {}});
    FAIL() << "expected an exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("nofbr has no FBR"), std::string::npos) << e.what();
  }
}

TEST(SharedUnit, CallbackMaySubmitAgain) {
  const GpuType gpu = a100();
  const auto a = gpu_model("a", 0.010, 0.2);
  Simulation sim;
  SharedUnit unit(sim, "gpu0", gpu);
  int done = 0;
  std::function<void(const JobResult&)> again = [&](const JobResult&) {
    if (++done < 5) unit.submit(BatchJob{static_cast<std::uint64_t>(done), &a, 1, 1.0, again});
  };
  unit.submit(BatchJob{0, &a, 1, 1.0, again});
  sim.run();
  EXPECT_EQ(done, 5);
  EXPECT_EQ(sim.now(), ms(50));
}

}  // namespace
}  // namespace sim::gpu
