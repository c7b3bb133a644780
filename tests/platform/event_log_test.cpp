// The lifecycle event log (output.events): the control plane's events, in order, on a tiny
// cluster where every time is computed by hand.

#include <gtest/gtest.h>

#include "harness.hpp"

namespace sim::platform {
namespace {

using testing::Harness;
namespace ref = policy::reference;

/// One A100 as one 7g.40gb slice (exclusive), test/mps4 (4 s per request on 7g: xi1 4 s x RDF
/// 1.0), batches of one, a 3 s keep-alive, cold starts of 8 s download + 12 s load + 4 s copy.
Harness tiny(metrics::EventLevel level) {
  auto t = testing::host(1);
  t.spec.gpus[0].mig = {"7g.40gb"};
  ServerlessConfig c = testing::config(t);
  c.functions.push_back(testing::function("f", "test/mps4", 1));
  auto p = testing::manual_policies();
  p.keep_alive = std::make_unique<ref::FixedKeepAlive>(seconds(3), 0);
  return Harness(std::move(c), std::move(p), 1, level);
}

void at(Harness& h, Time t, policy::Decisions d) {
  h.sim.schedule_at(t, [&h, d] { h.platform->apply(d); });
}

/// Start at 1 s, ready at 1 + 24 = 25 s; requests at 26 and 26.5 s run back to back (26-30,
/// 30-34 s); idle at 34 s, the 3 s keep-alive ends it at 37 s. A reconfiguration at 27 s is
/// rejected (the instance lives on the GPU); one at 40 s takes the 2 s downtime (A100,
/// Protean §4.4) to 42 s; a start at 43 s goes to the new slice 0, a 4g.20gb.
void drive(Harness& h) {
  policy::Decisions start;
  start.start.push_back({0, 1, std::nullopt, std::nullopt});
  policy::Decisions split;
  split.reconfigure.push_back({0, 0, {"4g.20gb", "3g.20gb"}});
  at(h, seconds(1), start);
  h.arrive(seconds(26), 0);
  h.arrive(seconds(26.5), 0);
  at(h, seconds(27), split);
  at(h, seconds(40), split);
  at(h, seconds(43), start);
  h.sim.run_until(seconds(44));
}

TEST(EventLog, HandComputedSequence) {
  Harness h = tiny(metrics::EventLevel::kAll);
  drive(h);
  const std::vector<std::string> want{
      "1 placed f 1 0 0 0 0 7g.40gb -1 start=cold;max_batch=1",
      "25 ready f 1 0 0 0 0 7g.40gb -1 ",
      "25 idle f 1 0 0 0 0 7g.40gb -1 keep_alive_s=3",
      "26 batch_start f 1 0 0 0 0 7g.40gb 1 ",
      "27 reconfigure_rejected  -1 0 0 0 -1  -1 "
      "geometry=7g.40gb;requested=4g.20gb+3g.20gb;why=instances_on_gpu",
      "30 batch_end f 1 0 0 0 0 7g.40gb 1 exec_s=4",
      "30 batch_start f 1 0 0 0 0 7g.40gb 1 ",
      "34 batch_end f 1 0 0 0 0 7g.40gb 1 exec_s=4",
      "34 idle f 1 0 0 0 0 7g.40gb -1 keep_alive_s=3",
      "37 keep_alive_expired f 1 0 0 0 0 7g.40gb -1 ",
      "37 ended f 1 0 0 0 0 7g.40gb -1 batches=2",
      "40 reconfigure_begun  -1 0 0 0 -1  -1 geometry=4g.20gb+3g.20gb;requested=4g.20gb+3g.20gb",
      "42 reconfigure_ended  -1 0 0 0 -1  -1 geometry=4g.20gb+3g.20gb",
      "43 placed f 2 0 0 0 0 4g.20gb -1 start=cold;max_batch=1",
  };
  EXPECT_EQ(h.events, want);
  ASSERT_EQ(h.records.size(), 2u);
  EXPECT_EQ(h.records[1].finish, seconds(34));
}

/// A VM request the fleet rejects (host template 7 of 1) has no vm_requested row; the one it
/// accepts (template 0, replacing nothing) has one at the decision, 2 s, and its host (the
/// cluster's second, 1) is added after the provisioning delay.
TEST(EventLog, OnlyAcceptedVmRequestsAreLogged) {
  Harness h = tiny(metrics::EventLevel::kLifecycle);
  policy::Decisions d;
  d.request_vms.push_back({7, std::nullopt, std::nullopt});
  d.request_vms.push_back({0, std::nullopt, std::nullopt});
  at(h, seconds(2), d);
  h.sim.run_until(seconds(200));
  std::vector<std::string> fleet;
  for (const auto& e : h.events)
    if (e.find(" vm_requested ") != std::string::npos ||
        e.find(" host_added ") != std::string::npos)
      fleet.push_back(e);
  ASSERT_EQ(fleet.size(), 2u);
  EXPECT_EQ(fleet[0], "2 vm_requested  -1 -1 -1 -1 -1  -1 template=0;replaces=-1");
  EXPECT_EQ(fleet[1].substr(fleet[1].find(' ')), " host_added  -1 1 -1 -1 -1  -1 ");
}

/// kLifecycle leaves out the batch events and nothing else.
TEST(EventLog, LifecycleLevelLeavesOutBatches) {
  Harness all = tiny(metrics::EventLevel::kAll);
  drive(all);
  Harness life = tiny(metrics::EventLevel::kLifecycle);
  drive(life);
  std::vector<std::string> want;
  for (const auto& e : all.events)
    if (e.find(" batch_") == std::string::npos) want.push_back(e);
  EXPECT_EQ(want.size(), all.events.size() - 4);
  EXPECT_EQ(life.events, want);
}

/// Without a level nothing is logged, and the run is the same (the log only observes).
TEST(EventLog, NoneLogsNothingAndChangesNothing) {
  Harness none = tiny(metrics::EventLevel::kNone);
  drive(none);
  Harness all = tiny(metrics::EventLevel::kAll);
  drive(all);
  EXPECT_TRUE(none.events.empty());
  ASSERT_EQ(none.records.size(), all.records.size());
  for (std::size_t i = 0; i < none.records.size(); ++i) {
    EXPECT_EQ(none.records[i].finish, all.records[i].finish);
    EXPECT_EQ(none.records[i].start, all.records[i].start);
  }
  EXPECT_EQ(none.platform->summary_extra(none.sim.now()).dump(),
            all.platform->summary_extra(all.sim.now()).dump());
}

}  // namespace
}  // namespace sim::platform
