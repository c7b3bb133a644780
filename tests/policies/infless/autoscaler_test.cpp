// The INFless auto-scaling engine's rule (iii) around quiet gaps (INFless §3.2, §3.5, §5.2):
// a quiet function's instances are the keep-alive policy's, and after a quiet gap rule (iii)
// waits a whole hold of renewed activity before it releases any. Expectations by hand.

#include <gtest/gtest.h>

#include "infless/infless_autoscaler.hpp"
#include "test_model.hpp"

namespace sim::policy::infless {
namespace {

// One function, SLO 200 ms, two idle instances (batch 1, 2 threads, 10%) whose table entry is
// 20 ms: t_exec = 22 ms with the +10% offset, r_up = floor(1 / 0.022) = 45, r_low =
// ceil(1 / 0.178) = 6 each. Two: R_max 90, R_min 12, band floor 0.8 x 12 + 0.2 x 90 = 27.6, so
// R = 10 is rule (iii). release_set(10): dropping one leaves R_max 45 >= 10 and floor
// 0.8 x 6 + 0.2 x 45 = 13.8 > 10, but the last cannot go (45 - 45 < 10): one release, the later
// instance of equal r_up (id 2).
struct Fixture {
  gpu::ModelProfile profile;
  PlatformView view;
  Fixture() {
    profile.operators = testing::model({{2, 10, 1, 20.0}});
    FunctionView f;
    f.name = "f";
    f.profile = &profile;
    f.arrival_rate = {0.0};
    view.functions = {f};
    for (InstanceId id : {1, 2}) {
      InstanceView i;
      i.id = id;
      i.state = InstanceState::kIdle;
      i.config.max_batch = 1;
      i.config.cpu_threads = 2;
      i.config.gpu_share = 0.1;
      view.instances.push_back(i);
    }
  }
  Decisions tick(InflessAutoscaler& a, int t, double rate) {
    view.now = seconds(t);
    view.functions[0].arrival_rate = {rate};
    return a.decide(view);
  }
};

InflessAutoscalerConfig config(bool hold_after_quiet) {
  InflessAutoscalerConfig c;
  c.hold_after_quiet = hold_after_quiet;
  c.max_batch = 1;
  return c;
}

// Quiet until t = 99 (nothing to release at R = 0), then R = 10 from t = 100: the first tick of
// the activity is t = 100, so rule (iii) waits until t = 130 (a 30 s hold), then releases id 2.
// A gap of 10 s (t = 131..140) is shorter than the hold: at t = 141 the activity goes on and
// rule (iii) releases at once.
TEST(InflessAutoscaler, WaitsAWholeHoldOfActivityAfterAQuietGap) {
  Fixture fx;
  InflessAutoscaler a(config(true));
  for (int t = 0; t < 100; ++t)
    EXPECT_TRUE(fx.tick(a, t, 0.0).stop.empty()) << t;
  for (int t = 100; t < 130; ++t)
    EXPECT_TRUE(fx.tick(a, t, 10.0).stop.empty()) << t;
  const Decisions d = fx.tick(a, 130, 10.0);
  ASSERT_EQ(d.stop.size(), 1u);
  EXPECT_EQ(d.stop[0].id, 2u);
  EXPECT_TRUE(d.start.empty());
  for (int t = 131; t <= 140; ++t)
    (void)fx.tick(a, t, 0.0);
  const Decisions again = fx.tick(a, 141, 10.0);
  ASSERT_EQ(again.stop.size(), 1u);
  EXPECT_EQ(again.stop[0].id, 2u);
}

// A gap of a whole hold (t = 131..160, last R > 0 at 130, next at 161: 31 s) starts a new
// activity: no release before t = 191.
TEST(InflessAutoscaler, AQuietHoldStartsANewActivity) {
  Fixture fx;
  InflessAutoscaler a(config(true));
  for (int t = 100; t <= 130; ++t)
    (void)fx.tick(a, t, 10.0);
  for (int t = 131; t <= 160; ++t)
    EXPECT_TRUE(fx.tick(a, t, 0.0).stop.empty()) << t;
  for (int t = 161; t < 191; ++t)
    EXPECT_TRUE(fx.tick(a, t, 10.0).stop.empty()) << t;
  EXPECT_EQ(fx.tick(a, 191, 10.0).stop.size(), 1u);
}

// Without hold_after_quiet (the earlier behaviour) the first tick of the activity releases.
TEST(InflessAutoscaler, WithoutTheHoldReleasesAtOnce) {
  Fixture fx;
  InflessAutoscaler a(config(false));
  for (int t = 0; t < 100; ++t)
    (void)fx.tick(a, t, 0.0);
  const Decisions d = fx.tick(a, 100, 10.0);
  ASSERT_EQ(d.stop.size(), 1u);
  EXPECT_EQ(d.stop[0].id, 2u);
}

}  // namespace
}  // namespace sim::policy::infless
