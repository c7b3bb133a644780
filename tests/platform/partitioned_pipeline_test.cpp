// Pipelined partitioned replicas (Flashpoint thesis §4.2.1, Fig. 4.6, Table 4.1) on the flow
// network: each part executes its layers, each cut sends its output as a flow between the parts'
// hosts, and every stage holds one batch (backpressure up to the head). Model test/pipe2
// (tests/platform/data/test_models.json): two layers, E_0 = 200 ms, E_1 = 300 ms, the first
// layer's output 250 MB = 2 Gbit. The replica is cut after layer 0: part 0 = layer 0, part 1 =
// layer 1, one GPU each. Without a network the fixed-time model of eq. 4.3-4.4 still applies.

#include <gtest/gtest.h>

#include <algorithm>

#include "harness.hpp"
#include "sim/network/topology_config.hpp"

namespace sim::platform {
namespace {

using testing::Harness;

constexpr double kOutputBits = 250e6 * 8;  // the cut layer's output, one request
const Time kE0 = ms(200);
const Time kE1 = ms(300);
const Time kRequestsAt = seconds(20);  // the replica is ready long before (~10 s)

/// One leaf, one spine: host0 -> leaf -> host1 crosses two host links of `host_gbps` (1 us
/// each, so a flow between the hosts is delivered 2 us after its fluid end). The store hangs off
/// the leaf through a 100 Gbit/s egress with no latency: store -> leaf -> host costs 1 us.
nlohmann::json network(int host_gbps) {
  config::Diagnostics diag("test");
  auto j = net::topology_schema()->resolve(
      {{"spines", 1},
       {"leaves", 1},
       {"hosts_per_leaf", 2},
       {"host_link", {{"bandwidth", std::to_string(host_gbps) + "Gbps"}, {"latency", "1us"}}},
       {"spine_link", {{"bandwidth", "100Gbps"}, {"latency", "1us"}}},
       {"object_stores", {{{"name", "cloud"}, {"egress", "100Gbps"}, {"attach", "leaf:0"}}}}},
      "", diag);
  diag.throw_if_errors();
  return j;
}

/// host0 with one GPU, host1 with two (first-fit puts part 0 on host0, part 1 on host1/gpu0;
/// host1/gpu1 is left for another function). `same_host`: one host with two GPUs instead.
ServerlessConfig cluster(bool same_host) {
  ServerlessConfig c = default_serverless_config();
  if (same_host) {
    c.hosts.push_back(testing::host(2));
  } else {
    c.hosts.push_back(testing::host(1));
    c.hosts.push_back(testing::host(2));
  }
  c.pcie_bps = 2e9;
  c.host_bps = 8e9;  // a same-host hop (and every hop without a network): 2 Gbit in 250 ms
  c.functions.push_back(testing::function("pipe", "test/pipe2", 1));
  return c;
}

void start_replica(Harness& h, bool pipelined = true) {
  policy::Decisions d;
  policy::StartInstance s;
  s.function = 0;
  // layer 0 | layer 1, no model completion
  s.partition = policy::PartitionSpec{{0}, false, pipelined};
  d.start.push_back(s);
  h.platform->apply(d);
}

std::vector<metrics::RequestRecord> by_id(std::vector<metrics::RequestRecord> r) {
  std::sort(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return r;
}

// Finish times are rounded up to the next nanosecond per stage and flow (sim::ceil_seconds).
void expect_near(Time actual, Time expected, const char* what) {
  EXPECT_NEAR(static_cast<double>(actual.ns()), static_cast<double>(expected.ns()), 4.0) << what;
}

void expect_decomposition(const metrics::RequestRecord& r) {
  EXPECT_LE(r.arrival, r.dispatch) << r.id;
  EXPECT_EQ(r.start, r.dispatch) << r.id;
  EXPECT_EQ(r.execution, r.finish - r.start) << r.id;
  EXPECT_GE(r.queue_wait, Time::zero()) << r.id;
  EXPECT_EQ(r.queue_wait + r.batching_wait + r.cold_start_wait + r.execution, r.finish - r.arrival)
      << r.id;
}

/// One request at kRequestsAt through a fresh replica: its record (checked for the latency
/// decomposition) and the platform's summary additions.
struct OneRequest {
  metrics::RequestRecord record;
  nlohmann::json extra;
};

OneRequest run_one_request(ServerlessConfig c) {
  Harness h(std::move(c), testing::manual_policies());
  start_replica(h);
  h.arrive(kRequestsAt, 0);
  h.sim.run_until(seconds(30));
  OneRequest out;
  EXPECT_EQ(h.records.size(), 1u);
  if (!h.records.empty()) out.record = h.records[0];
  expect_decomposition(out.record);
  out.extra = h.platform->summary_extra(h.sim.now());
  return out;
}

// (a) Two hosts, one request: L = E_0 + 2 Gbit / 10 Gbit/s + route latency + E_1
//       = 0.2 + 0.2 + 2 us + 0.3 = 0.700002 s.
// The GPUs are busy E_0 on part 0's and E_1 on part 1's: 0.5 GPU-seconds.
TEST(PartitionedPipeline, TransferIsAFlowBetweenThePartsHosts) {
  ServerlessConfig c = cluster(false);
  c.network = network(10);
  const auto run = run_one_request(std::move(c));
  EXPECT_EQ(run.record.dispatch, kRequestsAt);
  expect_near(run.record.execution, kE0 + ceil_seconds(kOutputBits / 10e9) + us(2) + kE1,
              "latency");
  EXPECT_NEAR(run.extra["gpu_busy_seconds"].get<double>(), 0.5, 1e-9);
}

// (b) As (a), while a 100 GB cold-start download from the store to host1 (another function on
// host1/gpu1, started at 15 s) fills host1's link: alone it moves at the link's 10 Gbit/s.
// The inter-partition flow host0 -> host1 shares the leaf -> host1 channel with it, so max-min
// gives each 5 Gbit/s: the transfer takes 2 Gbit / 5 Gbit/s = 0.4 s, and
//   L = 0.2 + 0.4 + 2 us + 0.3 = 0.900002 s.
// The download in turn is slowed: 0.4 s at 5 instead of 10 Gbit/s leaves 2 Gbit for later, so
// it takes 800 Gbit / 10 Gbit/s + 0.2 s + 1 us = 80.200001 s instead of 80.000001 s.
TEST(PartitionedPipeline, TransferSharesLinksWithDownloads) {
  ServerlessConfig c = cluster(false);
  c.network = network(10);
  auto big = testing::function("big", "test/fig42", 1);
  big.model_bytes = 100e9;
  c.functions.push_back(big);
  Harness h(std::move(c), testing::manual_policies());
  start_replica(h);
  h.sim.schedule_at(seconds(15), [&h] {
    policy::Decisions d;
    d.start.push_back({1, 1, std::nullopt, policy::Location{1, 1, -1}});
    h.platform->apply(d);
  });
  h.arrive(kRequestsAt, 0);
  h.sim.run_until(seconds(120));
  ASSERT_EQ(h.records.size(), 1u);
  const auto& r = h.records[0];
  expect_decomposition(r);
  EXPECT_EQ(r.dispatch, kRequestsAt);
  expect_near(r.execution, kE0 + ceil_seconds(kOutputBits / 5e9) + us(2) + kE1, "latency");
  const auto& cs = h.platform->cold_starts();
  const auto download =
      std::find_if(cs.begin(), cs.end(), [](const auto& x) { return x.function == 1; });
  ASSERT_NE(download, cs.end());
  expect_near(download->download, seconds(80.2) + us(1), "download");
}

// (c) Both parts on one host: no network; the hop takes 2 Gbit at host_bandwidth (8 Gbit/s),
// 0.25 s: L = 0.2 + 0.25 + 0.3 = 0.75 s.
TEST(PartitionedPipeline, PartsOnOneHostUseTheFixedHopTime) {
  ServerlessConfig c = cluster(true);
  c.network = network(10);
  EXPECT_EQ(run_one_request(std::move(c)).record.execution, kE0 + ms(250) + kE1);
}

// (d) Backpressure: four requests at once. Each stage (part 0, the hop, part 1) holds one
// batch; a batch moves on only when the next stage is empty, and the head takes the next
// request only when part 0 passed its batch on. d = 2 us of route latency.
struct Expected {
  int host_gbps;
  std::vector<Time> dispatch;
  std::vector<Time> finish;
};

/// Four requests at kRequestsAt through a fresh replica, by id; the summary additions into
/// `extra`.
std::vector<metrics::RequestRecord> run_four_requests(ServerlessConfig c, Time until,
                                                      nlohmann::json& extra,
                                                      bool pipelined = true) {
  Harness h(std::move(c), testing::manual_policies());
  start_replica(h, pipelined);
  for (int i = 0; i < 4; ++i)
    h.arrive(kRequestsAt, 0);
  h.sim.run_until(until);
  extra = h.platform->summary_extra(h.sim.now());
  return by_id(h.records);
}

void expect_pipeline(const Expected& e) {
  ServerlessConfig c = cluster(false);
  c.network = network(e.host_gbps);
  nlohmann::json extra;
  const auto rows = run_four_requests(std::move(c), seconds(30), extra);
  ASSERT_EQ(rows.size(), 4u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    expect_decomposition(rows[i]);
    expect_near(rows[i].dispatch, kRequestsAt + e.dispatch[i], "dispatch");
    expect_near(rows[i].finish, kRequestsAt + e.finish[i], "finish");
  }
}

// The hop is the bottleneck: at 4 Gbit/s, N_0 = 2 Gbit / 4 Gbit/s = 0.5 s > E_1 > E_0.
//   r1: part 0 [0, 0.2], hop [0.2, 0.7 + d], part 1 [0.7 + d, 1.0 + d].
//   r2: admitted at 0.2 (r1 left part 0 for the hop); part 0 [0.2, 0.4], then it waits in
//       part 0 until r1's transfer is over: hop [0.7 + d, 1.2 + 2d], part 1 [1.2 + 2d, 1.5 + 2d].
//   r3: admitted only at 0.7 + d, when r2 could pass on: hop [1.2 + 2d, 1.7 + 3d],
//       part 1 [1.7 + 3d, 2.0 + 3d].
//   r4: admitted at 1.2 + 2d; hop [1.7 + 3d, 2.2 + 4d], part 1 [2.2 + 4d, 2.5 + 4d].
// From r2 on, admissions are max(E, N) = 0.5 s apart (eq. 4.3).
TEST(PartitionedPipeline, BackpressureFromTheNetwork) {
  const Time d = us(2);
  expect_pipeline({4,
                   {Time::zero(), ms(200), ms(700) + d, ms(1200) + 2 * d},
                   {ms(1000) + d, ms(1500) + 2 * d, ms(2000) + 3 * d, ms(2500) + 4 * d}});
}

// Part 1 is the bottleneck: at 10 Gbit/s, N_0 = 0.2 s < E_1 = 0.3 s.
//   r1: part 0 [0, 0.2], hop [0.2, 0.4 + d], part 1 [0.4 + d, 0.7 + d].
//   r2: admitted at 0.2; part 0 [0.2, 0.4]; hop [0.4 + d, 0.6 + 2d], then it waits in the hop
//       for part 1: part 1 [0.7 + d, 1.0 + d].
//   r3: admitted at 0.4 + d; part 0 [0.4 + d, 0.6 + d], waits for the hop until r2 enters
//       part 1: hop [0.7 + d, 0.9 + 2d], part 1 [1.0 + d, 1.3 + d].
//   r4: admitted at 0.7 + d; hop [1.0 + d, 1.2 + 2d], part 1 [1.3 + d, 1.6 + d].
// In steady state admissions are max(E, N) = E_1 = 0.3 s apart (eq. 4.3).
TEST(PartitionedPipeline, BackpressureFromTheLastPart) {
  const Time d = us(2);
  expect_pipeline({10,
                   {Time::zero(), ms(200), ms(400) + d, ms(700) + d},
                   {ms(700) + d, ms(1000) + d, ms(1300) + d, ms(1600) + d}});
}

// (e) Without a network nothing changes: the head admits a request every max(E, N) =
// max(0.2, 0.25, 0.3) = 0.3 s and each takes I = 0.2 + 0.25 + 0.3 = 0.75 s (eq. 4.3-4.4);
// no GPU busy time is accounted for pipelined batches in that mode.
TEST(PartitionedPipeline, WithoutANetworkTheFixedTimesApply) {
  nlohmann::json extra;
  const auto rows = run_four_requests(cluster(false), seconds(60), extra);
  ASSERT_EQ(rows.size(), 4u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    expect_decomposition(rows[i]);
    EXPECT_EQ(rows[i].dispatch, kRequestsAt + ms(300) * static_cast<std::int64_t>(i));
    EXPECT_EQ(rows[i].execution, ms(750));
  }
  EXPECT_EQ(extra["gpu_busy_seconds"].get<double>(), 0.0);
}

// (f) Not pipelined (`pipelining: false`): the replica holds one batch at a time, so the head
// admits the next request only when the last one left part 1. At 10 Gbit/s each takes
// L = 0.2 + 0.2 + d + 0.3 = 0.7 s + d, back to back: dispatches at k x (0.7 s + d), finishes
// at (k + 1) x (0.7 s + d). Without a network: every I = 0.75 s (eq. 4.4), execution 0.75 s.
TEST(PartitionedPipeline, NotPipelinedHoldsOneBatchAtATime) {
  const Time d = us(2);
  ServerlessConfig c = cluster(false);
  c.network = network(10);
  nlohmann::json extra;
  auto rows = run_four_requests(std::move(c), seconds(30), extra, false);
  ASSERT_EQ(rows.size(), 4u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto k = static_cast<std::int64_t>(i);
    expect_decomposition(rows[i]);
    expect_near(rows[i].dispatch, kRequestsAt + (ms(700) + d) * k, "dispatch");
    expect_near(rows[i].finish, kRequestsAt + (ms(700) + d) * (k + 1), "finish");
  }
  rows = run_four_requests(cluster(false), seconds(60), extra, false);
  ASSERT_EQ(rows.size(), 4u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].dispatch, kRequestsAt + ms(750) * static_cast<std::int64_t>(i));
    EXPECT_EQ(rows[i].execution, ms(750));
  }
}

// Model completion (§4.2.5) and stopping while batches are in the pipeline (the replica is ready
// at 9 s, complete at about 17.5 s; requests from 10 s, one every 100 ms): the batches in flight
// finish (as without a network), the parts then serve as full instances (0.5 s on the
// A100, the profile's xi1), and every request is recorded exactly once.
TEST(PartitionedPipeline, BatchesInFlightSurviveCompletionAndStop) {
  for (const bool stop : {false, true}) {
    ServerlessConfig c = cluster(false);
    c.network = network(4);
    Harness h(std::move(c), testing::manual_policies());
    policy::Decisions d;
    policy::StartInstance s;
    s.function = 0;
    s.partition = policy::PartitionSpec{{0}, !stop};
    d.start.push_back(s);
    h.platform->apply(d);
    for (int i = 0; i < 200; ++i)
      h.arrive(seconds(10) + ms(100) * i, 0);
    if (stop) {
      // Stop part 1 (instance 2) while the pipeline is full: the whole replica goes.
      h.sim.schedule_at(seconds(12), [&h] {
        policy::Decisions stop_part;
        stop_part.stop.push_back({2});
        h.platform->apply(stop_part);
      });
    }
    h.sim.run_until(seconds(200));
    if (stop) {
      EXPECT_EQ(h.platform->live_instances(), 0u);
      EXPECT_EQ(h.records.size() + h.platform->queued(), 200u);
    } else {
      ASSERT_EQ(h.records.size(), 200u);
      const auto rows = by_id(h.records);
      EXPECT_GT(rows.front().execution, ms(1000));  // through the pipeline: 0.2 + 0.5 + d + 0.3
      EXPECT_EQ(rows.back().execution, ms(500));    // a full instance
    }
    EXPECT_EQ(h.platform->running(), 0u);
    for (const auto& r : h.records)
      expect_decomposition(r);
  }
}

}  // namespace
}  // namespace sim::platform
