// FunctionView::dequeued and dequeued_wait_s (issue #20): the TSK autoscaler's metric is
// TorchServe's QueueTime, recorded per dequeued request, so the platform counts a request when a
// batch takes it from the queue, with its wait from arrival to dispatch.

#include <gtest/gtest.h>

#include "harness.hpp"

namespace sim::platform {
namespace {

using testing::Harness;

// One GPU; test/fig42 runs one request in 4 s and its cold start takes 24 s here (as in
// instance_dispatch_test.cpp). The instance started at 0 s is ready before 30 s; three requests
// arrive at 30 s and are taken at 30, 34 and 38 s: waits 0, 4 and 8 s.
TEST(DequeuedRequests, CountedWithTheirQueueWaitWhenTaken) {
  ServerlessConfig c = testing::config(testing::host(1));
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  Harness h(std::move(c), testing::manual_policies());
  h.sim.schedule_at(Time::zero(), [&h] {
    policy::Decisions d;
    d.start.push_back({0, 1, std::nullopt, std::nullopt});
    h.platform->apply(d);
  });
  for (int i = 0; i < 3; ++i)
    h.arrive(seconds(30), 0);
  const auto at = [&h](double t) {
    h.sim.run_until(seconds(t));
    const auto v = h.platform->view();
    const auto f = v.functions.at(0);
    return std::make_pair(f.dequeued, f.dequeued_wait_s);
  };
  EXPECT_EQ(at(29), std::make_pair(std::uint64_t{0}, 0.0));
  // Taken at 30 s: one dequeued, waited 0 s; the other two are still queued.
  EXPECT_EQ(at(31), std::make_pair(std::uint64_t{1}, 0.0));
  auto [n, wait] = at(35);  // the second, taken at 34 s
  EXPECT_EQ(n, 2u);
  EXPECT_NEAR(wait, 4.0, 1e-9);
  std::tie(n, wait) = at(100);  // the third at 38 s; nothing else arrives
  EXPECT_EQ(n, 3u);
  EXPECT_NEAR(wait, 0.0 + 4.0 + 8.0, 1e-9);
  EXPECT_EQ(h.records.size(), 3u);
}

}  // namespace
}  // namespace sim::platform
