// The placement view within one applied decision (issue 22): a Placement policy is promised a
// view that "reflects the instances already placed in this tick" -- its instance list too, not
// only the hosts.

#include <gtest/gtest.h>

#include "harness.hpp"
#include "infless/operator_placement.hpp"

namespace sim::platform {
namespace {

using testing::Harness;

/// One host with one MPS GPU; an operator-profile function of 2 threads and 0.4 of the SMs.
/// One decision asks for three instances without a location. INFless's placement reads the SM
/// shares off the view's instances: the first two go to GPU 0 (0.4 + 0.4 = 0.8 of 1.0), the
/// third needs 0.8 + 0.4 = 1.2 > 1.0 and has no room anywhere, so placement must refuse it
/// (start_unplaced). A placement that does not see the earlier instances offers GPU 0 again and
/// the platform rejects the start as invalid (what the Fig. 16 pre-warming runs recorded).
TEST(PlacementView, SecondStartOfADecisionSeesTheFirstInstancesShare) {
  ServerlessConfig c = default_serverless_config();
  auto t = testing::host(1);
  t.spec.gpus[0].sharing = cluster::GpuSharing::kMps;
  c.hosts.push_back(t);
  auto f = testing::function("o", "infless/resnet-50", 1);
  f.config.cpu_threads = 2;
  f.config.gpu_share = 0.4;
  f.model_bytes = 1e9;
  f.device_memory_gb = 1.0;
  c.functions.push_back(f);
  auto p = testing::manual_policies();
  p.placement = std::make_unique<policy::infless::OperatorPlacement>(true, 1.0);
  Harness h(std::move(c), std::move(p));
  policy::Decisions d;
  d.start.push_back({0, 3, std::nullopt, std::nullopt});
  h.platform->apply(d);
  const auto v = h.platform->view();
  ASSERT_EQ(v.instances.size(), 2u);
  EXPECT_EQ(v.instances[0].location.gpu, 0);
  EXPECT_EQ(v.instances[1].location.gpu, 0);
  const auto extra = h.platform->summary_extra(h.sim.now());
  EXPECT_EQ(extra["decisions"]["rejected"].value("start_unplaced", 0), 1);
  EXPECT_EQ(extra["decisions"]["rejected"].value("start_invalid", 0), 0);
}

}  // namespace
}  // namespace sim::platform
