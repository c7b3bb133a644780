#include "sim/network/route_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>
#include <stdexcept>

namespace sim::net {

namespace {
constexpr std::uint32_t kUnreachable = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint64_t kCountLimit = std::uint64_t{1} << 62;
}  // namespace

std::uint64_t splitmix64(std::uint64_t x) {
  std::uint64_t z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t route_hash(NodeId src, NodeId dst, std::uint64_t key) {
  return splitmix64(splitmix64(splitmix64(src) ^ dst) ^ key);
}

struct RouteTable::LinkGraph {
  boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS> g;
};

RouteTable::RouteTable(const Topology& topology, std::size_t cache_entries)
    : topology_(topology),
      cache_(topology.node_count()),
      path_cache_mask_(cache_entries == 0
                           ? ~std::size_t{0}
                           : std::bit_ceil(std::max<std::size_t>(cache_entries, 2)) - 1) {}

RouteTable::~RouteTable() = default;

RouteTable::CachedPath* RouteTable::cache_set(NodeId src, NodeId dst, std::uint64_t number) {
  if (paths_ == nullptr) {
    // calloc: fresh pages are zero without being written, so only the slots used are touched.
    const std::size_t entries = path_cache_mask_ + 1;
    // Pairs on 128-byte boundaries (two lines the adjacent-line prefetch loads together).
    constexpr std::uintptr_t kPair = 2 * sizeof(CachedPath);
    void* p = std::calloc(entries + 2, sizeof(CachedPath));
    if (p == nullptr) throw std::bad_alloc();
    paths_memory_.reset(p);
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    paths_ = reinterpret_cast<CachedPath*>((address + kPair - 1) & ~(kPair - 1));
  }
  const std::uint64_t h =
      ((std::uint64_t{src} << 32 | dst) * 0x9e3779b97f4a7c15ULL) ^ (number * 0xc2b2ae3d27d4eb4fULL);
  return &paths_[static_cast<std::size_t>(splitmix64(h)) & path_cache_mask_ & ~std::size_t{1}];
}

namespace {
// A BFS visitor event recording the vertices in the order the search discovers them.
struct RecordDiscovery {
  using event_filter = boost::on_discover_vertex;
  std::vector<NodeId>* order;
  template <class Vertex, class Graph>
  void operator()(Vertex v, const Graph& /*graph*/) const {
    order->push_back(static_cast<NodeId>(v));
  }
};
}  // namespace

const RouteTable::PerDestination& RouteTable::towards(NodeId dst) {
  if (dst >= cache_.size()) {
    throw std::invalid_argument(fmt::format("route: node id {} does not exist", dst));
  }
  auto& slot = cache_[dst];
  if (slot) return *slot;

  // Hop distances to dst by breadth-first search over the undirected link graph (built once: a
  // graph per destination cost an allocation per node and link).
  const std::size_t n = topology_.node_count();
  if (!graph_) {
    graph_ = std::make_unique<LinkGraph>();
    graph_->g = decltype(graph_->g)(n);
    for (const auto& l : topology_.links())
      boost::add_edge(l.a, l.b, graph_->g);
  }
  const auto& g = graph_->g;
  std::vector<std::uint32_t> dist(n, kUnreachable);
  dist[dst] = 0;
  // The order of discovery is one of nondecreasing distance, which is all the counts need.
  std::vector<NodeId>& order = order_scratch_;
  order.clear();
  boost::breadth_first_search(
      g, boost::vertex(dst, g),
      boost::visitor(boost::make_bfs_visitor(std::make_pair(
          boost::record_distances(
              boost::make_iterator_property_map(dist.begin(), boost::get(boost::vertex_index, g)),
              boost::on_tree_edge()),
          RecordDiscovery{&order}))));

  // Shortest-path counts in order of increasing distance (a node's count is the sum of those of
  // its neighbours one hop nearer, all discovered before it).
  std::vector<std::uint64_t> count(n, 0);
  count[dst] = 1;
  for (const NodeId u : order) {
    if (u == dst) continue;
    std::uint64_t c = 0;
    for (const auto& adj : topology_.adjacent(u)) {
      if (dist[adj.neighbour] + 1 == dist[u]) c = std::min(kCountLimit, c + count[adj.neighbour]);
    }
    count[u] = c;
  }
  slot = PerDestination{std::move(dist), std::move(count)};
  return *slot;
}

std::uint64_t RouteTable::path_count(NodeId src, NodeId dst) {
  const auto& pd = towards(dst);
  if (src >= pd.count.size()) throw std::invalid_argument("route: source node does not exist");
  return pd.count[src];
}

Route RouteTable::path(NodeId src, NodeId dst, std::uint64_t index) {
  Route r;
  r.nodes.push_back(src);
  append_path(r, src, dst, index);
  return r;
}

bool RouteTable::use_cache() {
  if (off_left_ > 0) {
    --off_left_;
    return false;
  }
  if (--window_left_ == 0) {
    // Where paths rarely repeat (busy and storm hit 3%), looking them up and keeping them cost
    // more than the walks: the table's lines push out the per-destination tables the walks read.
    if (window_hits_ < kCacheWindow / 4) off_left_ = kCacheOff;
    window_left_ = kCacheWindow;
    window_hits_ = 0;
  }
  return true;
}

void RouteTable::append_path(Route& r, NodeId src, NodeId dst, std::uint64_t index) {
  const auto& pd = towards(dst);
  if (src >= pd.count.size() || pd.count[src] == 0) {
    throw std::invalid_argument(fmt::format("route: no path from \"{}\" to \"{}\"",
                                            topology_.node(src).name, topology_.node(dst).name));
  }
  append_number(r, src, dst, index % pd.count[src]);
}

std::uint64_t RouteTable::pair_count(NodeId src, NodeId dst) {
  if (pair_counts_.empty()) pair_counts_.assign(kPairCounts, PairCount{});
  const std::uint64_t h = (std::uint64_t{src} << 32 | dst) * 0x9e3779b97f4a7c15ULL;
  PairCount& e = pair_counts_[static_cast<std::size_t>(h >> 54) & (kPairCounts - 1)];
  if (e.src != src || e.dst != dst) {
    e.count = path_count(src, dst);
    e.src = src;
    e.dst = dst;
  }
  return e.count;
}

void RouteTable::append_number(Route& r, NodeId src, NodeId dst, std::uint64_t k) {
  CachedPath* set = nullptr;
  if (path_cache_mask_ != ~std::size_t{0} && use_cache()) {
    set = cache_set(src, dst, k);
    for (int way = 0; way < 2; ++way) {
      const CachedPath& e = set[way];
      if (e.src == src && e.dst == dst && e.number == k) {
        ++window_hits_;
        for (std::uint32_t i = 0; i < e.hops; ++i) {
          r.channels.push_back(e.channels[i]);
          r.nodes.push_back(topology_.channel_to(e.channels[i]));
        }
        r.latency += e.latency;  // the links' latencies in integer ns: the sum is the same
        return;
      }
    }
  }
  const auto& pd = towards(dst);
  const std::size_t first = r.channels.size();
  const std::size_t first_node = r.nodes.size();
  const Time latency_before = r.latency;
  const std::uint64_t number = k;
  NodeId u = src;
  while (u != dst) {
    bool moved = false;
    for (const auto& adj : topology_.adjacent(u)) {
      if (pd.distance[adj.neighbour] + 1 != pd.distance[u]) continue;
      const std::uint64_t c = pd.count[adj.neighbour];
      if (k < c) {
        r.channels.push_back(adj.out);
        r.latency += topology_.link(Topology::link_of(adj.out)).latency;
        u = adj.neighbour;
        r.nodes.push_back(u);
        moved = true;
        break;
      }
      k -= c;
    }
    if (!moved) {
      // Only reachable when counts saturated: fall back to the first shortest next hop.
      for (const auto& adj : topology_.adjacent(u)) {
        if (pd.distance[adj.neighbour] + 1 == pd.distance[u]) {
          r.channels.push_back(adj.out);
          r.latency += topology_.link(Topology::link_of(adj.out)).latency;
          u = adj.neighbour;
          r.nodes.push_back(u);
          k = 0;
          break;
        }
      }
    }
  }
  const std::size_t hops = r.channels.size() - first;
  if (set == nullptr || hops > kCachedHops || number > std::numeric_limits<std::uint32_t>::max() ||
      r.nodes.size() - first_node != hops) {
    return;
  }
  for (std::size_t i = 0; i < hops; ++i) {
    if (topology_.channel_to(r.channels[first + i]) != r.nodes[first_node + i]) return;
  }
  // The new path goes first, the one it displaces second (what was second is dropped).
  set[1] = set[0];
  CachedPath& e = set[0];
  e.src = src;
  e.dst = dst;
  e.number = static_cast<std::uint32_t>(number);
  e.hops = static_cast<std::uint32_t>(hops);
  std::copy(r.channels.begin() + static_cast<std::ptrdiff_t>(first), r.channels.end(),
            e.channels.begin());
  e.latency = r.latency - latency_before;
}

void RouteTable::append(Route& r, NodeId src, NodeId dst, std::uint64_t key) {
  if (src == dst) return;
  const std::uint64_t n = pair_count(src, dst);
  if (n == 0) {
    throw std::invalid_argument(fmt::format("route: no path from \"{}\" to \"{}\"",
                                            topology_.node(src).name, topology_.node(dst).name));
  }
  // Written straight into r (no temporary Route): with a reused r, routing allocates nothing.
  append_number(r, src, dst, route_hash(src, dst, key) % n);
}

Route RouteTable::route(NodeId src, NodeId dst, std::uint64_t key, std::optional<NodeId> via) {
  Route r;
  route_into(r, src, dst, key, via);
  return r;
}

void RouteTable::route_into(Route& out, NodeId src, NodeId dst, std::uint64_t key,
                            std::optional<NodeId> via) {
  if (src >= topology_.node_count() || dst >= topology_.node_count()) {
    throw std::invalid_argument("route: node id out of range");
  }
  out.channels.clear();
  out.nodes.clear();
  out.latency = Time::zero();
  out.nodes.push_back(src);
  if (via && *via != src && *via != dst) {
    append(out, src, *via, key);
    append(out, *via, dst, key);
  } else {
    append(out, src, dst, key);
  }
}

}  // namespace sim::net
