#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/config/diagnostics.hpp"
#include "sim/network/route_table.hpp"
#include "sim/network/topology_config.hpp"

namespace sim::net {
namespace {

using nlohmann::json;

TEST(Topology, ChannelsAreDirections) {
  Topology t;
  const NodeId a = t.add_node("a"), b = t.add_node("b");
  t.add_link(a, b, 1e9, us(2));
  EXPECT_EQ(t.channel_count(), 2u);
  EXPECT_EQ(t.channel_from(0), a);
  EXPECT_EQ(t.channel_to(0), b);
  EXPECT_EQ(t.channel_from(1), b);
  EXPECT_EQ(t.channel_name(1), "b->a");
  EXPECT_THROW(t.add_node("a"), std::invalid_argument);
  EXPECT_THROW(t.add_link(a, a, 1e9), std::invalid_argument);
  EXPECT_THROW(t.add_link(a, b, 0.0), std::invalid_argument);
  try {
    (void)t.at("bb");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean \"b\""), std::string::npos) << e.what();
  }
}

/// Nodes are found by name through an index (a linear search per added node made building the
/// documented maximum of 1e6 hosts take about 20 minutes): every name maps to its own id, and
/// a repeated name is still rejected however many nodes precede it.
TEST(Topology, NamesAreIndexed) {
  Topology t;
  for (int i = 0; i < 5000; ++i)
    EXPECT_EQ(t.add_node("n" + std::to_string(i)), static_cast<NodeId>(i));
  for (int i = 0; i < 5000; i += 7)
    EXPECT_EQ(t.at("n" + std::to_string(i)), static_cast<NodeId>(i));
  EXPECT_FALSE(t.find("n5000").has_value());
  EXPECT_THROW(t.add_node("n4999"), std::invalid_argument);
  EXPECT_EQ(t.node_count(), 5000u);
}

TEST(Topology, DefaultsAreTheFlashpointDatacenter) {
  // Thesis §3.1/§8.2: 200 hosts (1600 GPUs / 8), 20 per leaf -> 10 leaves; 100 Gbit/s
  // leaf-spine, 50 Gbit/s host-leaf; cloud store at 2,203 Mbit/s.
  const Topology t = load_topology(json::object());
  EXPECT_EQ(t.nodes_of_kind(NodeKind::kHost).size(), 200u);
  EXPECT_EQ(t.nodes_of_kind(NodeKind::kLeaf).size(), 11u);  // 10 + border
  EXPECT_EQ(t.nodes_of_kind(NodeKind::kSpine).size(), 4u);
  const NodeId cloud = t.at("cloud");
  EXPECT_EQ(t.node(cloud).kind, NodeKind::kStore);
  const auto& adj = t.adjacent(cloud);
  ASSERT_EQ(adj.size(), 1u);
  EXPECT_DOUBLE_EQ(t.channel_capacity_bps(adj[0].out), 2203e6);
  const auto& host_adj = t.adjacent(t.at("host0"));
  EXPECT_DOUBLE_EQ(t.channel_capacity_bps(host_adj[0].out), 50e9);
  EXPECT_EQ(t.channel_to(host_adj[0].out), t.at("leaf0"));
  EXPECT_EQ(t.channel_to(t.adjacent(t.at("host39"))[0].out), t.at("leaf1"));
}

TEST(Topology, PresetFileMatchesThesisNumbers) {
  const Topology t = load_topology_file(std::string(SIM_SOURCE_DIR) +
                                        "/data/topologies/flashpoint-datacenter.json");
  EXPECT_EQ(t.nodes_of_kind(NodeKind::kHost).size(), 200u);
  const NodeId h = t.at("host0");
  ASSERT_TRUE(t.node(h).flow_cap_bps.has_value());
  EXPECT_DOUBLE_EQ(*t.node(h).flow_cap_bps, 7506e6);
  const auto& leaf_adj = t.adjacent(t.at("leaf3"));
  EXPECT_DOUBLE_EQ(t.channel_capacity_bps(leaf_adj[0].out), 100e9);  // to spine0
  EXPECT_DOUBLE_EQ(t.channel_capacity_bps(t.adjacent(t.at("cloud"))[0].out), 2203e6);
}

