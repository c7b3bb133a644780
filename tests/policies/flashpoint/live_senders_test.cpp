// Chained multicast from a host running a replica (Flashpoint thesis §6.1.2, §6.2, Listing 7.1:
// the senders are the hosts holding the model), on the platform with a flow network:
// `hierarchical` with remote_senders = live against the pooled copies of `cached` and the
// store.

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "flashpoint/locality.hpp"
#include "platform/harness.hpp"
#include "sim/network/topology_config.hpp"

namespace sim::platform {
namespace {

using policy::flashpoint::HierarchicalSourcing;
using testing::Harness;

struct Downloads {
  std::vector<double> receivers_s;  ///< hosts 4 and 5, the two cold starts at 100 s
  std::vector<policy::SourceKind> sources;
  nlohmann::json chains;
};

/// Two leaves of three hosts (0-2, 3-5) of `gpus` GPUs each, one spine. Host links 10 Gbit/s,
/// leaf-spine links 2 Gbit/s, the store's egress 1 Gbit/s; no latency anywhere. The model is
/// 10 Gbit (1.25e9 bytes). Local copies unused, as in the Baseline and MC; chains on; no sharing.
Harness harness(int gpus, std::unique_ptr<policy::ColdStartSourcing> sourcing) {
  ServerlessConfig c = default_serverless_config();
  c.hosts.push_back(testing::host(gpus, "A100-40GB", 6));
  config::Diagnostics diag("test");
  c.network = net::topology_schema()->resolve(
      nlohmann::json{{"spines", 1},
                     {"leaves", 2},
                     {"hosts_per_leaf", 3},
                     {"host_link", {{"bandwidth", "10Gbps"}, {"latency", "0s"}}},
                     {"spine_link", {{"bandwidth", "2Gbps"}, {"latency", "0s"}}},
                     {"border_link", {{"bandwidth", "100Gbps"}, {"latency", "0s"}}},
                     {"object_stores", {{{"name", "cloud"}, {"egress", "1Gbps"}}}}},
      "", diag);
  diag.throw_if_errors();
  auto f = testing::function("f", "test/fig42", 1);
  f.model_bytes = 1.25e9;
  c.functions.push_back(f);
  auto p = testing::manual_policies();
  p.sourcing = std::move(sourcing);
  return Harness(std::move(c), std::move(p));
}

/// One GPU per host. At 0 s replicas start on host 0 (P) and host 3 (A); at 60 s P's replica
/// stops, its bytes stay pooled in host 0's memory; at 100 s cold starts begin on hosts 4 and
/// 5 at once.
Downloads run(std::unique_ptr<policy::ColdStartSourcing> sourcing) {
  Harness h = harness(1, std::move(sourcing));
  policy::Decisions first;
  first.start.push_back({0, 1, std::nullopt, policy::Location{0, 0, -1}});
  first.start.push_back({0, 1, std::nullopt, policy::Location{3, 0, -1}});
  h.platform->apply(first);
  h.sim.run_until(seconds(60));
  policy::Decisions stop;
  const auto view = h.platform->view();
  for (const auto& i : view.instances) {
    EXPECT_EQ(i.state, policy::InstanceState::kIdle);  // both ready well before 60 s
    if (i.location.host == 0) stop.stop.push_back({i.id});
  }
  EXPECT_EQ(stop.stop.size(), 1u);
  h.platform->apply(stop);
  h.sim.run_until(seconds(100));
  policy::Decisions two;
  two.start.push_back({0, 1, std::nullopt, policy::Location{4, 0, -1}});
  two.start.push_back({0, 1, std::nullopt, policy::Location{5, 0, -1}});
  h.platform->apply(two);
  h.sim.run_until(seconds(200));
  Downloads out;
  const auto& cs = h.platform->cold_starts();
  EXPECT_EQ(cs.size(), 4u);
  for (const auto& r : cs) {
    EXPECT_TRUE(r.completed);
    if (r.host < 4) continue;
    out.receivers_s.push_back(r.download.to_seconds());
    out.sources.push_back(r.source);
  }
  out.chains = h.platform->summary_extra(h.sim.now())["cold_starts"]["chains"]["by_cold_starts"];
  return out;
}

HierarchicalSourcing::Config sourcing(bool remote, HierarchicalSourcing::Senders senders) {
  HierarchicalSourcing::Config sc;
  sc.local = HierarchicalSourcing::Local::kOff;
  sc.remote = remote;
  sc.senders = senders;
  sc.chain = true;
  sc.share = false;
  return sc;
}

Downloads run(bool remote, HierarchicalSourcing::Senders senders) {
  return run(std::make_unique<HierarchicalSourcing>(sourcing(remote, senders)));
}

using policy::SourceKind;

// live: host 0's pooled copy is not a sender; A (host 3) is, for both receivers, so one chain
// 3 -> 4 -> 5 inside leaf 1 crosses each 10 Gbit/s host link once per direction:
// 10 Gbit / 10 Gbit/s = 1 s for both. (The store download at 0 s was a chain of two too.)
TEST(LiveSenders, ChainFromTheHostRunningAReplica) {
  const auto d = run(true, HierarchicalSourcing::Senders::kLive);
  ASSERT_EQ(d.receivers_s.size(), 2u);
  EXPECT_EQ(d.sources, (std::vector<SourceKind>{SourceKind::kRemoteHost, SourceKind::kRemoteHost}));
  EXPECT_NEAR(d.receivers_s[0], 1.0, 1e-6);
  EXPECT_NEAR(d.receivers_s[1], 1.0, 1e-6);
  EXPECT_EQ(d.chains, (nlohmann::json{{"2", 2}}));
}

// cached (the default): senders in turn over the hosts keeping the bytes, 0 then 3. Host 4's
// chain from host 0 crosses the 2 Gbit/s leaf-spine links: 10 / 2 = 5 s; host 5's from host 3
// takes 1 s. Two chains of one.
TEST(LiveSenders, CachedSendersIncludeAStoppedReplicasPooledCopy) {
  const auto d = run(true, HierarchicalSourcing::Senders::kCached);
  ASSERT_EQ(d.receivers_s.size(), 2u);
  EXPECT_NEAR(d.receivers_s[0], 5.0, 1e-6);
  EXPECT_NEAR(d.receivers_s[1], 1.0, 1e-6);
  EXPECT_EQ(d.chains, (nlohmann::json{{"1", 2}, {"2", 1}}));
}

// No remote senders (dcsim's MC as run): one chain store -> 4 -> 5 at the store's 1 Gbit/s
// egress, 10 s for both.
TEST(LiveSenders, StoreChainTakesTheEgressRate) {
  const auto d = run(false, HierarchicalSourcing::Senders::kLive);
  ASSERT_EQ(d.receivers_s.size(), 2u);
  EXPECT_EQ(d.sources, (std::vector<SourceKind>{SourceKind::kStore, SourceKind::kStore}));
  EXPECT_NEAR(d.receivers_s[0], 10.0, 1e-6);
  EXPECT_NEAR(d.receivers_s[1], 10.0, 1e-6);
  EXPECT_EQ(d.chains, (nlohmann::json{{"2", 2}}));
}

// The live hosts each cold start's policy was shown, with or without reads_live_hosts().
class ShownLive final : public policy::ColdStartSourcing {
 public:
  ShownLive(bool reads, std::vector<std::vector<int>>& shown)
      : inner_(sourcing(true, HierarchicalSourcing::Senders::kCached)),
        reads_(reads),
        shown_(shown) {}
  policy::SourceChoice choose(const policy::SourcingRequest& r) override {
    shown_.push_back(r.live_hosts);
    return inner_.choose(r);
  }
  [[nodiscard]] bool reads_live_hosts() const override { return reads_; }

