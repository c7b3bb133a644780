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

#include <cstdint>
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
  explicit RouteTable(const Topology& topology);

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

  const Topology& topology_;
  std::vector<std::optional<PerDestination>> cache_;  // indexed by destination, filled lazily
};

}  // namespace sim::net
