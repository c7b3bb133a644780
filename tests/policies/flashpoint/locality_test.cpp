// Locality-aware receiver selection (Flashpoint Listing 5.1) and hierarchical sourcing
// (§5.2.2, §6.2).

#include <gtest/gtest.h>

#include "flashpoint/locality.hpp"

namespace sim::policy::flashpoint {
namespace {

const std::string kModel = "flashpoint/t5-3b";

/// `hosts` hosts of `gpus` free exclusive 24 GB GPUs; hosts in `holding` cache the model.
PlatformView cluster(int hosts, int gpus, const std::vector<int>& holding) {
  PlatformView v;
  FunctionView f;
  f.id = 0;
  f.model = kModel;
  f.model_bytes = 11.408e9;
  f.device_memory_gb = 14.0;
  v.functions.push_back(f);
  for (int h = 0; h < hosts; ++h) {
    HostView hv;
    hv.index = h;
    hv.memory_bytes = hv.memory_free_bytes = 200e9;
    for (int g = 0; g < gpus; ++g) {
      GpuView gv;
      gv.sharing = GpuSharing::kExclusive;
      gv.memory_gb = gv.memory_free_gb = 24.0;
      hv.gpus.push_back(gv);
    }
    if (std::find(holding.begin(), holding.end(), h) != holding.end())
      hv.cached_models.push_back(kModel);
    v.hosts.push_back(hv);
  }
  return v;
}

/// What the platform does between placements of one batch: the GPU gets the instance.
void occupy(PlatformView& v, const Location& loc, InstanceId id) {
  auto& g = v.hosts[static_cast<std::size_t>(loc.host)].gpus[static_cast<std::size_t>(loc.gpu)];
  ++g.instances;
  g.memory_free_gb -= 14.0;
  InstanceView i;
  i.id = id;
  i.function = 0;
  i.state = InstanceState::kColdStarting;
  i.location = loc;
  v.instances.push_back(i);
}

std::vector<Location> place_n(Placement& p, PlatformView v, int n) {
  std::vector<Location> out;
  for (int k = 0; k < n; ++k) {
    auto loc = p.place({&v.functions[0], {}}, v);
    if (!loc) break;
    out.push_back(*loc);
    occupy(v, *loc, static_cast<InstanceId>(k + 1));
  }
  return out;
}

// Listing 5.1 on 4 hosts x 2 GPUs where host 2 holds the model and one of its GPUs is busy:
// stage 1 takes host 2's free GPU; stage 2 takes one GPU on each other host in order (0, 1, 3);
// then the remaining GPUs (first fit: host 0 GPU 1).
TEST(LocalityGreedy, FillsHoldingHostsThenOneGpuPerNewHost) {
  auto v = cluster(4, 2, {2});
  occupy(v, {2, 0, -1}, 100);
  LocalityPlacement p(true);
  const auto locs = place_n(p, v, 5);
  ASSERT_EQ(locs.size(), 5u);
  EXPECT_EQ(locs[0], (Location{2, 1, -1}));
  EXPECT_EQ(locs[1], (Location{0, 0, -1}));
  EXPECT_EQ(locs[2], (Location{1, 0, -1}));
  EXPECT_EQ(locs[3], (Location{3, 0, -1}));
  EXPECT_EQ(locs[4], (Location{0, 1, -1}));
}

// Atoll / GPU-enabled FaaS: holding hosts first, then pack (first fit).
TEST(CacheAffinity, FillsHoldingHostsThenPacks) {
  auto v = cluster(3, 2, {1});
  LocalityPlacement p(false);
  const auto locs = place_n(p, v, 4);
  ASSERT_EQ(locs.size(), 4u);
  EXPECT_EQ(locs[0], (Location{1, 0, -1}));
  EXPECT_EQ(locs[1], (Location{1, 1, -1}));
  EXPECT_EQ(locs[2], (Location{0, 0, -1}));
  EXPECT_EQ(locs[3], (Location{0, 1, -1}));
}

TEST(LocalityGreedy, SkipsHostsWithoutRoomForTheModelBytes) {
  auto v = cluster(2, 1, {});
  v.hosts[0].memory_free_bytes = 1e9;  // < 11.4 GB
  LocalityPlacement p(true);
  const auto loc = p.place({&v.functions[0], {}}, v);
  ASSERT_TRUE(loc.has_value());
  EXPECT_EQ(loc->host, 1);
}

SourcingRequest request(int host, bool local, std::vector<int> remote, std::vector<int> live = {}) {
  SourcingRequest r;
  r.model = kModel;
  r.bytes = 11.408e9;
  r.host = host;
  r.local_copy = local;
  r.remote_hosts = std::move(remote);
  r.live_hosts = std::move(live);
  return r;
}

TEST(Hierarchical, LocalThenRemoteThenStore) {
  HierarchicalSourcing s({});
  auto c = s.choose(request(0, true, {1, 2}));
  EXPECT_EQ(c.kind, SourceKind::kLocalMemory);
  EXPECT_TRUE(c.loaded);
  c = s.choose(request(0, false, {1, 2}));
  EXPECT_EQ(c.kind, SourceKind::kRemoteHost);
  c = s.choose(request(0, false, {}));
  EXPECT_EQ(c.kind, SourceKind::kStore);
  EXPECT_FALSE(c.chain);
  EXPECT_TRUE(c.share);
}

// §6.2 / Listing 7.1: senders are mapped evenly to receivers: 2 senders, 5 receivers ->
// 1, 2, 1, 2, 1.
TEST(Hierarchical, SendersMappedEvenlyWithChains) {
  HierarchicalSourcing::Config cfg;
  cfg.chain = true;
  HierarchicalSourcing s(cfg);
  std::vector<int> senders;
  for (int r = 0; r < 5; ++r) {
    const auto c = s.choose(request(10 + r, false, {1, 2}));
    EXPECT_EQ(c.kind, SourceKind::kRemoteHost);
    EXPECT_TRUE(c.chain);
    senders.push_back(c.host);
  }
  EXPECT_EQ(senders, (std::vector<int>{1, 2, 1, 2, 1}));
}

// remote_senders: live (§6.1.2: running replicas are the sources): host 1 keeps only a stopped
// replica's pooled copy (remote_hosts), hosts 2 and 3 run replicas (3 without the bytes cached
// any more). The senders in turn are 2, 3, 2, never 1; with cached (the default) 1, 2, 1.
// Without a live replica the chain comes from the store, even though host 1 keeps a copy.
TEST(Hierarchical, LiveSendersOnlyHostsRunningAReplica) {
  HierarchicalSourcing::Config cfg;
  cfg.local = HierarchicalSourcing::Local::kOff;
  cfg.chain = true;
  cfg.senders = HierarchicalSourcing::Senders::kLive;
  HierarchicalSourcing live(cfg);
  std::vector<int> senders;
  for (int r = 0; r < 3; ++r) {
    const auto c = live.choose(request(10 + r, false, {1, 2}, {2, 3}));
    EXPECT_EQ(c.kind, SourceKind::kRemoteHost);
    EXPECT_TRUE(c.chain);
    senders.push_back(c.host);
  }
  EXPECT_EQ(senders, (std::vector<int>{2, 3, 2}));
  const auto none = live.choose(request(20, false, {1}, {}));
  EXPECT_EQ(none.kind, SourceKind::kStore);
  EXPECT_TRUE(none.chain);
  cfg.senders = HierarchicalSourcing::Senders::kCached;
  HierarchicalSourcing cached(cfg);
  senders.clear();
  for (int r = 0; r < 3; ++r)
    senders.push_back(cached.choose(request(10 + r, false, {1, 2}, {2, 3})).host);
  EXPECT_EQ(senders, (std::vector<int>{1, 2, 1}));
}

TEST(Hierarchical, BaselineAtollAndFaasSettings) {
  HierarchicalSourcing::Config base;
  base.local = HierarchicalSourcing::Local::kOff;
  base.remote = false;
  base.share = false;
  HierarchicalSourcing b(base);
  auto c = b.choose(request(0, true, {1}));
  EXPECT_EQ(c.kind, SourceKind::kStore);  // no caching, no remote
  EXPECT_FALSE(c.share);
  HierarchicalSourcing::Config atoll = base;
  atoll.local = HierarchicalSourcing::Local::kBytes;
  HierarchicalSourcing a(atoll);
  c = a.choose(request(0, true, {1}));
  EXPECT_EQ(c.kind, SourceKind::kLocalMemory);
  EXPECT_FALSE(c.loaded);  // Atoll loads the cached bytes again
}

}  // namespace
}  // namespace sim::policy::flashpoint