 private:
  HierarchicalSourcing inner_;
  bool reads_;
  std::vector<std::vector<int>>& shown_;
};

// A policy that reads the live hosts is shown them: none for the two cold starts at 0 s, host 3
// (A, running; host 0's replica stopped at 60 s) for those on hosts 4 and 5 at 100 s. One
// that does not read them is shown none, and its choices (cached senders 0, then 3) stand.
TEST(LiveSenders, LiveHostsOnlyForAPolicyThatReadsThem) {
  std::vector<std::vector<int>> shown;
  run(std::make_unique<ShownLive>(true, shown));
  EXPECT_EQ(shown, (std::vector<std::vector<int>>{{}, {}, {3}, {3}}));
  shown.clear();
  const auto d = run(std::make_unique<ShownLive>(false, shown));
  EXPECT_EQ(shown, (std::vector<std::vector<int>>{{}, {}, {}, {}}));
  EXPECT_NEAR(d.receivers_s[0], 5.0, 1e-6);
  EXPECT_NEAR(d.receivers_s[1], 1.0, 1e-6);
}

// The receiver on the host of the only running replica (issue #20: under TSK the one replica
// left after a scale-down sits on host 0, and first-fit places the next cold starts beside
// it). Two GPUs per host; a replica runs on host 3 from 0 s; at 60 s cold starts begin on
// host 4, then on host 3's second GPU. Host 4 is sent from host 3 (3 -> 4, 10 Gbit / 10
// Gbit/s = 1 s). Host 3 may not send to itself (that would be local sourcing, off in MC), and
// host 4's replica is still cold-starting, so it is no sender either: host 3's copy comes from
// the store, 10 Gbit / 1 Gbit/s = 10 s, as with `cached`, where no other host keeps the bytes.
TEST(LiveSenders, NoSenderForTheHostOfTheOnlyLiveReplica) {
  for (const auto senders :
       {HierarchicalSourcing::Senders::kLive, HierarchicalSourcing::Senders::kCached}) {
    Harness h = harness(2, std::make_unique<HierarchicalSourcing>(sourcing(true, senders)));
    policy::Decisions first;
    first.start.push_back({0, 1, std::nullopt, policy::Location{3, 0, -1}});
    h.platform->apply(first);
    h.sim.run_until(seconds(60));
    policy::Decisions two;
    two.start.push_back({0, 1, std::nullopt, policy::Location{4, 0, -1}});
    two.start.push_back({0, 1, std::nullopt, policy::Location{3, 1, -1}});
    h.platform->apply(two);
    h.sim.run_until(seconds(200));
    const auto& cs = h.platform->cold_starts();
    ASSERT_EQ(cs.size(), 3u);
    EXPECT_EQ(cs[0].source, SourceKind::kStore);  // the first replica, from the store: 10 s
    EXPECT_NEAR(cs[0].download.to_seconds(), 10.0, 1e-6);
    for (std::size_t i = 1; i < cs.size(); ++i) {
      EXPECT_TRUE(cs[i].completed);
      EXPECT_EQ(cs[i].started, seconds(60));
      EXPECT_EQ(cs[i].source, cs[i].host == 4 ? SourceKind::kRemoteHost : SourceKind::kStore);
      EXPECT_NEAR(cs[i].download.to_seconds(), cs[i].host == 4 ? 1.0 : 10.0, 1e-6);
    }
    EXPECT_EQ(cs[1].host, 4);
    EXPECT_EQ(cs[2].host, 3);
    EXPECT_EQ(h.platform->summary_extra(h.sim.now())["cold_starts"]["chains"]["by_cold_starts"],
              (nlohmann::json{{"1", 3}}));
  }
}

}  // namespace
}  // namespace sim::platform
