// ServerlessPlatform: the request path, the cold-start pipeline, keep-alive, pre-warming, spot
// revocation, and the invariants every run must keep.

#include <gtest/gtest.h>

#include <map>

#include "harness.hpp"
#include "sim/network/topology_config.hpp"

namespace sim::platform {
namespace {

using testing::Harness;
namespace ref = policy::reference;

void expect_decomposition(const metrics::RequestRecord& r) {
  EXPECT_GE(r.queue_wait, Time::zero()) << r.id;
  EXPECT_GE(r.batching_wait, Time::zero()) << r.id;
  EXPECT_GE(r.cold_start_wait, Time::zero()) << r.id;
  EXPECT_GE(r.execution, Time::zero()) << r.id;
  EXPECT_LE(r.arrival, r.dispatch) << r.id;
  EXPECT_LE(r.dispatch, r.start) << r.id;
  EXPECT_EQ(r.queue_wait + r.batching_wait + r.cold_start_wait + r.execution, r.finish - r.arrival)
      << r.id;
}

/// Flashpoint thesis Fig. 4.2 without partitioning: 8 requests at time 0, 2 GPUs, 24 s cold
/// start, 4 s execution, one request at a time per GPU. Each GPU finishes its requests at
/// 24 + 4, + 8, + 12, + 16 s; average completion = 24 + (4 + 8 + 12 + 16) / 4 = 34 s.
TEST(ServerlessPlatform, FlashpointFig42AverageCompletionIs34s) {
  ServerlessConfig c = default_serverless_config();
  c.hosts.push_back(testing::host(2));
  c.store_bps = 1e9;  // 1 GB download: 8 s
  c.pcie_bps = 2e9;   // 1 GB copy: 4 s; load: 12 s from the profile
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  auto p = testing::reference_policies();
  p.autoscaler = std::make_unique<ref::FixedPoolAutoscaler>(2);
  Harness h(std::move(c), std::move(p));
  for (int i = 0; i < 8; ++i)
    h.arrive(Time::zero(), 0);
  h.sim.run_until(seconds(100));

  ASSERT_EQ(h.records.size(), 8u);
  Time total;
  std::vector<Time> finishes;
  for (const auto& r : h.records) {
    expect_decomposition(r);
    total += r.latency();
    finishes.push_back(r.finish);
    EXPECT_EQ(r.cold_start_wait, seconds(24));
    EXPECT_EQ(r.execution, seconds(4));
    EXPECT_EQ(r.batching_wait, Time::zero());
    EXPECT_EQ(r.batch_size, 1u);
  }
  EXPECT_EQ(total / 8, seconds(34));
  std::sort(finishes.begin(), finishes.end());
  EXPECT_EQ(finishes, (std::vector<Time>{seconds(28), seconds(28), seconds(32), seconds(32),
                                         seconds(36), seconds(36), seconds(40), seconds(40)}));
  // Both cold starts: 8 s download (shared: same model, same host), 12 s load, 4 s copy.
  ASSERT_EQ(h.platform->cold_starts().size(), 2u);
  for (const auto& cs : h.platform->cold_starts()) {
    EXPECT_EQ(cs.download, seconds(8));
    EXPECT_EQ(cs.load, seconds(12));
    EXPECT_EQ(cs.copy, seconds(4));
    EXPECT_EQ(cs.source, policy::SourceKind::kStore);
  }
  const auto extra = h.platform->summary_extra(h.sim.now());
  EXPECT_EQ(extra["cold_starts"]["count"], 2);
  EXPECT_DOUBLE_EQ(extra["cold_starts"]["by_stage"]["load_s"].get<double>(), 12.0);
  // No runtime stage unless configured (ServerlessConfig::runtime_start defaults to 0).
  EXPECT_DOUBLE_EQ(extra["cold_starts"]["by_stage"]["runtime_s"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(extra["cold_starts"]["total_s"].get<double>(), 24.0);
}

/// The same cold starts with a 5 s runtime stage (container and serving-runtime start) between
/// download and load: each takes 8 + 5 + 12 + 4 = 29 s, the requests wait 29 s instead of 24 s,
/// and every finish moves by exactly 5 s.
TEST(ServerlessPlatform, RuntimeStageAddsExactlyItsDurationToEveryColdStart) {
  ServerlessConfig c = default_serverless_config();
  c.hosts.push_back(testing::host(2));
  c.store_bps = 1e9;
  c.pcie_bps = 2e9;
  c.runtime_start = seconds(5);
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  auto p = testing::reference_policies();
  p.autoscaler = std::make_unique<ref::FixedPoolAutoscaler>(2);
  Harness h(std::move(c), std::move(p));
  for (int i = 0; i < 8; ++i)
    h.arrive(Time::zero(), 0);
  h.sim.run_until(seconds(100));

  ASSERT_EQ(h.records.size(), 8u);
  std::vector<Time> finishes;
  for (const auto& r : h.records) {
    expect_decomposition(r);
    EXPECT_EQ(r.cold_start_wait, seconds(29));
    finishes.push_back(r.finish);
  }
  std::sort(finishes.begin(), finishes.end());
  EXPECT_EQ(finishes, (std::vector<Time>{seconds(33), seconds(33), seconds(37), seconds(37),
                                         seconds(41), seconds(41), seconds(45), seconds(45)}));
  ASSERT_EQ(h.platform->cold_starts().size(), 2u);
  for (const auto& cs : h.platform->cold_starts()) {
    EXPECT_EQ(cs.download, seconds(8));
    EXPECT_EQ(cs.runtime, seconds(5));
    EXPECT_EQ(cs.load, seconds(12));
    EXPECT_EQ(cs.copy, seconds(4));
    EXPECT_TRUE(cs.completed);
  }
  const auto extra = h.platform->summary_extra(h.sim.now());
  EXPECT_DOUBLE_EQ(extra["cold_starts"]["by_stage"]["runtime_s"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(extra["cold_starts"]["total_s"].get<double>(), 29.0);
}

/// A function whose batch needs more memory than any GPU of the cluster has would keep its
/// requests queued for ever; the platform refuses it before time zero, naming the function, the
/// model and both sizes (the A100-40GB test host has 40 GB).
TEST(ServerlessPlatform, RejectsAFunctionNoGpuCanHold) {
  ServerlessConfig c = testing::config(testing::host(1));
  c.functions.push_back(testing::function("big", "test/fig42", 1));
  c.functions.back().device_memory_gb = 48.0;
  try {
    Harness h(std::move(c), testing::reference_policies());
    FAIL() << "a 48 GB function on a 40 GB GPU was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "serverless platform: function \"big\" needs 48 GB of GPU memory per batch "
                 "(model test/fig42) but the largest GPU of the cluster has 40 GB");
  }
  // The same function at 40 GB fits exactly.
  ServerlessConfig fits = testing::config(testing::host(1));
  fits.functions.push_back(testing::function("big", "test/fig42", 1));
  fits.functions.back().device_memory_gb = 40.0;
  EXPECT_NO_THROW(Harness(std::move(fits), testing::reference_policies()));
}

nlohmann::json default_network() {
  config::Diagnostics diag("test");
  auto j = net::topology_schema()->resolve(nlohmann::json::object(), "", diag);
  diag.throw_if_errors();
  return j;
}

/// Cold-start stages on an idle Flashpoint datacenter network (data/topologies): CodeBERT,
/// 499 MB (Flashpoint Table 3.1), from the cloud store whose egress (2,203 Mbit/s) is the
/// bottleneck (host flows are capped at 7,506 Mbit/s). Path cloud -> border (0 latency) ->
/// spine -> leaf -> host: 3 links of 1 us. Load 0.6184 s from the profile; copy over
/// 512 Gbit/s PCIe.
TEST(ServerlessPlatform, ColdStartStagesOnAnIdleNetworkByHand) {
  const double bytes = 499e6;
  for (int hosts : {1, 2}) {
    ServerlessConfig c = default_serverless_config();
    c.hosts.push_back(testing::host(1, "A100-40GB", hosts));
    c.network = default_network();
    c.functions.push_back(testing::function("cb", "flashpoint/codebert", 1));
    auto p = testing::reference_policies();
    p.autoscaler = std::make_unique<ref::FixedPoolAutoscaler>(hosts);
    Harness h(std::move(c), std::move(p));
    h.sim.run_until(seconds(10));
    ASSERT_EQ(h.platform->cold_starts().size(), static_cast<std::size_t>(hosts));
    // With two hosts, both downloads share the store's egress: 1,101.5 Mbit/s each.
    const double rate = 2203e6 / hosts;
    const Time download = ceil_seconds(bytes * 8 / rate) + us(3);
    for (const auto& cs : h.platform->cold_starts()) {
      EXPECT_NEAR(static_cast<double>(cs.download.ns()), static_cast<double>(download.ns()), 2.0)
          << hosts;
      EXPECT_EQ(cs.load, ceil_seconds(0.6184));
      EXPECT_EQ(cs.copy, ceil_seconds(bytes * 8 / 512e9));  // 7.796875 ms
      EXPECT_TRUE(cs.completed);
    }
    EXPECT_EQ(h.platform->live_instances(), static_cast<std::size_t>(hosts));
  }
}

/// Keep-alive: a request at 0.5 s; the reactive autoscaler starts an instance at the 1 s tick;
/// it is ready at 1 + 24 = 25 s, serves until 29 s, and the 30 s keep-alive stops it at 59 s.
/// A request at 100 s cold-starts again at the 100 s tick (which runs after the arrival: the
/// arrival event was scheduled first), this time from the host's cached copy (local-first
/// sourcing): no download, 12 s load, 4 s copy -> ready 116 s, done 120 s.
TEST(ServerlessPlatform, KeepAliveExpiryThenColdStartFromHostMemory) {
  ServerlessConfig c = testing::config(testing::host(1));
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  auto p = testing::reference_policies();
  p.autoscaler =
      std::make_unique<ref::ReactiveRateAutoscaler>(ref::ReactiveRateAutoscaler::Config{});
  p.keep_alive = std::make_unique<ref::FixedKeepAlive>(seconds(30), 0);
  p.sourcing = std::make_unique<ref::LocalFirstSourcing>();
  Harness h(std::move(c), std::move(p));
  h.arrive(ms(500), 0);
  h.arrive(seconds(100), 0);

  h.sim.run_until(seconds(59) - ns(1));
  EXPECT_EQ(h.platform->live_instances(), 1u);
  ASSERT_EQ(h.records.size(), 1u);
  const auto& r = h.records[0];
  expect_decomposition(r);
  EXPECT_EQ(r.dispatch, seconds(25));
  EXPECT_EQ(r.finish, seconds(29));
  EXPECT_EQ(r.cold_start_wait, seconds(24.5));  // everything before the instance was ready
  EXPECT_EQ(r.queue_wait, Time::zero());
  h.sim.run_until(seconds(59));
  EXPECT_EQ(h.platform->live_instances(), 0u);

  h.sim.run_until(seconds(130));
  ASSERT_EQ(h.records.size(), 2u);
  EXPECT_EQ(h.records[1].finish, seconds(120));
  EXPECT_EQ(h.records[1].cold_start_wait, seconds(16));
  ASSERT_EQ(h.platform->cold_starts().size(), 2u);
  const auto& second = h.platform->cold_starts()[1];
  EXPECT_EQ(second.source, policy::SourceKind::kLocalMemory);
  EXPECT_EQ(second.download, Time::zero());
  EXPECT_EQ(second.load, seconds(12));
}

/// What a keep-alive policy sees of the function each time one of its instances becomes idle.
struct IdleSeen {
  Time at;
  int cold_starting, idle, busy;
  std::vector<double> rate;
  std::size_t queue_length;
};

/// Keeps every instance and records the function view of each idle_timeout call; at every
/// tick, counts the ticks whose function counts differ from a scan of the view's instances.
class RecordingKeepAlive final : public policy::KeepAlive {
 public:
  RecordingKeepAlive(std::vector<IdleSeen>& seen, int& ticks, int& mismatches)
      : seen_(seen), ticks_(ticks), mismatches_(mismatches) {}
  Time idle_timeout(const policy::InstanceView& i, const policy::FunctionView& f) override {
    seen_.push_back(
        {i.state_since, f.cold_starting, f.idle, f.busy, f.arrival_rate, f.queue_length});
    return Time::max();
  }
  policy::Decisions prewarm(const policy::PlatformView& view) override {
    ++ticks_;
    for (const auto& f : view.functions) {
      int cold = 0, idle = 0, busy = 0;
      for (const auto& i : view.instances) {
        if (i.function != f.id) continue;
        if (i.state == policy::InstanceState::kColdStarting) ++cold;
        if (i.state == policy::InstanceState::kIdle) ++idle;
        if (i.state == policy::InstanceState::kBusy || i.state == policy::InstanceState::kDraining)
          ++busy;
      }
      if (cold != f.cold_starting || idle != f.idle || busy != f.busy) ++mismatches_;
    }
    return {};
  }

 private:
  std::vector<IdleSeen>& seen_;
  int& ticks_;
  int& mismatches_;
};

/// The keep-alive gets the whole function view, counts and rates as of the moment. Two
/// instances (one per GPU) cold-start 24 s each from time 0; requests at 30, 31 and 32 s run
/// 4 s each (batch 1). Calls: 24 s, the first ready (1 cold-starting, 1 idle), then the second
/// (2 idle); 34 s: the first instance takes the queued 32 s request at once, so no call; 35 s:
/// the second finishes (1 idle, 1 busy), 3 arrivals in (25, 35]: 0.3/s over 10 s, 0.05/s
/// over 60 s; 38 s: the first finishes (2 idle), 3 arrivals in (28, 38].
TEST(ServerlessPlatform, KeepAliveSeesInstanceCountsAndRates) {
  ServerlessConfig c = testing::config(testing::host(2));
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  c.rate_windows = {seconds(10), seconds(60)};
  auto p = testing::reference_policies();
  p.autoscaler = std::make_unique<ref::FixedPoolAutoscaler>(2);
  std::vector<IdleSeen> seen;
  int ticks = 0, mismatches = 0;
  p.keep_alive = std::make_unique<RecordingKeepAlive>(seen, ticks, mismatches);
  Harness h(std::move(c), std::move(p));
  h.arrive(seconds(30), 0);
  h.arrive(seconds(31), 0);
  h.arrive(seconds(32), 0);
  h.sim.run_until(seconds(60));
  ASSERT_EQ(h.records.size(), 3u);
  ASSERT_EQ(seen.size(), 4u);
  const auto expect = [&](std::size_t k, Time at, int cold, int idle, int busy, double r10,
                          double r60) {
    SCOPED_TRACE(k);
    EXPECT_EQ(seen[k].at, at);
    EXPECT_EQ(seen[k].cold_starting, cold);
    EXPECT_EQ(seen[k].idle, idle);
    EXPECT_EQ(seen[k].busy, busy);
    ASSERT_EQ(seen[k].rate.size(), 2u);
    EXPECT_DOUBLE_EQ(seen[k].rate[0], r10);
    EXPECT_DOUBLE_EQ(seen[k].rate[1], r60);
    EXPECT_EQ(seen[k].queue_length, 0u);
  };
  expect(0, seconds(24), 1, 1, 0, 0.0, 0.0);
  expect(1, seconds(24), 0, 2, 0, 0.0, 0.0);
  expect(2, seconds(35), 0, 1, 1, 0.3, 0.05);
  expect(3, seconds(38), 0, 2, 0, 0.3, 0.05);
  EXPECT_EQ(ticks, 61);  // 0, 1, ..., 60 s
  EXPECT_EQ(mismatches, 0);
}

/// A hand-built configuration without rate windows is rejected (no hidden 10 s window), with
/// the JSON path a scenario would set.
TEST(ServerlessPlatform, RejectsAConfigWithoutRateWindows) {
  ServerlessConfig c = testing::config(testing::host(1));
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  c.rate_windows.clear();
  try {
    Harness h(std::move(c), testing::reference_policies());
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("/platform/rate_windows"), std::string::npos) << e.what();
  }
}

/// ... and so is one with a zero-length window (its rate would divide by zero).
TEST(ServerlessPlatform, RejectsAZeroLengthRateWindow) {
  ServerlessConfig c = testing::config(testing::host(1));
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  c.rate_windows = {seconds(10), Time::zero()};
  try {
    Harness h(std::move(c), testing::reference_policies());
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("longer than zero"), std::string::npos) << e.what();
  }
}

/// Pre-warming: min_warm 1 starts an instance at the first tick (time 0) with no request; it
/// is ready at 24 s, so a request at 60 s runs at once, with no cold-start wait.
TEST(ServerlessPlatform, PrewarmedInstanceServesWithoutColdStart) {
  ServerlessConfig c = testing::config(testing::host(1));
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  auto p = testing::manual_policies();
  p.keep_alive = std::make_unique<ref::FixedKeepAlive>(seconds(600), 1);
  Harness h(std::move(c), std::move(p));
  h.arrive(seconds(60), 0);
  h.sim.run_until(seconds(100));
  ASSERT_EQ(h.records.size(), 1u);
  const auto& r = h.records[0];
  expect_decomposition(r);
  EXPECT_EQ(r.start, seconds(60));
  EXPECT_EQ(r.finish, seconds(64));
  EXPECT_EQ(r.cold_start_wait, Time::zero());
  EXPECT_EQ(r.queue_wait, Time::zero());
  EXPECT_EQ(h.platform->cold_starts().size(), 1u);
  EXPECT_EQ(h.platform->cold_starts()[0].started, Time::zero());
}

/// The batcher holds a lone request until its application's timeout; the wait is batching
/// wait, not queue wait.
TEST(ServerlessPlatform, BatchingTimeoutIsBatchingWait) {
  ServerlessConfig c = testing::config(testing::host(1));
  auto f = testing::function("f", "test/fig42", 4);
  f.batch_timeout = seconds(2);
  c.functions.push_back(f);
  Harness h(std::move(c), testing::reference_policies());
  h.arrive(seconds(30), 0);  // the instance is ready at 24 s
  h.arrive(seconds(31), 0);
  h.sim.run_until(seconds(60));
  ASSERT_EQ(h.records.size(), 2u);
  for (const auto& r : h.records) {
    expect_decomposition(r);
    EXPECT_EQ(r.dispatch, seconds(32));  // oldest deadline: 30 + 2 s
    EXPECT_EQ(r.batch_size, 2u);
    EXPECT_EQ(r.execution, seconds(8));  // L(2) = 4 s * 2
    EXPECT_EQ(r.queue_wait, Time::zero());
  }
  EXPECT_EQ(h.records[0].batching_wait, seconds(2));
  EXPECT_EQ(h.records[1].batching_wait, seconds(1));
}

/// Spot revocation with notice: host 0 is revoked at 60 s with a 30 s notice. The batch
/// running at the notice (29.2 s to 33.2 s) finishes; the fixed pool restarts the instance on
/// host 1; replace-revoked requests a replacement VM that arrives 20 s after the notice. No
/// request is lost.
TEST(ServerlessPlatform, SpotRevocationDrainsAndLosesNothing) {
  ServerlessConfig c = default_serverless_config();
  auto t = testing::host(1, "A100-40GB", 2);
  t.spec.market = cluster::Market::kSpot;
  t.spec.price_per_hour = 1.0;
  c.hosts.push_back(t);
  c.store_bps = 1e9;
  c.pcie_bps = 2e9;
  c.provisioning_delay = seconds(20);
  c.spot.notice_min = c.spot.notice_max = seconds(30);
  c.spot.scheduled.push_back({0, seconds(60)});
  auto f = testing::function("f", "test/fig42", 1);
  f.model_bytes = 1e8;  // 0.8 s download, 0.4 s copy: ready at 0 + 0.8 + 12 + 0.4 = 13.2 s
  c.functions.push_back(f);
  auto p = testing::reference_policies();
  p.procurement = std::make_unique<ref::ReplaceRevoked>(std::nullopt);
  Harness h(std::move(c), std::move(p));
  for (int i = 0; i <= 40; ++i)
    h.arrive(seconds(5.0 * i), 0);
  h.sim.run_until(seconds(300));

  EXPECT_EQ(h.arrived, 41u);
  EXPECT_EQ(h.records.size(), 41u);
  EXPECT_EQ(h.platform->requests_in_system(), 0u);
  bool drained = false;
  for (const auto& r : h.records) {
    expect_decomposition(r);
    EXPECT_NE(r.outcome, metrics::Outcome::kDropped);
    if (r.device == 0 && r.start < seconds(30) && r.finish > seconds(30)) {
      drained = true;
      EXPECT_EQ(r.finish, seconds(33.2));
    }
  }
  EXPECT_TRUE(drained);
  const auto extra = h.platform->summary_extra(h.sim.now());
  EXPECT_EQ(extra["spot"]["notices"], 1);
  EXPECT_EQ(extra["spot"]["revocations"], 1);
  EXPECT_EQ(extra["spot"]["batches_running_at_revocation"], 0);
  EXPECT_EQ(extra["spot"]["vms_provisioned"], 1);
  EXPECT_EQ(extra["hosts"], 3);
  // Host 0 costs 60 s, host 1 300 s, the replacement (up at 50 s) 250 s, at $1 per hour.
  EXPECT_NEAR(extra["cost_usd"]["spot"].get<double>(), (60.0 + 300.0 + 250.0) / 3600.0, 1e-12);
}

/// CPU functions: an instance on host cores runs HarmonyBatch eq. (1); its cold start has a
/// download (store at 1 Gbit/s: 400 MB -> 3.2 s) and a load (400 MB at 8 Gbit/s -> 0.4 s), and
/// no copy to a GPU.
TEST(ServerlessPlatform, CpuFunctionRunsOnHostCores) {
  ServerlessConfig c = default_serverless_config();
  c.hosts.push_back(testing::host(0));
  c.store_bps = 1e9;
  auto f = testing::function("c", "harmonybatch/bert", 1);
  f.gpu = false;
  f.config.cpu_cores = 2.0;
  f.model_bytes = 4e8;
  c.functions.push_back(f);
  Harness h(std::move(c), testing::reference_policies());
  h.arrive(seconds(10), 0);
  h.sim.run_until(seconds(30));
  ASSERT_EQ(h.records.size(), 1u);
  const auto& r = h.records[0];
  expect_decomposition(r);
  const auto& model = testing::catalog().model("harmonybatch/bert");
  EXPECT_EQ(r.execution, ceil_seconds(model.cpu->latency_s(1, 2.0, gpu::LatencyStat::kAverage)));
  EXPECT_EQ(r.device, -1);
  ASSERT_EQ(h.platform->cold_starts().size(), 1u);
  EXPECT_EQ(h.platform->cold_starts()[0].download, seconds(3.2));
  EXPECT_EQ(h.platform->cold_starts()[0].load, seconds(0.4));
  EXPECT_EQ(h.platform->cold_starts()[0].copy, Time::zero());
  EXPECT_EQ(h.platform->view().hosts[0].cores_free, 30.0);  // 32 - 2
}

/// Non-uniform scaling (INFless): two instances of one function with different batch sizes.
/// Six requests wait when both become ready; the batcher offers the largest batch any idle
/// instance takes (4), the dispatcher picks instance 1 (both idle since the same time: lowest
/// id), whose batch size 2 truncates the batch; instance 2 then takes the other 4.
TEST(ServerlessPlatform, InstancesOfOneFunctionMayDifferInConfiguration) {
  ServerlessConfig c = testing::config(testing::host(2));
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  auto p = testing::manual_policies();
  Harness h(std::move(c), std::move(p));
  policy::Decisions d;
  d.start.push_back({0, 1, policy::InstanceConfig{2, 0.0, 1.0}, std::nullopt});
  d.start.push_back({0, 1, policy::InstanceConfig{4, 0.0, 1.0}, std::nullopt});
  h.platform->apply(d);
  for (int i = 0; i < 6; ++i)
    h.arrive(seconds(1), 0);
  h.sim.run_until(seconds(100));
  ASSERT_EQ(h.records.size(), 6u);
  std::map<std::int32_t, std::uint32_t> batch_by_device;
  for (const auto& r : h.records) {
    expect_decomposition(r);
    batch_by_device[r.device] = r.batch_size;
  }
  EXPECT_EQ(batch_by_device, (std::map<std::int32_t, std::uint32_t>{{0, 2}, {1, 4}}));
}

/// An autoscaler that asks for one instance once and says its decision took 5 s.
class SlowAutoscaler final : public policy::Autoscaler {
 public:
  policy::Decisions decide(const policy::PlatformView& view) override {
    policy::Decisions d;
    if (done_) return d;
    done_ = true;
    d.start.push_back({view.functions.at(0).id, 1, std::nullopt, std::nullopt});
    d.compute_time = seconds(5);
    return d;
  }

 private:
  bool done_ = false;
};

TEST(ServerlessPlatform, DecisionTimeIsChargedWhenAsked) {
  for (const bool charge : {false, true}) {
    ServerlessConfig c = default_serverless_config();
    c.hosts.push_back(testing::host(1));
    c.functions.push_back(testing::function("f", "test/fig42", 1));
    c.charge_decision_time = charge;
    auto p = testing::reference_policies();
    p.autoscaler = std::make_unique<SlowAutoscaler>();
    Harness h(std::move(c), std::move(p));
    h.sim.run_until(seconds(10));
    ASSERT_EQ(h.platform->cold_starts().size(), 1u);
    EXPECT_EQ(h.platform->cold_starts()[0].started, charge ? seconds(5) : Time::zero());
  }
}

/// MIG: a GPU is reconfigured only while it holds no instance; the new slices take
/// instances once the downtime (A100: Protean §4.4, from gpus.json) has passed.
TEST(ServerlessPlatform, MigReconfigurationNeedsAnEmptyGpu) {
  ServerlessConfig c = default_serverless_config();
  auto t = testing::host(1);
  t.spec.gpus[0].mig = {"7g.40gb"};
  c.hosts.push_back(t);
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  auto p = testing::manual_policies();
  Harness h(std::move(c), std::move(p));
  h.sim.run_until(seconds(1));
  policy::Decisions start;
  start.start.push_back({0, 1, std::nullopt, std::nullopt});
  h.platform->apply(start);
  EXPECT_EQ(h.platform->view().instances.at(0).location, (policy::Location{0, 0, 0}));

  policy::Decisions split;
  split.reconfigure.push_back({0, 0, {"4g.20gb", "3g.20gb"}});
  h.platform->apply(split);  // rejected: an instance lives on the GPU
  EXPECT_EQ(h.platform->view().hosts[0].gpus[0].slices.size(), 1u);
  policy::Decisions stop;
  stop.stop.push_back({h.platform->view().instances.at(0).id});
  h.platform->apply(stop);
  h.platform->apply(split);
  const auto v = h.platform->view();
  ASSERT_EQ(v.hosts[0].gpus[0].slices.size(), 2u);
  EXPECT_TRUE(v.hosts[0].gpus[0].reconfiguring);
  const auto extra = h.platform->summary_extra(h.sim.now());
  EXPECT_EQ(extra["decisions"]["applied"]["reconfigure"], 1);
  EXPECT_EQ(extra["decisions"]["rejected"]["reconfigure"], 1);
  h.sim.run_until(seconds(10));  // the downtime has passed
  EXPECT_FALSE(h.platform->view().hosts[0].gpus[0].reconfiguring);
  policy::Decisions two;
  two.start.push_back({0, 2, std::nullopt, std::nullopt});
  h.platform->apply(two);
  const auto after = h.platform->view();
  ASSERT_EQ(after.instances.size(), 2u);
  EXPECT_EQ(after.instances[0].location.slice, 0);
  EXPECT_EQ(after.instances[1].location.slice, 1);
}

struct RunOutput {
  std::vector<metrics::RequestRecord> records;
  nlohmann::json extra;
  std::uint64_t arrived = 0;
  std::uint64_t in_system = 0;
};

/// Two functions with batching, a reactive autoscaler (scale-up only), a short keep-alive
/// (so that instances come and go), local-first sourcing, on 2 hosts x 2 GPUs.
RunOutput mixed_run(bool network, std::uint64_t seed) {
  ServerlessConfig c = default_serverless_config();
  c.hosts.push_back(testing::host(2, "A100-40GB", 2));
  if (network) c.network = default_network();
  // 100 MB models: cold starts of well under a second, so instances come and go often.
  auto a = testing::function("a", "protean/resnet-50", 8);
  a.batch_timeout = ms(5);
  a.model_bytes = 1e8;
  auto b = testing::function("b", "protean/resnet-18", 4);
  b.batch_timeout = ms(20);
  b.model_bytes = 1e8;
  c.functions = {a, b};
  c.rate_windows = {seconds(2)};
  auto p = testing::reference_policies();
  p.autoscaler = std::make_unique<ref::ReactiveRateAutoscaler>(
      ref::ReactiveRateAutoscaler::Config{0.6, 0, 0, 4, false});
  p.keep_alive = std::make_unique<ref::FixedKeepAlive>(seconds(3), 0);
  p.sourcing = std::make_unique<ref::LocalFirstSourcing>();
  Harness h(std::move(c), std::move(p), seed);
  RandomStream rng(seed);
  for (double t = 0; t < 20.0;) {
    t += rng.exponential(150.0);
    h.arrive(seconds(t), 0, ms(200));
  }
  for (double t = 0; t < 20.0;) {
    // Bursts, and a lull that lets the keep-alive stop b's instances.
    t += rng.exponential(t < 5 || t > 12 ? 60.0 : 0.1);
    h.arrive(seconds(t), 1, Time::zero(), traces::RequestClass::kBestEffort);
  }
  h.sim.run_until(seconds(21));
  RunOutput out;
  out.arrived = h.arrived;
  out.in_system = h.platform->requests_in_system();
  h.sim.run_until(seconds(40));
  out.records = h.records;
  out.extra = h.platform->summary_extra(h.sim.now());
  EXPECT_EQ(h.records.size() + h.platform->requests_in_system(), h.arrived);
  EXPECT_EQ(h.platform->requests_in_system(), 0u);
  return out;
}

TEST(ServerlessPlatform, DecompositionAndConservationUnderLoad) {
  for (const bool network : {false, true}) {
    const auto out = mixed_run(network, 11);
    EXPECT_GT(out.arrived, 3000u);
    EXPECT_EQ(out.records.size(), out.arrived);
    std::uint64_t cold_affected = 0;
    for (const auto& r : out.records) {
      expect_decomposition(r);
      if (r.cold_start_wait > Time::zero()) ++cold_affected;
    }
    EXPECT_GT(cold_affected, 0u);
    EXPECT_GE(out.extra["cold_starts"]["count"].get<int>(), 3) << out.extra.dump();
    EXPECT_GT(out.extra["decisions"]["applied"].value("keep_alive_expiry", 0), 0)
        << out.extra.dump();
  }
}

TEST(ServerlessPlatform, SameSeedSameRun) {
  const auto a = mixed_run(true, 5);
  const auto b = mixed_run(true, 5);
  EXPECT_EQ(a.records, b.records);
  EXPECT_EQ(a.extra.dump(), b.extra.dump());
  const auto c = mixed_run(true, 6);
  EXPECT_NE(a.records.size(), c.records.size());
}

TEST(ServerlessPlatform, RejectsWorkloadFunctionWithoutSpec) {
  ServerlessConfig c = default_serverless_config();
  c.hosts.push_back(testing::host(1));
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  Simulation sim(1);
  traces::WorkloadLabels labels;
  labels.function_id("f");
  labels.function_id("unknown");
  PlatformContext ctx;
  ctx.sim = &sim;
  ctx.labels = &labels;
  ctx.record = [](const metrics::RequestRecord&) {};
  try {
    ServerlessPlatform p(c, testing::catalog(), ctx, testing::reference_policies());
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("\"unknown\""), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sim::platform