TEST(Topology, SchemaReportsPathsAndSuggestions) {
  const json bad = {
      {"spine", 4},
      {"leaves", 0},
      {"host_link", {{"bandwidth", 50}}},
      {"object_stores",
       json::array({json{{"name", "s3"}, {"egress", "1Gbps"}, {"attach", "rack:2"}}})}};
  try {
    (void)load_topology(bad, "net.json", "/network");
    FAIL();
  } catch (const config::ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("/network/spine"), std::string::npos) << m;
    EXPECT_NE(m.find("did you mean \"spines\""), std::string::npos) << m;
    EXPECT_NE(m.find("/network/leaves"), std::string::npos) << m;
    EXPECT_NE(m.find("/network/host_link/bandwidth"), std::string::npos) << m;
    EXPECT_NE(m.find("/network/object_stores/0/attach"), std::string::npos) << m;
    EXPECT_NE(m.find("net.json"), std::string::npos) << m;
  }
  try {
    (void)load_topology(
        json{{"leaves", 2},
             {"object_stores",
              json::array({json{{"name", "s3"}, {"egress", "1Gbps"}, {"attach", "leaf:5"}}})}},
        "net.json");
    FAIL();
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("/object_stores/0/attach"), std::string::npos);
  }
}

// Found by fuzz_topology: an empty store name, or a store named like the border leaf, escaped
// as std::invalid_argument from Topology::add_node instead of a located ConfigError.
TEST(Topology, StoreNamesMustBeNonEmptyAndNotTheBorderLeaf) {
  const auto store = [](const std::string& name, const std::string& attach) {
    return json{{"name", name}, {"egress", "1Gbps"}, {"attach", attach}};
  };
  const std::vector<std::pair<json, std::string>> cases = {
      {json::array({store("", "leaf:0")}), "/object_stores/0/name"},
      {json::array({store("border", "leaf:0"), store("cloud", "border")}), "/object_stores/0/name"},
      {json::array({store("cloud", "border"), store("border", "spine:0")}),
       "/object_stores/1/name"},
  };
  for (const auto& [stores, path] : cases) {
    try {
      (void)load_topology(json{{"leaves", 2}, {"object_stores", stores}}, "net.json");
      FAIL() << stores.dump();
    } catch (const config::ConfigError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("net.json"), std::string::npos) << m;
      EXPECT_NE(m.find(path), std::string::npos) << m;
    }
  }
}

TEST(Routing, SpineLeafHasOnePathPerSpine) {
  const Topology t = load_topology(json{{"spines", 4}, {"leaves", 3}, {"hosts_per_leaf", 2}});
  RouteTable rt(t);
  const NodeId h0 = t.at("host0"), h1 = t.at("host1"), h5 = t.at("host5");
  EXPECT_EQ(rt.path_count(h0, h1), 1u);  // same leaf
  EXPECT_EQ(rt.path_count(h0, h5), 4u);  // one per spine
  // Path k crosses spine k (paths are numbered in node-id order of the choices).
  for (std::uint64_t k = 0; k < 4; ++k) {
    const Route r = rt.path(h0, h5, k);
    ASSERT_EQ(r.nodes.size(), 5u);
    EXPECT_EQ(t.node(r.nodes[2]).name, "spine" + std::to_string(k));
    EXPECT_EQ(r.latency, us(4));
  }
  // The chosen path is route_hash(src, dst, key) mod 4, and different keys spread over spines.
  std::set<NodeId> used;
  for (std::uint64_t key = 1; key <= 64; ++key) {
    const Route r = rt.route(h0, h5, key);
    EXPECT_EQ(r.nodes[2], rt.path(h0, h5, route_hash(h0, h5, key) % 4).nodes[2]);
    used.insert(r.nodes[2]);
  }
  EXPECT_EQ(used.size(), 4u);
  // Pinning a spine.
  const Route pinned = rt.route(h0, h5, 1, t.at("spine2"));
  EXPECT_EQ(t.node(pinned.nodes[2]).name, "spine2");
  EXPECT_EQ(pinned.channels.size(), 4u);
}

