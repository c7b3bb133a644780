#include "sim/gpu_models/mig_gpu.hpp"

#include <gtest/gtest.h>

#include "test_helpers.hpp"

namespace sim::gpu {
namespace {

using Names = std::vector<std::string>;

TEST(MigGpu, SlicesRunIndependently) {
  const GpuType gpu = testing::a100();
  const auto a = testing::gpu_model("a", 0.100, 0.8);
  Simulation sim;
  MigGpu mig(sim, "g0", gpu, MigGeometry::place(gpu, Names{"4g.20gb", "3g.20gb"}));
  ASSERT_EQ(mig.slice_count(), 2u);
  EXPECT_EQ(mig.slice_profile(0).name, "4g.20gb");
  Time t0, t1;
  mig.slice(0).submit({1, &a, 1, 1.0, [&](const JobResult& r) { t0 = r.finished; }});
  mig.slice(1).submit({2, &a, 1, 1.0, [&](const JobResult& r) { t1 = r.finished; }});
  sim.run();
  // MIG isolates slices: no interference between them; RDF 1.2 (4g) and 1.5 (3g).
  // (finish times are rounded up to the next nanosecond)
  EXPECT_NEAR(static_cast<double>(t0.ns()), 120e6, 2);
  EXPECT_NEAR(static_cast<double>(t1.ns()), 150e6, 2);
}

TEST(MigGpu, ReconfigurationNeedsAffectedSlicesIdleAndTakesDowntime) {
  const GpuType gpu = testing::a100();
  const auto a = testing::gpu_model("a", 1.0, 0.2);
  Simulation sim;
  MigGpu mig(sim, "g0", gpu, MigGeometry::place(gpu, Names{"4g.20gb", "3g.20gb"}));
  mig.slice(1).submit({1, &a, 1, 1.0, {}});  // 3g@4 busy until 1.5 s
  // Replacing the 3g (busy) is refused and changes nothing.
  auto r = mig.reconfigure(Names{"4g.20gb", "2g.10gb", "1g.5gb"});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->rfind("slice 3g.20gb@4 of g0 is busy", 0), 0u) << *r;
  EXPECT_EQ(mig.geometry().to_string(), "4g.20gb@0 3g.20gb@4");
  // Replacing the idle 4g by 2g + 2g keeps the busy 3g@4 running.
  bool done = false;
  ASSERT_FALSE(mig.reconfigure(Names{"3g.20gb", "2g.10gb", "2g.10gb"}, [&] { done = true; }));
  EXPECT_EQ(mig.geometry().to_string(), "2g.10gb@0 2g.10gb@2 3g.20gb@4");
  EXPECT_TRUE(mig.reconfiguring());
  EXPECT_EQ(mig.slice(2).running(), 1u);                                     // the kept 3g
  EXPECT_THROW(mig.slice(0).submit({2, &a, 1, 1.0, {}}), std::logic_error);  // still down
  EXPECT_TRUE(mig.reconfigure(Names{"7g.40gb"}).has_value());                // one at a time
  sim.run_until(seconds(1.999));
  EXPECT_FALSE(done);
  sim.run_until(seconds(2.0));
  // Protean §4.4: ~2 s downtime.
  EXPECT_TRUE(done);
  EXPECT_FALSE(mig.reconfiguring());
  EXPECT_NO_THROW(mig.slice(0).submit({2, &a, 1, 1.0, {}}));
  // Invalid geometries are refused with the reason.
  EXPECT_EQ(mig.reconfigure(Names{"4g.20gb", "4g.20gb"}).value(),
            "4g.20gb may appear at most 1 time(s) on A100-40GB, found 2 or more");
}

TEST(MigGpu, RequireAllIdleOption) {
  const GpuType gpu = testing::a100();
  const auto a = testing::gpu_model("a", 1.0, 0.2);
  Simulation sim;
  MigGpuOptions o;
  o.require_all_idle = true;
  o.reconfigure_downtime_s = 0.5;
  MigGpu mig(sim, "g0", gpu, MigGeometry::place(gpu, Names{"4g.20gb", "3g.20gb"}), o);
  mig.slice(1).submit({1, &a, 1, 1.0, {}});
  EXPECT_TRUE(mig.reconfigure(Names{"3g.20gb", "2g.10gb", "2g.10gb"}).has_value());
  sim.run();  // job ends at 1.5 s
  ASSERT_FALSE(mig.reconfigure(Names{"7g.40gb"}));
  sim.run();
  EXPECT_EQ(sim.now(), seconds(2.0));
}

TEST(MigGpu, ExclusiveSlices) {
  const GpuType gpu = testing::a100();
  const auto a = testing::gpu_model("a", 0.1, 0.9);
  Simulation sim;
  MigGpu mig(sim, "g0", gpu, MigGeometry::place(gpu, Names{"7g.40gb"}),
             MigGpuOptions{SliceMode::kExclusive, {}, {}, false});
  EXPECT_EQ(mig.shared_slice(0), nullptr);
  Time last;
  for (std::uint64_t i = 0; i < 2; ++i) {
    mig.slice(0).submit({i, &a, 1, 1.0, [&](const JobResult& r) { last = r.finished; }});
  }
  sim.run();
  EXPECT_EQ(last, ms(200));  // FIFO, no co-location
}

}  // namespace
}  // namespace sim::gpu
