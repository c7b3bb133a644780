#pragma once
/// Equal-cost shortest paths and the deterministic choice of one of them per flow
/// (DESIGN.md "Network"; documented in docs/network.md "Path choice").
///
/// Cost is the hop count. For a destination d, a breadth-first search (boost::graph) gives every
/// node's distance to d; the equal-cost paths from s to d are the walks that decrease the
/// distance by one at each hop. They are numbered 0..n-1 in lexicographic order of the
/// (neighbour id, link id) choices made at each hop, and a flow takes path number
///   k = route_hash(s, d, key) mod n,
/// where `route_hash` is the splitmix64 chain given below and `key` is the flow's routing key
/// (its id by default). On a spine-leaf fabric the paths between hosts of different leaves are
/// numbered by spine, so path k crosses spine k.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <vector>

#include "sim/network/topology.hpp"

namespace sim::net {

/// splitmix64's finaliser (Steele, Lea, Flood 2014), used as a fixed, platform-independent mix.
std::uint64_t splitmix64(std::uint64_t x);
/// h = splitmix64(splitmix64(splitmix64(src) ^ dst) ^ key)
std::uint64_t route_hash(NodeId src, NodeId dst, std::uint64_t key);

/// A route: the channels crossed in order, and the nodes visited (src first, dst last).
struct Route {
  std::vector<ChannelId> channels;
  std::vector<NodeId> nodes;
  Time latency;  ///< sum of the links' one-way latencies
};

class RouteTable {
 public:
  /// Paths of up to kCachedHops channels, once walked, are kept in a two-way cache of
  /// `cache_entries` (rounded up to a power of two, at least 2; 0: none) keyed by (src, dst,
  /// path number), the last walked first in its pair: a flow set between few endpoints (every
  /// cloud-mix flow leaves the store) walks each path about once. An entry is one 64-byte cache
  /// line; the table is allocated at the first walk and its pages touched only where paths are
  /// kept (256 kB at most by default). Where paths rarely repeat it turns itself off for a while
  /// (use_cache). Results are the same with and without it.
  static constexpr std::size_t kCachedHops = 10;
  static constexpr std::size_t kDefaultCacheEntries = 4096;
  explicit RouteTable(const Topology& topology, std::size_t cache_entries = kDefaultCacheEntries);
  ~RouteTable();
  RouteTable(const RouteTable&) = delete;
  RouteTable& operator=(const RouteTable&) = delete;

  /// Number of equal-cost shortest paths from src to dst (0 if unreachable; saturates at 2^62).
  [[nodiscard]] std::uint64_t path_count(NodeId src, NodeId dst);
  /// Path number `index` (< path_count) in the documented order.
  [[nodiscard]] Route path(NodeId src, NodeId dst, std::uint64_t index);
  /// The path a flow with routing key `key` takes; if `via` is given, the route is the chosen
  /// path src->via followed by the chosen path via->dst (used to pin a spine). Throws
  /// std::invalid_argument if dst (or via) is unreachable. src == dst gives an empty route.
  [[nodiscard]] Route route(NodeId src, NodeId dst, std::uint64_t key,
                            std::optional<NodeId> via = std::nullopt);
  /// The same route written into `out` (cleared first; its buffers are reused, so a caller that
  /// keeps one Route routes without allocating). On a throw `out` holds a partial route.
  void route_into(Route& out, NodeId src, NodeId dst, std::uint64_t key,
                  std::optional<NodeId> via = std::nullopt);

 private:
  struct PerDestination {
    std::vector<std::uint32_t> distance;  ///< hops to the destination; kUnreachable if none
    std::vector<std::uint64_t> count;     ///< number of shortest paths to the destination
  };
  const PerDestination& towards(NodeId dst);
  void append(Route& r, NodeId src, NodeId dst, std::uint64_t key);
  /// Appends path number `index` from src (r.nodes already ends with src) to dst.
  void append_path(Route& r, NodeId src, NodeId dst, std::uint64_t index);
  /// The same for a path number k below path_count(src, dst) (> 0).
  void append_number(Route& r, NodeId src, NodeId dst, std::uint64_t k);
  /// path_count(src, dst) (src, dst < node_count) through a direct-mapped table of the pairs
  /// last asked: a route's count costs a look into 16 kB instead of a miss into the per-
  /// destination arrays (every cloud-mix flow leaves the store for one of ~300 hosts).
  std::uint64_t pair_count(NodeId src, NodeId dst);

  /// A walked path: its channels[0, hops) (the nodes after src are where they lead) and their
  /// latency; src == dst == 0 with no hops is what a zeroed (never written) entry holds, which is
  /// also that path's true value.
  struct alignas(64) CachedPath {
    NodeId src;
    NodeId dst;
    std::uint32_t number;  ///< the path number, below path_count(src, dst)
    std::uint32_t hops;
    std::array<ChannelId, kCachedHops> channels;
    Time latency;
  };
  static_assert(sizeof(CachedPath) == 64);
  struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
  };
  /// Whether this walk goes through the cache: it is used in windows of kCacheWindow walks, and
  /// a window with fewer than a quarter hits turns it off for the next kCacheOff walks.
  bool use_cache();
  static constexpr std::uint32_t kCacheWindow = 4096;
  static constexpr std::uint32_t kCacheOff = 31 * kCacheWindow;
  /// The two entries (a 128-byte pair) where the path (src, dst, number) may be kept.
  CachedPath* cache_set(NodeId src, NodeId dst, std::uint64_t number);
  struct LinkGraph;  // the boost::graph of the links, built at the first search
  struct PairCount {
    NodeId src = ~NodeId{0};  // ~0: empty (no node has that id)
    NodeId dst = ~NodeId{0};
    std::uint64_t count = 0;
  };
  static constexpr std::size_t kPairCounts = 1024;

  const Topology& topology_;
  std::vector<std::optional<PerDestination>> cache_;  // indexed by destination, filled lazily
  std::unique_ptr<LinkGraph> graph_;
  std::vector<NodeId> order_scratch_;  ///< towards()'s order of discovery, kept across calls
  std::size_t path_cache_mask_;        ///< entries - 1 (entries a power of two), or ~0 for none
  std::unique_ptr<void, FreeDeleter> paths_memory_;  ///< calloc'ed at the first walk
  CachedPath* paths_ = nullptr;                      ///< in paths_memory_, 128-byte aligned
  std::uint32_t window_left_ = kCacheWindow;         ///< walks left in this window
  std::uint32_t window_hits_ = 0;                    ///< hits in it
  std::uint32_t off_left_ = 0;                       ///< walks left without the cache
  std::vector<PairCount> pair_counts_;               ///< kPairCounts, allocated at first use
};

}  // namespace sim::net