TEST(Routing, RouteIntoAReusedBufferEqualsFreshRoutes) {
  // route_into reuses the caller's buffers (FlowNetwork::start keeps one Route across flows): it
  // must clear what the previous, possibly longer, route left. Reference: the documented choice
  // composed from path() (route_hash mod path_count, per leg when pinned), and the latency as the
  // sum of the crossed links' latencies.
  const Topology t = load_topology(json{{"spines", 3}, {"leaves", 4}, {"hosts_per_leaf", 3}});
  RouteTable rt(t);
  std::vector<NodeId> hosts, spines;
  for (NodeId n = 0; n < t.node_count(); ++n) {
    if (t.node(n).kind == NodeKind::kHost) hosts.push_back(n);
    if (t.node(n).kind == NodeKind::kSpine) spines.push_back(n);
  }
  ASSERT_EQ(hosts.size(), 12u);
  ASSERT_EQ(spines.size(), 3u);
  const auto leg = [&](Route& r, NodeId a, NodeId b, std::uint64_t key) {
    if (a == b) return;
    const Route p = rt.path(a, b, route_hash(a, b, key) % rt.path_count(a, b));
    r.channels.insert(r.channels.end(), p.channels.begin(), p.channels.end());
    r.nodes.insert(r.nodes.end(), p.nodes.begin() + 1, p.nodes.end());
  };
  Route reused;
  std::uint64_t state = 12345;
  for (int i = 0; i < 400; ++i) {
    state = splitmix64(state);
    const NodeId src = hosts[state % hosts.size()];
    const NodeId dst = hosts[(state >> 16) % hosts.size()];
    const std::uint64_t key = state >> 32;
    std::optional<NodeId> via;
    if ((state >> 8) % 2 == 0) via = spines[(state >> 24) % spines.size()];
    rt.route_into(reused, src, dst, key, via);
    Route expected;
    expected.nodes.push_back(src);
    if (via && *via != src && *via != dst) {
      leg(expected, src, *via, key);
      leg(expected, *via, dst, key);
    } else {
      leg(expected, src, dst, key);
    }
    ASSERT_EQ(reused.channels, expected.channels) << i;
    ASSERT_EQ(reused.nodes, expected.nodes) << i;
    Time latency = Time::zero();
    for (const ChannelId c : expected.channels)
      latency += t.link(Topology::link_of(c)).latency;
    ASSERT_EQ(reused.latency, latency) << i;
    // Hops: 0 (same host), 2 (same leaf), 4 (across or through a spine); 1 us per link.
    ASSERT_TRUE(reused.channels.size() % 2 == 0 && reused.channels.size() <= 4) << i;
    ASSERT_EQ(reused.latency, us(1) * static_cast<std::int64_t>(reused.channels.size())) << i;
    const Route fresh = rt.route(src, dst, key, via);
    ASSERT_EQ(fresh.channels, reused.channels) << i;
    ASSERT_EQ(fresh.nodes, reused.nodes) << i;
  }
}

