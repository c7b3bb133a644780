// ServerlessPlatform extensions of issue 5: per-application-group queues, rate-split dispatch
// through the platform, time-sliced and operator-profile instances, chained multicast cold
// starts, memory utilisation and fragmentation, and the offline planner call.

#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "harness.hpp"
#include "reference/planners.hpp"
#include "sim/metrics/time_series_recorder.hpp"
#include "sim/network/topology_config.hpp"
#include "sim/platform/fragmentation.hpp"

namespace sim::platform {
namespace {

using testing::Harness;
namespace ref = policy::reference;

/// Functions f0 and f1 (same model, test/fig42: 24 s cold start, 4 s per request) share
/// queue group "g". Only f0 has an instance (started at 0, ready at 24 s: 8 s download at
/// 1 Gbit/s + 12 s load + 4 s copy at 2 Gbit/s). Two f1 requests at 1 s wait in the shared
/// queue and are served by f0's instance one at a time: 24 -> 28 s and 28 -> 32 s.
TEST(QueueGroups, FunctionsOfAGroupShareOneQueueAndItsInstances) {
  ServerlessConfig c = testing::config(testing::host(1));
  c.functions.push_back(testing::function("f0", "test/fig42", 1));
  c.functions.push_back(testing::function("f1", "test/fig42", 1));
  c.functions[0].queue_group = "g";
  c.functions[1].queue_group = "g";
  auto p = testing::manual_policies();
  Harness h(std::move(c), std::move(p));
  policy::Decisions d;
  d.start.push_back({0, 1, std::nullopt, std::nullopt});
  h.platform->apply(d);
  h.arrive(seconds(1), 1);
  h.arrive(seconds(1), 1);
  h.sim.run_until(seconds(10));
  const auto v = h.platform->view();
  EXPECT_EQ(v.functions[0].queue_length, 0u);
  EXPECT_EQ(v.functions[1].queue_length, 2u);
  EXPECT_EQ(v.functions[1].oldest_wait, seconds(9));
  EXPECT_EQ(h.platform->queued(), 2u);
  h.sim.run_until(seconds(100));
  ASSERT_EQ(h.records.size(), 2u);
  EXPECT_EQ(h.records[0].function, 1u);
  EXPECT_EQ(h.records[0].finish, seconds(28));
  EXPECT_EQ(h.records[1].finish, seconds(32));
  EXPECT_EQ(h.records[0].cold_start_wait, seconds(23));
  EXPECT_EQ(h.records[1].queue_wait, seconds(4));
}

/// Without a group, f1's requests wait for an f1 instance that never comes.
TEST(QueueGroups, WithoutAGroupFunctionsDoNotShare) {
  ServerlessConfig c = default_serverless_config();
  c.hosts.push_back(testing::host(1));
  c.functions.push_back(testing::function("f0", "test/fig42", 1));
  c.functions.push_back(testing::function("f1", "test/fig42", 1));
  auto p = testing::manual_policies();
  Harness h(std::move(c), std::move(p));
  policy::Decisions d;
  d.start.push_back({0, 1, std::nullopt, std::nullopt});
  h.platform->apply(d);
  h.arrive(seconds(1), 1);
  h.sim.run_until(seconds(100));
  EXPECT_TRUE(h.records.empty());
  EXPECT_EQ(h.platform->queued(), 1u);
}

TEST(QueueGroups, AGroupMustServeOneModel) {
  ServerlessConfig c = default_serverless_config();
  c.hosts.push_back(testing::host(1));
  c.functions.push_back(testing::function("f0", "test/fig42", 1));
  c.functions.push_back(testing::function("f1", "protean/resnet-50", 1));
  c.functions[0].queue_group = "g";
  c.functions[1].queue_group = "g";
  try {
    Harness h(std::move(c), testing::reference_policies());
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("queue_group \"g\""), std::string::npos) << e.what();
  }
}

/// cGPU time slicing (HarmonyBatch §III): test/sliced has L0 = 30 ms for one request
/// (eq. 2: xi1 = 0.03 s, xi2 = 0), tau = 2 ms, M_max = 24, so a cycle is 48 ms. Instance A
/// (m = 6 GB) gets window [0, 12) ms of each cycle, instance B (m = 12 GB) the next one,
/// [12, 36) ms. Both are ready at 24 s (8 + 12 + 4 s cold start, download shared); one request
/// each at 48 s = 1000 cycles exactly:
///   A: 12 ms in [0, 12), 12 in [48, 60), the last 6 in [96, 102): finishes 102 ms later.
///   B: waits to 12 ms, 24 ms in [12, 36), the last 6 in [60, 66): finishes 66 ms later.
/// The eq. 3 averages (what the view gives policies): A (24/6) * 30 = 120 ms, B 60 ms.
/// A third window of 7 GB would end at 18 + 7 = 25 > 24: rejected; 6 GB fits [18, 24).
TEST(InstanceKinds, TimeSlicedInstancesOfOneFunctionGetTheirOwnWindows) {
  ServerlessConfig c = testing::config(testing::host(1));
  c.functions.push_back(testing::function("s", "test/sliced", 1));
  auto p = testing::manual_policies();
  Harness h(std::move(c), std::move(p));
  const policy::Location gpu0{0, 0, -1};
  policy::Decisions d;
  d.start.push_back({0, 1, policy::InstanceConfig{1, 0.0, 1.0, 6.0, 0}, gpu0});
  d.start.push_back({0, 1, policy::InstanceConfig{1, 0.0, 1.0, 12.0, 0}, gpu0});
  d.start.push_back({0, 1, policy::InstanceConfig{1, 0.0, 1.0, 7.0, 0}, gpu0});
  h.platform->apply(d);
  auto v = h.platform->view();
  ASSERT_EQ(v.instances.size(), 2u);
  EXPECT_NEAR(v.instances[0].batch_latency_s, 0.120, 1e-12);
  EXPECT_NEAR(v.instances[1].batch_latency_s, 0.060, 1e-12);
  EXPECT_NEAR(v.hosts[0].gpus[0].memory_free_gb, 40.0 - 18.0, 1e-9);
  policy::Decisions fits;
  fits.start.push_back({0, 1, policy::InstanceConfig{1, 0.0, 1.0, 6.0, 0}, gpu0});
  h.platform->apply(fits);
  EXPECT_EQ(h.platform->view().instances.size(), 3u);
  h.arrive(seconds(48), 0);
  h.arrive(seconds(48), 0);
  h.sim.run_until(seconds(60));
  ASSERT_EQ(h.records.size(), 2u);
  for (const auto& r : h.records) {
    EXPECT_EQ(r.start, seconds(48));
    EXPECT_EQ(r.queue_wait + r.batching_wait + r.cold_start_wait + r.execution,
              r.finish - r.arrival);
  }
  EXPECT_NEAR(h.records[0].execution.to_seconds(), 0.066, 1e-6);  // B finishes first
  EXPECT_NEAR(h.records[1].execution.to_seconds(), 0.102, 1e-6);  // A
  const auto extra = h.platform->summary_extra(h.sim.now());
  EXPECT_EQ(extra["decisions"]["rejected"]["start_invalid"], 1);
}

/// INFless operator-profile instances (§3.3) of infless/resnet-50 on one MPS GPU: its
/// operator DAG is a chain whose shares sum to 1 (0.955 + 0.015 + 0.008 + 0.004 + 0.008 +
/// 0.004 + 0.005 + 0.001), so the combined profile equals the measured table entry:
/// (2 threads, 20 %, batch 2) = 69 ms, (2 threads, 10 %, batch 1) = 60 ms. Cold start with
/// 1 GB: 8 s download at 1 Gbit/s + 1 s load at 8 Gbit/s + 4 s copy at 2 Gbit/s = ready at
/// 13 s. Three requests at 20 s (1 ms batching timeout): the first instance takes a batch of
/// 2, the second the last one. Each reserves 2 cores; SM shares on the GPU may not exceed 1 (0.2 +
/// 0.1 + 0.8 > 1).
TEST(InstanceKinds, OperatorProfileInstancesDifferInThreadsAndGpuShare) {
  ServerlessConfig c = default_serverless_config();
  auto t = testing::host(1);
  t.spec.gpus[0].sharing = cluster::GpuSharing::kMps;
  c.hosts.push_back(t);
  c.store_bps = 1e9;
  c.pcie_bps = 2e9;
  auto f = testing::function("o", "infless/resnet-50", 2);
  f.config.cpu_threads = 2;
  f.config.gpu_share = 0.2;
  f.model_bytes = 1e9;
  f.device_memory_gb = 1.0;
  f.batch_timeout = ms(1);  // the three arrivals batch together
  c.functions.push_back(f);
  auto p = testing::manual_policies();
  Harness h(std::move(c), std::move(p));
  policy::Decisions d;
  d.start.push_back({0, 1, std::nullopt, std::nullopt});
  d.start.push_back({0, 1, policy::InstanceConfig{1, 0.0, 0.1, 0.0, 2}, std::nullopt});
  d.start.push_back({0, 1, policy::InstanceConfig{1, 0.0, 0.8, 0.0, 2}, std::nullopt});
  h.platform->apply(d);
  auto v = h.platform->view();
  ASSERT_EQ(v.instances.size(), 2u);
  EXPECT_NEAR(v.functions[0].batch_latency_s, 0.069, 1e-12);
  EXPECT_NEAR(v.instances[0].batch_latency_s, 0.069, 1e-12);
  EXPECT_NEAR(v.instances[1].batch_latency_s, 0.060, 1e-12);
  EXPECT_DOUBLE_EQ(v.hosts[0].cores_free, 32.0 - 4.0);
  for (int i = 0; i < 3; ++i)
    h.arrive(seconds(20), 0);
  h.sim.run_until(seconds(30));
  ASSERT_EQ(h.records.size(), 3u);
  std::map<std::uint32_t, std::vector<double>> exec_by_batch;
  for (const auto& r : h.records) {
    EXPECT_EQ(r.cold_start_wait, Time::zero());
    exec_by_batch[r.batch_size].push_back(r.execution.to_seconds());
  }
  // The shares sum to 1 up to rounding, and finish times round up to whole nanoseconds.
  ASSERT_EQ(exec_by_batch[2].size(), 2u);
  ASSERT_EQ(exec_by_batch[1].size(), 1u);
  for (const double e : exec_by_batch[2])
    EXPECT_NEAR(e, 0.069, 2e-9);
  EXPECT_NEAR(exec_by_batch[1][0], 0.060, 2e-9);
  // Both live from 0 s to 30 s: 2 + 2 threads and 0.2 + 0.1 SM shares for 30 s, and the
  // throughput bound (INFless Fig. 18a) 2 / 0.069 + 1 / 0.060 = 28.9855 + 16.6667 req/s.
  const auto held = h.platform->summary_extra(h.sim.now())["operator_instances"];
  EXPECT_DOUBLE_EQ(held["cpu_thread_seconds"].get<double>(), 120.0);
  EXPECT_NEAR(held["gpu_share_seconds"].get<double>(), 9.0, 1e-9);
  EXPECT_NEAR(held["capacity_request_seconds"].get<double>(), 30.0 * (2 / 0.069 + 1 / 0.060), 1e-6);
  policy::Decisions more;
  more.start.push_back({0, 1, policy::InstanceConfig{1, 0.0, 0.7, 0.0, 2}, std::nullopt});
  h.platform->apply(more);
  EXPECT_EQ(h.platform->view().instances.size(), 3u);
}

/// Flashpoint thesis Fig. 6.3: host0 holds a 10 Gbit model and sends it to host1 and host2,
/// every host link 10 Gbit/s with no latency (one leaf). Two unicasts share host0's uplink:
/// 5 Gbit/s each, 10 Gbit / 5 Gbit/s = 2 s. A chain host0 -> host1 -> host2 is one flow at
/// 10 Gbit/s (each link crossed once per direction): both receivers have it after 1 s.
Time fig63_download(bool chain, bool network) {
  ServerlessConfig c = default_serverless_config();
  c.hosts.push_back(testing::host(1, "A100-40GB", 3));
  c.store_bps = 1e9;
  c.host_bps = 10e9;
  if (network) {
    config::Diagnostics diag("test");
    c.network = net::topology_schema()->resolve(
        nlohmann::json{{"spines", 1},
                       {"leaves", 1},
                       {"hosts_per_leaf", 3},
                       {"host_link", {{"bandwidth", "10Gbps"}, {"latency", "0s"}}}},
        "", diag);
    diag.throw_if_errors();
  }
  auto f = testing::function("f", "test/fig42", 1);
  f.model_bytes = 1.25e9;  // 10 Gbit
  c.functions.push_back(f);
  auto p = testing::manual_policies();
  p.sourcing = std::make_unique<ref::LocalFirstSourcing>(chain);
  Harness h(std::move(c), std::move(p));
  policy::Decisions first;
  first.start.push_back({0, 1, std::nullopt, policy::Location{0, 0, -1}});
  h.platform->apply(first);
  h.sim.run_until(seconds(60));  // host0 has downloaded the model and keeps it cached
  policy::Decisions two;
  two.start.push_back({0, 1, std::nullopt, policy::Location{1, 0, -1}});
  two.start.push_back({0, 1, std::nullopt, policy::Location{2, 0, -1}});
  h.platform->apply(two);
  h.sim.run_until(seconds(120));
  const auto& cs = h.platform->cold_starts();
  EXPECT_EQ(cs.size(), 3u);
  if (cs.size() != 3u) return Time::zero();
  EXPECT_EQ(cs[1].source, policy::SourceKind::kRemoteHost);
  EXPECT_EQ(cs[1].chained, chain);
  EXPECT_TRUE(cs[1].completed && cs[2].completed);
  EXPECT_EQ(cs[1].download, cs[2].download);
  const auto extra = h.platform->summary_extra(h.sim.now());
  // host0's own download from the store was a chain of one receiver.
  EXPECT_EQ(extra["cold_starts"]["chained"], chain ? 3 : 0);
  // Two chains were launched: host0's store download alone at t = 0, host1 + host2 at 60 s.
  const nlohmann::json sizes =
      chain ? nlohmann::json{{"1", 1}, {"2", 1}} : nlohmann::json::object();
  EXPECT_EQ(extra["cold_starts"]["chains"]["launched"], chain ? 2 : 0);
  EXPECT_EQ(extra["cold_starts"]["chains"]["by_cold_starts"], sizes);
  return cs[1].download;
}

TEST(ChainedMulticast, Fig63ChainTakesOneSecondTwoUnicastsTwo) {
  EXPECT_NEAR(fig63_download(true, true).to_seconds(), 1.0, 1e-6);
  EXPECT_NEAR(fig63_download(false, true).to_seconds(), 2.0, 1e-6);
  // Without a network the fixed host rate has no contention: 10 Gbit at 10 Gbit/s either way.
  EXPECT_NEAR(fig63_download(true, false).to_seconds(), 1.0, 1e-6);
}

/// Fragmentation on a hand-built state. GPU functions need 5 GB (f) and 10 GB (g): the
/// smallest demand is 5 GB (the CPU function does not count). Host 0:
///   GPU 0, exclusive, one instance, 30 GB free: stranded (exclusive and occupied);
///   GPU 1, MPS, 4 GB free: stranded (< 5 GB);
///   GPU 2, MIG, exclusive: slice 20 GB free and empty: usable; slice 3 GB free: stranded;
///     a slice under reconfiguration: not offered, left out.
/// Host 1 is under revocation notice: left out.
/// Free 30 + 4 + 20 + 3 = 57 GB, stranded 30 + 4 + 3 = 37 GB: 37 / 57.
TEST(Fragmentation, StrandedFreeGpuMemoryOnAHandBuiltState) {
  policy::PlatformView v;
  policy::FunctionView f;
  f.gpu = true;
  f.device_memory_gb = 5.0;
  policy::FunctionView g = f;
  g.device_memory_gb = 10.0;
  policy::FunctionView cpu;
  cpu.gpu = false;
  v.functions = {f, g, cpu};
  policy::HostView h0;
  policy::GpuView g0;
  g0.sharing = policy::GpuSharing::kExclusive;
  g0.memory_gb = 40;
  g0.memory_free_gb = 30;
  g0.instances = 1;
  policy::GpuView g1 = g0;
  g1.sharing = policy::GpuSharing::kMps;
  g1.memory_free_gb = 4;
  g1.instances = 2;
  policy::GpuView g2;
  g2.sharing = policy::GpuSharing::kExclusive;
  g2.mig = true;
  g2.slices = {
      {"4g.20gb", 20, 20, 0, true}, {"1g.5gb", 5, 3, 0, true}, {"2g.10gb", 10, 10, 0, false}};
  h0.gpus = {g0, g1, g2};
  policy::HostView h1;
  h1.available = false;
  policy::GpuView idle = g0;
  idle.instances = 0;
  idle.memory_free_gb = 40;
  h1.gpus = {idle};
  v.hosts = {h0, h1};
  const auto fr = gpu_fragmentation(v);
  EXPECT_DOUBLE_EQ(fr.free_gb, 57.0);
  EXPECT_DOUBLE_EQ(fr.stranded_gb, 37.0);
  EXPECT_DOUBLE_EQ(fr.fraction(), 37.0 / 57.0);
  v.functions = {cpu};  // no GPU function: nothing counts as stranded
  EXPECT_DOUBLE_EQ(gpu_fragmentation(v).fraction(), 0.0);
}

/// Memory utilisation and fragmentation through the platform. One host (256 GB, 2 x A100-40GB,
/// exclusive), test/fig42 with 1 GB of bytes and 1 GB of GPU memory. One instance starts at 0
/// on GPU 0 and is stopped at 50.5 s; the run ends at 100 s.
///   host: 1 GB reserved during the 24 s cold start: 24e9 / (256e9 * 100) = 0.0009375.
///   GPU: 1 GB for 50.5 s of 2 x 40 GB x 100 s: 50.5 / 8000 = 0.0063125.
///   fragmentation: while the instance lives, GPU 0's 39 free GB are stranded (exclusive and
///   occupied) and GPU 1's 40 usable: 39 / 79. Ticks at 0, 1, ..., 100 s (101 samples): the
///   51 ticks up to 50 s see the instance, the 50 after it none: mean 51 * (39 / 79) / 101.
TEST(Fragmentation, MemoryUtilisationAndFragmentationInTheSummary) {
  ServerlessConfig c = testing::config(testing::host(2));
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  auto p = testing::manual_policies();
  Harness h(std::move(c), std::move(p));
  policy::Decisions d;
  d.start.push_back({0, 1, std::nullopt, std::nullopt});
  h.platform->apply(d);
  h.sim.run_until(seconds(50.5));
  EXPECT_NEAR(
      h.platform->summary_extra(h.sim.now())["fragmentation"]["gpu_memory_end"].get<double>(),
      39.0 / 79.0, 1e-12);
  policy::Decisions stop;
  stop.stop.push_back({h.platform->view().instances.at(0).id});
  h.platform->apply(stop);
  h.sim.run_until(seconds(100));
  const auto extra = h.platform->summary_extra(seconds(100));
  EXPECT_NEAR(extra["memory_utilisation"]["host"].get<double>(), 0.0009375, 1e-12);
  EXPECT_NEAR(extra["memory_utilisation"]["gpu"].get<double>(), 0.0063125, 1e-12);
  EXPECT_DOUBLE_EQ(extra["fragmentation"]["gpu_memory_end"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(extra["fragmentation"]["gpu_memory_free_gb_end"].get<double>(), 80.0);
  EXPECT_NEAR(extra["fragmentation"]["gpu_memory_mean"].get<double>(), 51.0 * (39.0 / 79.0) / 101.0,
              1e-12);
}

/// A planner that counts its calls and starts one instance of a given configuration.
class CountingPlanner final : public policy::Planner {
 public:
  explicit CountingPlanner(int* calls) : calls_(calls) {}
  policy::Decisions plan(const policy::PlatformView& view) override {
    ++*calls_;
    EXPECT_EQ(view.now, Time::zero());
    policy::Decisions d;
    d.start.push_back({0, 1, policy::InstanceConfig{2, 0.0, 1.0, 0.0, 0}, std::nullopt});
    return d;
  }

 private:
  int* calls_;
};

/// The planner runs once, at time zero, and its decisions are applied (the autoscaler starts
/// nothing here); initial-pool starts `instances` per function at time zero.
TEST(Planner, CalledOnceAtTimeZeroAndApplied) {
  int calls = 0;
  {
    ServerlessConfig c = default_serverless_config();
    c.hosts.push_back(testing::host(2));
    c.functions.push_back(testing::function("f", "test/fig42", 1));
    auto p = testing::reference_policies();
    p.autoscaler = std::make_unique<ref::FixedPoolAutoscaler>(0);
    p.planner = std::make_unique<CountingPlanner>(&calls);
    Harness h(std::move(c), std::move(p));
    h.sim.run_until(seconds(30));
    EXPECT_EQ(calls, 1);
    const auto v = h.platform->view();
    ASSERT_EQ(v.instances.size(), 1u);
    EXPECT_EQ(v.instances[0].config.max_batch, 2);
    EXPECT_EQ(v.instances[0].created, Time::zero());
  }
  ServerlessConfig c = default_serverless_config();
  c.hosts.push_back(testing::host(4));
  c.functions.push_back(testing::function("a", "test/fig42", 1));
  c.functions.push_back(testing::function("b", "test/fig42", 1));
  auto p = testing::manual_policies();
  p.planner = std::make_unique<ref::InitialPoolPlanner>(2);
  Harness h(std::move(c), std::move(p));
  h.sim.run_until(seconds(30));
  const auto v = h.platform->view();
  ASSERT_EQ(v.instances.size(), 4u);
  EXPECT_EQ(v.functions[0].live(), 2);
  EXPECT_EQ(v.functions[1].live(), 2);
  for (const auto& cs : h.platform->cold_starts())
    EXPECT_EQ(cs.started, Time::zero());
}

/// Flashpoint Fig. 3.2b's three lines: an autoscaler that wants 3 instances on a cluster with
/// 2 GPUs gets 2 reserved (cold-starting: 24 s, test/fig42) and, after 24 s, 2 deployed; the
/// desired column keeps saying 3 (2 live + 1 start the placement cannot serve, every tick).
TEST(TimeSeries, DesiredReservedAndDeployedInstances) {
  ServerlessConfig c = testing::config(testing::host(2));
  c.functions.push_back(testing::function("f", "test/fig42", 1));
  auto p = testing::reference_policies();
  p.autoscaler = std::make_unique<ref::FixedPoolAutoscaler>(3);
  Harness h(std::move(c), std::move(p));
  std::ostringstream csv;
  metrics::TimeSeriesRecorder rec(csv);
  h.platform->add_timeseries_columns(rec);
  h.sim.schedule_at(seconds(10), [&] { rec.sample(h.sim.now()); });
  h.sim.schedule_at(seconds(30), [&] { rec.sample(h.sim.now()); });
  h.sim.run_until(seconds(31));
  rec.close();
  EXPECT_EQ(csv.str(),
            "time_s,queue_length,instances_cold_starting,instances_idle,instances_busy,"
            "running_requests,instances_desired\n"
            "10,0,2,0,0,0,3\n"
            "30,0,0,2,0,0,3\n");
}

}  // namespace
}  // namespace sim::platform
