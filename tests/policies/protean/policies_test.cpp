// Protean policies on hand-built views: the decisions follow Algorithms 1-2 and §4.1-4.5.

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "protean/container_placement.hpp"
#include "protean/job_distributor.hpp"
#include "protean/protean_autoscaler.hpp"
#include "protean/spot_procurement.hpp"
#include "protean/strict_first_batcher.hpp"

namespace sim::policy::protean {
namespace {

SliceView slice(const std::string& profile, double gb, double free_gb, int instances = 0) {
  SliceView s;
  s.profile = profile;
  s.memory_gb = gb;
  s.memory_free_gb = free_gb;
  s.instances = instances;
  return s;
}

// One host with one A100 in (1g.5gb, 2g.10gb, 4g.20gb) under MPS (Protean's initial geometry).
PlatformView mig_view() {
  PlatformView v;
  HostView h;
  h.index = 0;
  GpuView g;
  g.type = "A100-40GB";
  g.sharing = GpuSharing::kMps;
  g.mig = true;
  g.memory_gb = 40;
  g.slices = {slice("1g.5gb", 5, 5), slice("2g.10gb", 10, 10), slice("4g.20gb", 20, 20)};
  h.gpus.push_back(g);
  v.hosts.push_back(h);
  return v;
}

// ResNet 50 (strict; FBR 0.48, 6.5 GB, RDF 4g 1.4125, 2g 2.375, 1g 4.3 from protean.json).
FunctionView resnet(std::uint32_t id, double rate) {
  FunctionView f;
  f.id = id;
  f.name = "resnet50";
  f.config.max_batch = 128;
  f.batch_latency_s = 0.11;
  f.device_memory_gb = 6.5;
  f.fbr = 0.48;
  f.rdf = {{"7g.40gb", 1.0},
           {"4g.20gb", 1.4125},
           {"3g.20gb", 1.7333},
           {"2g.10gb", 2.375},
           {"1g.5gb", 4.3}};
  f.arrival_rate = {rate};
  f.arrivals = 100;
  f.strict_arrivals = 100;
  return f;
}

// A best-effort model of 2 GB (FBR 0.2).
FunctionView small_be(std::uint32_t id, double rate) {
  FunctionView f = resnet(id, rate);
  f.name = "be";
  f.device_memory_gb = 2.0;
  f.fbr = 0.2;
  f.strict_arrivals = 0;
  return f;
}

// 8 hosts, each one GPU as mig_view()'s, with no functions.
PlatformView eight_mig_hosts() {
  PlatformView v;
  for (int h = 0; h < 8; ++h) {
    HostView hv = mig_view().hosts[0];
    hv.index = h;
    v.hosts.push_back(hv);
  }
  return v;
}

TEST(StrictFirstBatcher, ReordersStrictFirstAndFillsTheBatch) {
  std::vector<QueuedRequest> q(4);
  for (std::size_t i = 0; i < q.size(); ++i) {
    q[i].id = i;
    q[i].arrival = ms(static_cast<std::int64_t>(i));
    q[i].batch_timeout = ms(50);
    q[i].cls = i % 2 == 0 ? RequestClass::kBestEffort : RequestClass::kStrict;
  }
  StrictFirstBatcher b;
  // Strict (1, 3) first, then the oldest BE (0): a full batch of 3.
  EXPECT_EQ(b.select({ms(4), 0, 3, q}).take, (std::vector<std::size_t>{1, 3, 0}));
  // Batch of 8 not full: wait until the oldest deadline 0 + 50 ms, then take all, strict first.
  const auto wait = b.select({ms(4), 0, 8, q});
  EXPECT_TRUE(wait.take.empty());
  EXPECT_EQ(wait.retry_at, ms(50));
  EXPECT_EQ(b.select({ms(50), 0, 8, q}).take, (std::vector<std::size_t>{1, 3, 0, 2}));
}

TEST(ProteanAutoscaler, PlacesStrictContainersByEtaAndBestEffortFirstFit) {
  PlatformView v = mig_view();
  // Strict: 2500 rps x 0.11 s = 275 + queue 240 = 515 requests -> ceil(515/128) = 5 containers.
  FunctionView s = resnet(0, 2500);
  s.queue_length = 240;
  // BE: 1000 rps x 0.11 s = 110 -> 1 container.
  FunctionView be = small_be(1, 1000);
  be.arrivals = 100;
  v.functions = {s, be};
  ProteanAutoscalerConfig c;
  c.reconfigure = false;
  ProteanAutoscaler a(c);
  const auto d = a.decide(v);
  // Tags: BE demand 1 x 2 GB on 1 GPU -> 1g tag 2/5 = 0.4 (tagged FBR 0.4 x 5 x 0.2/2 = 0.2).
  // Strict 1: 2g eta 2.375 x max{0.48, 1} = 2.375, 4g 1.4125 -> 4g (free 20 -> 13.5).
  // Strict 2: 4g 1.4125 x max{0.96, 1} = 1.4125 -> 4g (13.5 -> 7).
  // Strict 3: 4g 1.4125 x 1.44 = 2.034 < 2.375 -> 4g (7 -> 0.5).
  // Strict 4: 4g full; 2g 2.375 -> 2g (10 -> 3.5). Strict 5: only the 1g has 5 < 6.5 GB -> none.
  // BE: first fit ascending: the 1g (5 GB free) holds 2 GB.
  ASSERT_EQ(d.start.size(), 5U);
  const std::vector<int> slices{2, 2, 2, 1, 0};
  for (std::size_t k = 0; k < 5; ++k) {
    ASSERT_TRUE(d.start[k].location.has_value());
    EXPECT_EQ(d.start[k].location->slice, slices[k]) << k;
  }
  EXPECT_EQ(d.start[4].function, 1U);
}

TEST(ProteanAutoscaler, SpreadPlacementBalancesByFreeMemory) {
  PlatformView v = mig_view();
  v.functions = {resnet(0, 2500)};  // 275 requests -> 3 containers
  ProteanAutoscalerConfig c;
  c.reconfigure = false;
  c.placement = ContainerPlacement::kSpread;
  ProteanAutoscaler a(c);
  const auto d = a.decide(v);
  // Most free memory: 4g (20 -> 13.5), 4g (13.5 -> 7), 2g (10 > 7 -> 3.5).
  ASSERT_EQ(d.start.size(), 3U);
  EXPECT_EQ(d.start[0].location->slice, 2);
  EXPECT_EQ(d.start[1].location->slice, 2);
  EXPECT_EQ(d.start[2].location->slice, 1);
}

TEST(ProteanAutoscaler, ConsolidatePlacementFillsTheFullestPlaceFirst) {
  PlatformView v = mig_view();
  v.functions = {resnet(0, 2500)};  // 3 containers of 6.5 GB
  ProteanAutoscalerConfig c;
  c.reconfigure = false;
  c.placement = ContainerPlacement::kConsolidate;
  ProteanAutoscaler a(c);
  const auto d = a.decide(v);
  // Least free memory that fits: 2g (10 -> 3.5); then the 4g (20 -> 13.5 -> 7).
  ASSERT_EQ(d.start.size(), 3U);
  EXPECT_EQ(d.start[0].location->slice, 1);
  EXPECT_EQ(d.start[1].location->slice, 2);
  EXPECT_EQ(d.start[2].location->slice, 2);
}

TEST(ProteanAutoscaler, NodeScopeStartsAContainerForTheBatchesOfEachNode) {
  // 8 hosts; ResNet 50 at 2500 rps: 275 requests in flight. Node scope: 34.4 per node ->
  // ceil(34.4 / 128) = 1 per node -> 8 containers, spread one per GPU (each 4g is the place
  // with the most free memory until it holds one). Cluster scope: ceil(275 / 128) = 3.
  PlatformView v = eight_mig_hosts();
  v.functions = {resnet(0, 2500)};
  ProteanAutoscalerConfig c;
  c.reconfigure = false;
  c.placement = ContainerPlacement::kSpread;
  const auto d = ProteanAutoscaler(c).decide(v);
  ASSERT_EQ(d.start.size(), 8U);
  std::set<int> hosts;
  for (const auto& s : d.start) {
    ASSERT_TRUE(s.location.has_value());
    hosts.insert(s.location->host);
    EXPECT_EQ(s.location->slice, 2);
  }
  EXPECT_EQ(hosts.size(), 8U);
  c.container_scope = ContainerScope::kCluster;
  EXPECT_EQ(ProteanAutoscaler(c).decide(v).start.size(), 3U);
}

TEST(ProteanAutoscaler, DelaysTerminationOfSurplusContainers) {
  PlatformView v = mig_view();
  v.functions = {resnet(0, 0)};  // no demand
  InstanceView i;
  i.id = 7;
  i.function = 0;
  i.state = InstanceState::kIdle;
  i.location = {0, 0, 2};
  v.instances = {i};
  ProteanAutoscalerConfig c;
  c.reconfigure = false;
  c.surplus_period = seconds(600);
  ProteanAutoscaler a(c);
  v.now = seconds(0);
  EXPECT_TRUE(a.decide(v).stop.empty());  // surplus starts now
  v.now = seconds(599);
  EXPECT_TRUE(a.decide(v).stop.empty());
  v.now = seconds(600);  // surplus for the whole period: stopped
  const auto d = a.decide(v);
  ASSERT_EQ(d.stop.size(), 1U);
  EXPECT_EQ(d.stop[0].id, 7U);
}

TEST(ProteanAutoscaler, IdleSurplusContainersGiveWayWhenMemoryRunsOut) {
  // One GPU in (4g, 2g, 1g); the 4g holds three idle containers of a BE model that no longer
  // gets requests (3 x 6 GB) and no free memory; the 2g and 1g are full. A strict ResNet 50
  // container (6.5 GB) is needed: stopping one frees 6 GB < 6.5 GB, two free 12 GB >= 6.5 GB,
  // so the two oldest stop and it starts on the 4g.
  PlatformView v = mig_view();
  auto& slices = v.hosts[0].gpus[0].slices;
  slices[0].memory_free_gb = 0;
  slices[1].memory_free_gb = 0;
  slices[2].memory_free_gb = 0;
  slices[2].instances = 3;
  FunctionView old_be = small_be(1, 0);
  old_be.device_memory_gb = 6;
  v.functions = {resnet(0, 1000), old_be};  // 110 requests -> 1 container
  for (InstanceId id = 1; id <= 3; ++id) {
    InstanceView i;
    i.id = id;
    i.function = 1;
    i.state = InstanceState::kIdle;
    i.location = {0, 0, 2};
    v.instances.push_back(i);
  }
  ProteanAutoscalerConfig c;
  c.reconfigure = false;
  ProteanAutoscaler a(c);
  const auto d = a.decide(v);
  ASSERT_EQ(d.stop.size(), 2U);
  EXPECT_EQ(d.stop[0].id, 1U);
  EXPECT_EQ(d.stop[1].id, 2U);
  ASSERT_EQ(d.start.size(), 1U);
  EXPECT_EQ(d.start[0].location->slice, 2);
}

TEST(ProteanAutoscaler, IdleContainersAwayFromANodesBacklogAreSurplus) {
  // wiki-vgg-19 at 255 s in small. Two hosts, each one GPU in (1g, 2g, 4g) with no free
  // memory. Best-effort model A (6 GB) no longer gets requests but 1,280 of them wait at host
  // 0, where its one container is busy; its three containers on host 1's 4g are idle. The
  // next best-effort model B (2 GB) gets 1,000 rps (110 requests in flight) and has none.
  // Node scope: A needs ceil(1280 / 128) = 10 containers on host 0 and 0 anywhere, so its
  // idle ones on host 1 are surplus; host 0 has no room and nothing to evict, so A gets none.
  // B's pool of 110 over 2 nodes (55 each) needs 2 anywhere: first fit finds no room; the
  // oldest of A's idle containers on host 1's 4g (id 2, 6 GB) gives way, B starts there, and
  // the second B fits the 4 GB left.
  PlatformView v = eight_mig_hosts();
  v.hosts.resize(2);
  for (auto& h : v.hosts)
    for (auto& s : h.gpus[0].slices)
      s.memory_free_gb = 0;
  v.hosts[0].gpus[0].slices[2].instances = 1;
  v.hosts[1].gpus[0].slices[2].instances = 3;
  FunctionView a = small_be(1, 0);
  a.device_memory_gb = 6;
  a.queue_length = 1280;
  a.node_queues = {{0, 1280}};
  FunctionView b = small_be(2, 1000);
  v.functions = {a, b};
  for (InstanceId id = 1; id <= 4; ++id) {
    InstanceView i;
    i.id = id;
    i.function = 1;
    i.state = id == 1 ? InstanceState::kBusy : InstanceState::kIdle;
    i.location = {id == 1 ? 0 : 1, 0, 2};
    v.instances.push_back(i);
  }
  ProteanAutoscalerConfig c;
  c.reconfigure = false;
  const auto d = ProteanAutoscaler(c).decide(v);
  ASSERT_EQ(d.stop.size(), 1U);
  EXPECT_EQ(d.stop[0].id, 2U);
  ASSERT_EQ(d.start.size(), 2U);
  for (const auto& s : d.start) {
    EXPECT_EQ(s.function, 2U);
    ASSERT_TRUE(s.location.has_value());
    EXPECT_EQ(s.location->host, 1);
    EXPECT_EQ(s.location->slice, 2);
  }
  // node-even counts A's backlog over both nodes (640 each: 5 per node, 10 anywhere), so none
  // of its 4 containers is surplus and B gets nothing.
  c.container_scope = ContainerScope::kNodeEven;
  const auto even = ProteanAutoscaler(c).decide(v);
  EXPECT_TRUE(even.stop.empty());
  EXPECT_TRUE(even.start.empty());
}

TEST(ProteanAutoscaler, ANodesBacklogGetsItsContainersOnThatNode) {
  // Two empty hosts; best-effort model A (2 GB, no arrivals) has 256 requests queued at host 1
  // and no container: ceil(256 / 128) = 2 containers, both on host 1 (first fit: its 1g,
  // 5 GB, holds two). node-even counts 128 per node -> one per node, 2, but places them
  // anywhere: first fit over both hosts puts both on host 0's 1g, which cannot take host 1's
  // queue.
  PlatformView v = eight_mig_hosts();
  v.hosts.resize(2);
  FunctionView a = small_be(1, 0);
  a.queue_length = 256;
  a.node_queues = {{1, 256}};
  v.functions = {a};
  ProteanAutoscalerConfig c;
  c.reconfigure = false;
  const auto d = ProteanAutoscaler(c).decide(v);
  ASSERT_EQ(d.start.size(), 2U);
  for (const auto& s : d.start) {
    ASSERT_TRUE(s.location.has_value());
    EXPECT_EQ(s.location->host, 1);
    EXPECT_EQ(s.location->slice, 0);
  }
  c.container_scope = ContainerScope::kNodeEven;
  const auto even = ProteanAutoscaler(c).decide(v);
  ASSERT_EQ(even.start.size(), 2U);
  EXPECT_EQ(even.start[0].location->host, 0);
  EXPECT_EQ(even.start[1].location->host, 0);
}

TEST(ProteanAutoscaler, ReconfiguresAfterWaitLimitAndDrainsFirst) {
  // 8 MIG GPUs in (4g, 2g, 1g); BE DPN-92-like model of 14 GB, 200 BE requests per tick per
  // GPU -> ceil(200/128) = 2 batches = 28 GB: no small set holds it -> target (4g, 3g).
  PlatformView v = eight_mig_hosts();
  FunctionView be = small_be(0, 0);
  be.device_memory_gb = 14;
  ProteanAutoscalerConfig c;
  c.best_effort_count = BestEffortCount::kIntervalArrivals;
  ProteanAutoscaler a(c);
  std::uint64_t arrivals = 0;
  std::size_t reconfigs = 0;
  for (int tick = 0; tick < 6; ++tick) {
    arrivals += 1600;
    be.arrivals = arrivals;
    v.functions = {be};
    v.now = seconds(tick);
    const auto d = a.decide(v);
    // Ticks 0-2 count mismatches 1-3; tick 3 finds wait_ctr = 3 = wait_limit: 2 GPUs (30% of
    // 8) are chosen, hold no container, and reconfigure at once. Ticks 4-5: those 2 are still
    // reconfiguring (2 s downtime), so the cap of 2 keeps the other 6 waiting.
    EXPECT_EQ(d.reconfigure.size(), tick == 3 ? 2U : 0U) << tick;
    reconfigs += d.reconfigure.size();
    for (const auto& r : d.reconfigure) {
      EXPECT_EQ(r.profiles, (std::vector<std::string>{"3g.20gb", "4g.20gb"}));
      v.hosts[static_cast<std::size_t>(r.host)].gpus[0].reconfiguring = true;
    }
  }
  EXPECT_EQ(reconfigs, 2U);
}

TEST(ProteanAutoscaler, AReconfiguredGpuWaitsWaitLimitMismatchesAgain) {
  // One GPU in (4g, 2g, 1g), so the cap is max(1, floor(0.3)) = 1. BE model of 14 GB, BE
  // arrivals counted per interval (W = 1 s), EWMA alpha 0.5, fixed T_low 0.1, T_high 0.9.
  // Ticks 0-3: 200 per tick -> 200 / 128 x 14 = 21.9 GB, no small set holds it -> (4g, 3g);
  // mismatches 1-3 at ticks 0-2, tick 3 reconfigures (the GPU is empty: at once).
  // From tick 4 (the GPU now in (4g, 3g), its downtime over) 40 per tick: the EWMA is 120, 80,
  // 60, 50, 45 -> 13.1, 8.75, 6.6, 5.5, 4.9 GB, occupancy of (1g, 2g) 0.875 .. 0.33, inside
  // [0.1, 0.9] -> (4g, 2g, 1g), a mismatch at every tick. Algorithm 2 reset wait_ctr when it
  // reconfigured (line 26 makes curr_geometry final_geometry, line 30), so ticks 4-6 count
  // 1-3 and tick 7 reconfigures; with the counter kept at wait_limit (dcsim before 2026-11-27)
  // tick 4 reconfigured again at once.
  PlatformView v = mig_view();
  FunctionView be = small_be(0, 0);
  be.device_memory_gb = 14;
  ProteanAutoscalerConfig c;
  c.best_effort_count = BestEffortCount::kIntervalArrivals;
  ProteanAutoscaler a(c);
  std::uint64_t arrivals = 0;
  std::vector<int> at;
  for (int tick = 0; tick < 9; ++tick) {
    arrivals += tick < 4 ? 200 : 40;
    be.arrivals = arrivals;
    v.functions = {be};
    v.now = seconds(tick);
    if (tick == 4) v.hosts[0].gpus[0].slices = {slice("3g.20gb", 20, 20), slice("4g.20gb", 20, 20)};
    const auto d = a.decide(v);
    for (const auto& r : d.reconfigure) {
      at.push_back(tick);
      EXPECT_EQ(r.profiles, tick == 3 ? (std::vector<std::string>{"3g.20gb", "4g.20gb"})
                                      : (std::vector<std::string>{"1g.5gb", "2g.10gb", "4g.20gb"}));
    }
  }
  EXPECT_EQ(at, (std::vector<int>{3, 7}));
}

TEST(ProteanAutoscaler, AReconfiguredGpuCountsAgainstTheCapUntilItServes) {
  // As ReconfiguresAfterWaitLimitAndDrainsFirst: tick 3 reconfigures hosts 0 and 1 (the cap of
  // floor(0.3 x 8) = 2), the other six keep wait_ctr = 3. Tick 4: both in their downtime. Tick
  // 5: the downtime is over, both in (4g, 3g), each with one container cold-starting. Under
  // `downtime` neither counts any more, so hosts 2 and 3 reconfigure at tick 5. Under
  // `serving` both count until a container of theirs is ready: none at tick 5; at tick 6 host
  // 0's is idle (host 1's still cold-starting), so one GPU, host 2, reconfigures.
  for (const auto until : {ReconfiguringUntil::kDowntime, ReconfiguringUntil::kServing}) {
    PlatformView v = eight_mig_hosts();
    FunctionView be = small_be(0, 0);
    be.device_memory_gb = 14;
    ProteanAutoscalerConfig c;
    c.best_effort_count = BestEffortCount::kIntervalArrivals;
    c.reconfiguring_until = until;
    ProteanAutoscaler a(c);
    std::uint64_t arrivals = 0;
    std::vector<std::vector<int>> hosts(7);
    for (int tick = 0; tick < 7; ++tick) {
      arrivals += 1600;
      be.arrivals = arrivals;
      v.functions = {be};
      v.now = seconds(tick);
      if (tick == 5) {
        for (int h = 0; h < 2; ++h) {
          auto& g = v.hosts[static_cast<std::size_t>(h)].gpus[0];
          g.reconfiguring = false;
          g.slices = {slice("3g.20gb", 20, 20), slice("4g.20gb", 20, 20)};
          InstanceView i;
          i.id = static_cast<InstanceId>(h + 1);
          i.function = 0;
          i.state = InstanceState::kColdStarting;
          i.location = {h, 0, 0};
          v.instances.push_back(i);
        }
      }
      if (tick == 6) v.instances[0].state = InstanceState::kIdle;
      const auto d = a.decide(v);
      for (const auto& r : d.reconfigure) {
        hosts[static_cast<std::size_t>(tick)].push_back(r.host);
        v.hosts[static_cast<std::size_t>(r.host)].gpus[0].reconfiguring = true;
      }
    }
    const std::vector<int> none;
    EXPECT_EQ(hosts[3], (std::vector<int>{0, 1}));
    EXPECT_EQ(hosts[4], none);
    if (until == ReconfiguringUntil::kDowntime) {
      EXPECT_EQ(hosts[5], (std::vector<int>{2, 3}));
    } else {
      EXPECT_EQ(hosts[5], none);
      EXPECT_EQ(hosts[6], (std::vector<int>{2}));
    }
  }
}

TEST(ProteanAutoscaler, AfterReconfigurationRestoresTheContainersThatStillFit) {
  // One GPU in (3g.20gb, 4g.20gb) holding three idle containers: `big` (strict, 14 GB, no load)
  // on the 4g, `mid` (strict, 12 GB, no load) and `be` (2 GB) on the 3g. BE arrivals counted
  // per interval: 400 per tick -> 400 / 128 x 2 GB = 6.25 GB, occupancy of (1g, 2g) 6.25 / 15 =
  // 0.42 inside [0.1, 0.9] -> (1g, 2g, 4g), a mismatch from tick 0. `be` needs one container
  // (rate 100 x 0.11 s = 11 requests, one batch). Ticks 0-2 count mismatches 1-3; tick 3 drains
  // the GPU (three stops); tick 4 finds it empty and reconfigures it; tick 5 it is in its
  // downtime; tick 6 it serves in (1g.5gb, 2g.10gb, 4g.20gb), empty.
  // `needed`: tick 6 starts only `be`'s one container. `restore`: largest first, best fit:
  // `big` (14 GB) on the 4g (the only slice that holds it; 6 GB left), `mid` (12 GB) fits no
  // slice (5, 10, 6 GB free) and is not restored, `be` (2 GB) on the 1g (5 GB free, the least
  // of 5, 10, 6); `be`'s need is then met, so nothing else starts.
  for (const auto mode : {AfterReconfiguration::kNeeded, AfterReconfiguration::kRestore}) {
    PlatformView v = mig_view();
    v.hosts[0].gpus[0].slices = {slice("3g.20gb", 20, 6, 2), slice("4g.20gb", 20, 6, 1)};
    FunctionView be = small_be(0, 100);
    FunctionView big = resnet(1, 0);
    big.name = "big";
    big.device_memory_gb = 14;
    FunctionView mid = resnet(2, 0);
    mid.name = "mid";
    mid.device_memory_gb = 12;
    auto idle = [](InstanceId id, std::uint32_t f, int s) {
      InstanceView i;
      i.id = id;
      i.function = f;
      i.state = InstanceState::kIdle;
      i.location = {0, 0, s};
      return i;
    };
    v.instances = {idle(1, 1, 1), idle(2, 2, 0), idle(3, 0, 0)};
    ProteanAutoscalerConfig c;
    c.best_effort_count = BestEffortCount::kIntervalArrivals;
    c.after_reconfiguration = mode;
    ProteanAutoscaler a(c);
    std::uint64_t arrivals = 0;
    for (int tick = 0; tick < 7; ++tick) {
      arrivals += 400;
      be.arrivals = arrivals;
      v.functions = {be, big, mid};
      v.now = seconds(tick);
      auto& g = v.hosts[0].gpus[0];
      if (tick == 4) v.instances.clear();  // the three stops have ended
      if (tick == 4) g.slices = {slice("3g.20gb", 20, 20), slice("4g.20gb", 20, 20)};
      if (tick == 5) g.reconfiguring = true;
      if (tick == 6) {
        g.reconfiguring = false;
        g.slices = {slice("1g.5gb", 5, 5), slice("2g.10gb", 10, 10), slice("4g.20gb", 20, 20)};
      }
      const auto d = a.decide(v);
      EXPECT_EQ(d.stop.size(), tick == 3 ? 3U : 0U) << tick;
      EXPECT_EQ(d.reconfigure.size(), tick == 4 ? 1U : 0U) << tick;
      if (tick < 6) {
        EXPECT_TRUE(d.start.empty()) << tick;
        continue;
      }
      std::vector<std::pair<std::uint32_t, int>> started;  // (function, slice)
      for (const auto& s : d.start)
        started.emplace_back(s.function, s.location->slice);
      if (mode == AfterReconfiguration::kNeeded) {
        ASSERT_EQ(started.size(), 1U);
        EXPECT_EQ(started[0].first, 0U);
      } else {
        EXPECT_EQ(started, (std::vector<std::pair<std::uint32_t, int>>{{1, 2}, {0, 0}}));
      }
    }
  }
}

TEST(ProteanAutoscaler, RestoredContainersAreAdmittedByThePlatformsMemoryRule) {
  // Weights-resident memory: `w` (strict, no load) holds 1 GB of weights for its lifetime and
  // 5 GB more while a batch runs (footprint 6 GB). The (3g, 4g) GPU holds six idle `w` on its
  // 4g (6 GB resident + room for one 5 GB batch). It is drained and reconfigured to
  // (1g.5gb, 2g.10gb, 4g.20gb) as in AfterReconfigurationRestoresTheContainersThatStillFit
  // (the BE model `be` drives Algorithm 2 and needs no container: rate 0). Restored by the
  // platform's rule (resident + largest activations <= the slice): the 1g never (1 + 5 > 5);
  // best fit takes the 2g (10 GB free, less than the 4g's 20) for five (5 x 1 + 5 = 10), then
  // the sixth goes to the 4g. Charged at their footprints they would not all come back.
  PlatformView v = mig_view();
  auto resident = [](const std::string& profile, double gb, double res, double room) {
    SliceView s = slice(profile, gb, gb - res);
    s.resident_gb = res;
    s.activation_room_gb = room;
    return s;
  };
  v.hosts[0].gpus[0].slices = {resident("3g.20gb", 20, 0, 0), resident("4g.20gb", 20, 6, 5)};
  FunctionView be = small_be(0, 0);
  FunctionView w = resnet(1, 0);
  w.name = "w";
  w.device_memory_gb = 6;
  w.resident_gb = 1;
  w.activation_gb = 5;
  for (int k = 0; k < 6; ++k) {
    InstanceView i;
    i.id = static_cast<InstanceId>(k + 1);
    i.function = 1;
    i.state = InstanceState::kIdle;
    i.location = {0, 0, 1};
    v.instances.push_back(i);
  }
  ProteanAutoscalerConfig c;
  c.best_effort_count = BestEffortCount::kIntervalArrivals;
  c.after_reconfiguration = AfterReconfiguration::kRestore;
  ProteanAutoscaler a(c);
  std::uint64_t arrivals = 0;
  for (int tick = 0; tick < 7; ++tick) {
    arrivals += 400;
    be.arrivals = arrivals;
    v.functions = {be, w};
    v.now = seconds(tick);
    auto& g = v.hosts[0].gpus[0];
    if (tick == 4) {
      v.instances.clear();
      g.slices = {slice("3g.20gb", 20, 20), slice("4g.20gb", 20, 20)};
    }
    if (tick == 5) g.reconfiguring = true;
    if (tick == 6) {
      g.reconfiguring = false;
      g.slices = {slice("1g.5gb", 5, 5), slice("2g.10gb", 10, 10), slice("4g.20gb", 20, 20)};
    }
    const auto d = a.decide(v);
    EXPECT_EQ(d.stop.size(), tick == 3 ? 6U : 0U) << tick;
    EXPECT_EQ(d.reconfigure.size(), tick == 4 ? 1U : 0U) << tick;
    if (tick < 6) continue;
    std::vector<int> slices;
    for (const auto& s : d.start) {
      EXPECT_EQ(s.function, 1U);
      slices.push_back(s.location->slice);
    }
    EXPECT_EQ(slices, (std::vector<int>{1, 1, 1, 1, 1, 2}));
  }
}

TEST(ProteanAutoscaler, ReconfiguratorRunsOncePerMonitorInterval) {
  // As above, but W = 2 s with a decision every 1 s: Algorithm 2 runs at ticks 0, 2, 4, 6, ...
  // (arrivals over 2 s: 3200 / 8 GPUs = 400 per GPU -> 4 batches x 14 GB, still no small set ->
  // (4g, 3g)). Mismatches 1-3 at ticks 0, 2, 4; tick 6 finds wait_ctr = 3: 2 GPUs reconfigure
  // there and nowhere else (with W = 1 s it was tick 3).
  PlatformView v = eight_mig_hosts();
  FunctionView be = small_be(0, 0);
  be.device_memory_gb = 14;
  ProteanAutoscalerConfig c;
  c.best_effort_count = BestEffortCount::kIntervalArrivals;
  c.monitor_interval_s = 2.0;
  ProteanAutoscaler a(c);
  std::uint64_t arrivals = 0;
  for (int tick = 0; tick < 8; ++tick) {
    arrivals += 1600;
    be.arrivals = arrivals;
    v.functions = {be};
    v.now = seconds(tick);
    const auto d = a.decide(v);
    EXPECT_EQ(d.reconfigure.size(), tick == 6 ? 2U : 0U) << tick;
    for (const auto& r : d.reconfigure)
      v.hosts[static_cast<std::size_t>(r.host)].gpus[0].reconfiguring = true;
  }
}

TEST(ProteanAutoscaler, InFlightBestEffortCountKeepsTheSmallSlicesForASmallModel) {
  // In-flight count: 2500 BE rps x 0.11 s = 275 requests over 1 GPU -> ceil(275/128) = 3
  // batches x 2 GB = 6 GB; [1g, 2g] holds it at 6/15 = 0.4 in [T_low, T_high] -> (4g, 2g, 1g),
  // the current geometry: no reconfiguration however long it runs.
  PlatformView v = mig_view();
  ProteanAutoscaler a(ProteanAutoscalerConfig{});
  for (int tick = 0; tick < 6; ++tick) {
    FunctionView be = small_be(0, 2500);
    be.arrivals = 1000 * static_cast<std::uint64_t>(tick + 1);
    v.functions = {be};
    EXPECT_TRUE(a.decide(v).reconfigure.empty()) << tick;
  }
}

TEST(ProteanAutoscaler, ProfiledThresholdsUseTheStrictAndBestEffortProfiles) {
  // One GPU in (4g, 2g, 1g); strict ResNet 50, BE 2 GB model (FBR 0.2) at 2500 rps: in flight
  // 2500 x 0.11 = 275 requests -> 275 / 128 x 2 = 4.30 GB, occupancy 0.287 of (1g, 2g).
  // Fixed [0.1, 0.9]: (4g, 2g, 1g) stays. Profiled: the 3g shared with 2.15 BE batches gives
  // 1.7333 x max{0.48 + 0.43, 1} = 1.7333 against the free 2g's 2.375 (the 3g falls behind
  // only past (2.375 / 1.7333 - 0.48) / 0.2 = 4.45 batches), so below T_low -> (4g, 3g),
  // reconfigured at the fourth mismatch (wait_limit 3).
  for (const bool profiled : {false, true}) {
    PlatformView v = mig_view();
    ProteanAutoscalerConfig c;
    if (profiled) c.reconfiguration.thresholds = ThresholdMode::kProfiled;
    ProteanAutoscaler a(c);
    for (int tick = 0; tick < 5; ++tick) {
      v.functions = {resnet(0, 1000), small_be(1, 2500)};
      v.now = seconds(tick);
      const auto d = a.decide(v);
      EXPECT_EQ(d.reconfigure.size(), profiled && tick == 3 ? 1U : 0U) << profiled << tick;
      for (const auto& r : d.reconfigure) {
        EXPECT_EQ(r.profiles, (std::vector<std::string>{"3g.20gb", "4g.20gb"}));
        v.hosts[0].gpus[0].reconfiguring = true;
      }
    }
  }
  // A strict-looking function without strict arrivals (no arrivals yet) is no strict model:
  // no profile, so the fixed thresholds keep (4g, 2g, 1g).
  PlatformView v = mig_view();
  ProteanAutoscalerConfig c;
  c.reconfiguration.thresholds = ThresholdMode::kProfiled;
  ProteanAutoscaler a(c);
  for (int tick = 0; tick < 5; ++tick) {
    FunctionView idle = resnet(0, 0);
    idle.arrivals = 0;
    idle.strict_arrivals = 0;
    v.functions = {idle, small_be(1, 2500)};
    v.now = seconds(tick);
    EXPECT_TRUE(a.decide(v).reconfigure.empty()) << tick;
  }
}

TEST(JobDistributor, StrictBatchGoesToTheLeastEta) {
  PlatformView v = mig_view();
  FunctionView s = resnet(0, 0);
  FunctionView be = small_be(1, 0);
  be.fbr = 0.9;
  v.functions = {s, be};
  auto inst = [](InstanceId id, std::uint32_t fn, int sl, InstanceState st) {
    InstanceView i;
    i.id = id;
    i.function = fn;
    i.location = {0, 0, sl};
    i.state = st;
    return i;
  };
  // Idle strict containers on the 2g (id 1) and 4g (id 2); a BE batch (FBR 0.9) runs on the 4g.
  v.instances = {inst(1, 0, 1, InstanceState::kIdle), inst(2, 0, 2, InstanceState::kIdle),
                 inst(3, 1, 2, InstanceState::kBusy)};
  const std::vector<InstanceView> idle{v.instances[0], v.instances[1]};
  std::vector<QueuedRequest> q(1);
  q[0].cls = RequestClass::kStrict;
  const std::vector<std::size_t> take{0};
  JobDistributor jd;
  // 4g: 1.4125 x (0.48 + 0.9) = 1.949 < 2g: 2.375 x 1 -> the 4g container.
  EXPECT_EQ(jd.choose({ms(0), 0, idle, q, take, &v}), 2U);
  // BE FBR 1.3: 4g 1.4125 x 1.78 = 2.514 > 2.375 -> the 2g container.
  v.functions[1].fbr = 1.3;
  EXPECT_EQ(jd.choose({ms(0), 0, idle, q, take, &v}), 1U);
  // A best-effort batch: first fit on the smallest slice (the 2g has 10 GB free).
  q[0].cls = RequestClass::kBestEffort;
  EXPECT_EQ(jd.choose({ms(0), 0, idle, q, take, &v}), 1U);
}

TEST(SpotProcurement, ReplacesRevokedVmsBySpotThenOnDemand) {
  PlatformView v;
  HostView h;
  h.index = 0;
  h.market = Market::kSpot;
  h.revocation_at = seconds(60);
  v.hosts = {h};
  SpotProcurementConfig c;
  c.spot_unavailable = 0.0;
  SpotProcurement always(c, RandomStream(1));
  auto d = always.decide(v);
  ASSERT_EQ(d.request_vms.size(), 1U);
  EXPECT_EQ(d.request_vms[0].market, Market::kSpot);
  EXPECT_TRUE(always.decide(v).request_vms.empty());  // answered once
  c.spot_unavailable = 1.0;
  SpotProcurement never(c, RandomStream(1));
  d = never.decide(v);
  ASSERT_EQ(d.request_vms.size(), 1U);
  EXPECT_EQ(d.request_vms[0].market, Market::kOnDemand);
  EXPECT_EQ(d.request_vms[0].host_template, 1);
  c.spot_only = true;
  SpotProcurement spot_only(c, RandomStream(1));
  EXPECT_TRUE(spot_only.decide(v).request_vms.empty());
}

/// Spot Only retries a failed spot request every retry_interval (60 s) after the notice
/// until one succeeds: with P_rev = 0.5 exactly one spot request over an hour, at a whole
/// number of minutes after the notice at 0 s (60 failures in a row: probability 2^-60).
/// With `retry` off, a failed request is never repeated: a request only at the notice, for
/// the same seeds as with retries (the same first draw), none for the others.
TEST(SpotProcurement, SpotOnlyRetriesOrLeavesTheWorkerUnreplaced) {
  PlatformView v;
  HostView h;
  h.index = 0;
  h.market = Market::kSpot;
  h.revocation_at = seconds(60);
  v.hosts = {h};
  SpotProcurementConfig c;
  c.spot_unavailable = 0.5;
  c.spot_only = true;
  // Per seed: the time of each mode's request, -1 for none.
  std::vector<int> with_retry, without;
  for (const bool retry : {true, false}) {
    c.retry = retry;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      SpotProcurement p(c, RandomStream(seed));
      int at = -1;
      int requests = 0;
      for (int t = 0; t <= 3600; t += 10) {
        v.now = seconds(t);
        for (const auto& r : p.decide(v).request_vms) {
          EXPECT_EQ(r.market, Market::kSpot);
          EXPECT_EQ(r.replaces, 0);
          at = t;
          ++requests;
        }
      }
      EXPECT_LE(requests, 1) << seed;
      (retry ? with_retry : without).push_back(at);
    }
  }
  int at_notice = 0;
  int retried = 0;
  for (std::size_t k = 0; k < with_retry.size(); ++k) {
    EXPECT_GE(with_retry[k], 0) << k;
    EXPECT_EQ(with_retry[k] % 60, 0) << k;
    EXPECT_EQ(without[k], with_retry[k] == 0 ? 0 : -1) << k;
    if (with_retry[k] == 0) ++at_notice;
    if (with_retry[k] > 0) ++retried;
  }
  // Both outcomes of the first draw occur among 20 seeds (each has probability 2^-20 of not).
  EXPECT_GT(at_notice, 0);
  EXPECT_GT(retried, 0);
}

/// availability_interval 300 s: one draw of spot capacity per interval from time zero, shared
/// by every request in it. Two notices at 10 s get the same market (P_rev 0.5: over 20 seeds
/// both outcomes occur, each seed's pair agrees); a third at 290 s (same interval) agrees with
/// them. Per request (0 s), the pair differs for some seed (probability 1 - 2^-20).
TEST(SpotProcurement, AvailabilityPerIntervalIsSharedByItsRequests) {
  const auto markets = [](Time interval, std::uint64_t seed) {
    SpotProcurementConfig c;
    c.spot_unavailable = 0.5;
    c.availability_interval = interval;
    SpotProcurement p(c, RandomStream(seed));
    PlatformView v;
    HostView h;
    h.market = Market::kSpot;
    h.revocation_at = seconds(60);
    for (const int i : {0, 1}) {
      h.index = i;
      v.hosts.push_back(h);
    }
    v.now = seconds(10);
    std::vector<Market> out;
    for (const auto& r : p.decide(v).request_vms)
      out.push_back(*r.market);
    h.index = 2;
    v.hosts.push_back(h);
    v.now = seconds(290);
    for (const auto& r : p.decide(v).request_vms)
      out.push_back(*r.market);
    return out;
  };
  int spot = 0;
  int on_demand = 0;
  int differ = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const auto shared = markets(seconds(300), seed);
    ASSERT_EQ(shared.size(), 3U);
    EXPECT_EQ(shared[1], shared[0]) << seed;
    EXPECT_EQ(shared[2], shared[0]) << seed;
    (shared[0] == Market::kSpot ? spot : on_demand) += 1;
    const auto each = markets(Time::zero(), seed);
    ASSERT_EQ(each.size(), 3U);
    if (each[0] != each[1]) ++differ;
  }
  EXPECT_GT(spot, 0);
  EXPECT_GT(on_demand, 0);
  EXPECT_GT(differ, 0);
}

/// Each request names the host it replaces (the platform redirects the traffic to the new VM,
/// §4.5), spot or on-demand.
TEST(SpotProcurement, RequestsNameTheReplacedHost) {
  PlatformView v;
  HostView a;
  a.index = 3;
  a.market = Market::kSpot;
  a.revocation_at = seconds(60);
  HostView b = a;
  b.index = 5;
  v.hosts = {a, b};
  SpotProcurementConfig c;
  SpotProcurement spot(c, RandomStream(1));
  auto d = spot.decide(v);
  ASSERT_EQ(d.request_vms.size(), 2U);
  EXPECT_EQ(d.request_vms[0].replaces, 3);
  EXPECT_EQ(d.request_vms[1].replaces, 5);
  c.spot_unavailable = 1.0;
  SpotProcurement on_demand(c, RandomStream(1));
  d = on_demand.decide(v);
  ASSERT_EQ(d.request_vms.size(), 2U);
  EXPECT_EQ(d.request_vms[1].market, Market::kOnDemand);
  EXPECT_EQ(d.request_vms[1].replaces, 5);
}

}  // namespace
}  // namespace sim::policy::protean