// RouteTable keeps walked paths in a small direct-mapped cache; a table without one walks every
// time. Both must give the same channels, nodes and latency, cold or warm, through evictions.
TEST(Routing, PathCacheGivesTheWalkedPaths) {
  // A chain 0 - 1 - ... - 11, link i (channels 2i forward, 2i + 1 back) of latency i + 1 us.
  Topology chain;
  for (int i = 0; i < 12; ++i)
    chain.add_node("n" + std::to_string(i));
  for (NodeId i = 0; i + 1 < 12; ++i)
    chain.add_link(i, i + 1, 1e9, us(static_cast<std::int64_t>(i) + 1));
  RouteTable cached(chain);
  for (int pass = 0; pass < 2; ++pass) {  // a walk, then the cache
    const Route r = cached.path(0, 3, 0);
    EXPECT_EQ(r.channels, (std::vector<ChannelId>{0, 2, 4})) << pass;
    EXPECT_EQ(r.nodes, (std::vector<NodeId>{0, 1, 2, 3})) << pass;
    EXPECT_EQ(r.latency, us(6)) << pass;  // 1 + 2 + 3
    const Route back = cached.path(3, 1, 0);
    EXPECT_EQ(back.channels, (std::vector<ChannelId>{5, 3})) << pass;
    EXPECT_EQ(back.nodes, (std::vector<NodeId>{3, 2, 1})) << pass;
    EXPECT_EQ(back.latency, us(5)) << pass;  // 3 + 2
    // 11 hops, more than a cache entry holds: walked every time.
    const Route all = cached.path(0, 11, 0);
    ASSERT_EQ(all.channels.size(), 11u);
    EXPECT_GT(all.channels.size(), RouteTable::kCachedHops);
    EXPECT_EQ(all.channels.back(), 20u);
    EXPECT_EQ(all.latency, us(66)) << pass;  // 1 + ... + 11
    // A route pinned through node 5: two legs, each cached on its own.
    const Route via = cached.route(2, 7, 99, NodeId{5});
    EXPECT_EQ(via.channels, (std::vector<ChannelId>{4, 6, 8, 10, 12})) << pass;
    EXPECT_EQ(via.latency, us(3 + 4 + 5 + 6 + 7)) << pass;
  }

  // Every path of a fabric with 3 paths between leaves, against a table without a cache; a cache
  // of 4 entries so that paths evict each other.
  const Topology t = load_topology(json{{"spines", 3}, {"leaves", 3}, {"hosts_per_leaf", 2}});
  RouteTable walk(t, 0);
  RouteTable tiny(t, 4);
  RouteTable normal(t);
  std::uint64_t state = 7;
  for (int round = 0; round < 3; ++round) {
    for (NodeId a = 0; a < t.node_count(); ++a) {
      for (NodeId b = 0; b < t.node_count(); ++b) {
        const std::uint64_t n = walk.path_count(a, b);
        ASSERT_EQ(tiny.path_count(a, b), n);
        for (std::uint64_t k = 0; k < n + 1; ++k) {  // n: the index taken mod n
          const Route expected = walk.path(a, b, k);
          for (RouteTable* rt : {&tiny, &normal}) {
            const Route got = rt->path(a, b, k);
            ASSERT_EQ(got.channels, expected.channels) << a << " " << b << " " << k;
            ASSERT_EQ(got.nodes, expected.nodes) << a << " " << b << " " << k;
            ASSERT_EQ(got.latency, expected.latency) << a << " " << b << " " << k;
          }
          state = splitmix64(state);
          const NodeId via = static_cast<NodeId>(state % t.node_count());
          const Route pinned = walk.route(a, b, state >> 20, via);
          Route into;
          into.channels.assign(3, 77);  // route_into must clear what was there
          tiny.route_into(into, a, b, state >> 20, via);
          ASSERT_EQ(into.channels, pinned.channels);
          ASSERT_EQ(into.nodes, pinned.nodes);
          ASSERT_EQ(into.latency, pinned.latency);
        }
      }
    }
  }
}

// A route's path count comes from a direct-mapped table of 1,024 (src, dst) pairs: over a fabric
// of ~46,000 pairs, visited twice in different orders (entries evict each other), every route is
// path number route_hash mod path_count, as documented.
TEST(Routing, PairCountTableKeepsRoutesAsDocumented) {
  const Topology t = load_topology(json{{"spines", 4}, {"leaves", 10}, {"hosts_per_leaf", 20}});
  RouteTable rt(t);
  RouteTable reference(t, 0);
  const NodeId n = static_cast<NodeId>(t.node_count());
  Route got;
  for (int pass = 0; pass < 2; ++pass) {
    for (NodeId i = 0; i < n; ++i) {
      for (NodeId j = 0; j < n; ++j) {
        const NodeId a = pass == 0 ? i : j;
        const NodeId b = pass == 0 ? j : n - 1 - i;
        if (a == b) continue;
        const std::uint64_t key = 1000 * a + b + pass;
        rt.route_into(got, a, b, key);
        const Route expected =
            reference.path(a, b, route_hash(a, b, key) % reference.path_count(a, b));
        ASSERT_EQ(got.channels, expected.channels) << a << " " << b;
        ASSERT_EQ(got.nodes, expected.nodes) << a << " " << b;
        ASSERT_EQ(got.latency, expected.latency) << a << " " << b;
      }
    }
  }
}

// The cache turns itself off over a window of walks that rarely repeat and on again later; paths
// stay those of a table without one throughout.
TEST(Routing, PathCacheOffAndOnAgain) {
  const Topology t = load_topology(json{{"spines", 4}, {"leaves", 10}, {"hosts_per_leaf", 20}});
  std::vector<NodeId> hosts;
  for (NodeId n = 0; n < t.node_count(); ++n) {
    if (t.node(n).kind == NodeKind::kHost) hosts.push_back(n);
  }
  RouteTable walk(t, 0);
  RouteTable cached(t);
  std::uint64_t state = 3;
  Route got;
  const std::size_t phase = 40 * 4096;  // past a window and the time off
  for (std::size_t i = 0; i < 2 * phase; ++i) {
    state = splitmix64(state);
    // First random host pairs (1 in 40,000 repeats), then 4 sources and 4 destinations.
    const std::size_t spread = i < phase ? hosts.size() : 4;
    const NodeId a = hosts[state % spread];
    const NodeId b = hosts[hosts.size() - 1 - (state >> 16) % spread];
    const std::uint64_t key = state >> 32;
    cached.route_into(got, a, b, key);
    if (i % 7 == 0 || i + 4096 > 2 * phase) {  // every walk compared would take a while
      const Route expected = walk.route(a, b, key);
      ASSERT_EQ(got.channels, expected.channels) << i;
      ASSERT_EQ(got.nodes, expected.nodes) << i;
      ASSERT_EQ(got.latency, expected.latency) << i;
    }
  }
}

// Node ids unrelated to the distances (the counts follow the search's order of discovery):
// 0 <- {3, 4} <- 1 <- {2, 5}, and 2 - 5.
TEST(Routing, CountsWhereIdsAreNotInDistanceOrder) {
  Topology t;
  for (int i = 0; i < 6; ++i)
    t.add_node("n" + std::to_string(i));
  t.add_link(0, 4, 1e9, us(1));  // link 0
  t.add_link(0, 3, 1e9, us(1));  // link 1
  t.add_link(1, 3, 1e9, us(1));  // link 2
  t.add_link(1, 4, 1e9, us(1));  // link 3
  t.add_link(2, 1, 1e9, us(1));  // link 4
  t.add_link(5, 1, 1e9, us(1));  // link 5
  t.add_link(2, 5, 1e9, us(1));  // link 6
  RouteTable rt(t);
  EXPECT_EQ(rt.path_count(4, 0), 1u);
  EXPECT_EQ(rt.path_count(1, 0), 2u);  // via 3 or 4
  EXPECT_EQ(rt.path_count(2, 0), 2u);
  EXPECT_EQ(rt.path_count(5, 0), 2u);  // 5 - 2 is no shorter
  // Paths numbered by neighbour id at each hop: from 1, 3 before 4.
  EXPECT_EQ(rt.path(2, 0, 0).nodes, (std::vector<NodeId>{2, 1, 3, 0}));
  EXPECT_EQ(rt.path(2, 0, 1).nodes, (std::vector<NodeId>{2, 1, 4, 0}));
  // Link 4 forward (2 -> 1), link 3 forward (1 -> 4), link 0 backward (4 -> 0).
  EXPECT_EQ(rt.path(2, 0, 1).channels, (std::vector<ChannelId>{8, 6, 1}));
  EXPECT_EQ(rt.path(0, 2, 1).nodes, (std::vector<NodeId>{0, 4, 1, 2}));
}

TEST(Routing, HashIsFixed) {
  // Known answers pin the documented hash so that other simulators can reproduce path choices.
  EXPECT_EQ(splitmix64(0), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(route_hash(0, 0, 0), splitmix64(splitmix64(splitmix64(0))));
}

}  // namespace
}  // namespace sim::net
