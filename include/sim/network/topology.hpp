#pragma once
/// A network topology: named nodes joined by full-duplex links (DESIGN.md "Network").
///
/// Each link has two directions, each its own capacity ("channel"): traffic a->b never competes
/// with traffic b->a. Channel ids are dense: link i has channel 2i (from its first endpoint to its
/// second) and 2i+1 (the reverse). A topology is built once (programmatically with add_node /
/// add_link, or from the "network" scenario section with `build_topology`) and then only read.

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/engine/time.hpp"

namespace sim::net {

using NodeId = std::uint32_t;
using LinkId = std::uint32_t;
using ChannelId = std::uint32_t;  ///< one direction of a link: 2 * link + (0 forward, 1 reverse)

enum class NodeKind : std::uint8_t { kHost, kLeaf, kSpine, kStore, kSwitch };

std::string to_string(NodeKind k);

struct Node {
  std::string name;
  NodeKind kind = NodeKind::kSwitch;
  /// Per-flow rate cap (bits/s) of every flow that starts or ends at this node (e.g. the
  /// effective host-to-host TCP throughput); nullopt means no cap.
  std::optional<double> flow_cap_bps;
};

struct Link {
  NodeId a = 0;
  NodeId b = 0;
  double capacity_bps = 0.0;  ///< per direction
  Time latency;               ///< one way, same in both directions
};

class Topology {
 public:
  /// Adds a node; names must be unique and non-empty. Returns its id (ids are dense, in order).
  NodeId add_node(std::string name, NodeKind kind = NodeKind::kSwitch,
                  std::optional<double> flow_cap_bps = std::nullopt);
  /// Adds a full-duplex link with `capacity_bps` in each direction (> 0) and one-way `latency`
  /// (>= 0). Parallel links between the same two nodes are allowed (distinct equal-cost paths).
  LinkId add_link(NodeId a, NodeId b, double capacity_bps, Time latency = Time::zero());

  [[nodiscard]] std::size_t node_count() const { return nodes_.size(); }
  [[nodiscard]] std::size_t link_count() const { return links_.size(); }
  [[nodiscard]] std::size_t channel_count() const { return 2 * links_.size(); }
  [[nodiscard]] const Node& node(NodeId id) const { return nodes_.at(id); }
  [[nodiscard]] const Link& link(LinkId id) const { return links_.at(id); }
  [[nodiscard]] const std::vector<Node>& nodes() const { return nodes_; }
  [[nodiscard]] const std::vector<Link>& links() const { return links_; }

  /// The node called `name`; nullopt if there is none.
  [[nodiscard]] std::optional<NodeId> find(const std::string& name) const;
  /// The node called `name`; throws std::invalid_argument naming the nearest existing name.
  [[nodiscard]] NodeId at(const std::string& name) const;
  /// All nodes of one kind, in id order.
  [[nodiscard]] std::vector<NodeId> nodes_of_kind(NodeKind kind) const;

  // Channels (link directions).
  [[nodiscard]] static LinkId link_of(ChannelId c) { return c / 2; }
  [[nodiscard]] NodeId channel_from(ChannelId c) const {
    const Link& l = links_[c / 2];
    return (c % 2 == 0) ? l.a : l.b;
  }
  [[nodiscard]] NodeId channel_to(ChannelId c) const {
    const Link& l = links_[c / 2];
    return (c % 2 == 0) ? l.b : l.a;
  }
  [[nodiscard]] double channel_capacity_bps(ChannelId c) const {
    return links_[c / 2].capacity_bps;
  }
  /// "leaf0->spine1"
  [[nodiscard]] std::string channel_name(ChannelId c) const;

  /// Adjacent (neighbour, channel leaving this node) pairs, ordered by neighbour id, then link id.
  struct Adjacent {
    NodeId neighbour;
    ChannelId out;
  };
  [[nodiscard]] const std::vector<Adjacent>& adjacent(NodeId n) const { return adjacency_[n]; }

 private:
  std::vector<Node> nodes_;
  /// Name -> id: a linear search per added node made building 1e5 hosts take 13 s.
  std::unordered_map<std::string, NodeId> by_name_;
  std::vector<Link> links_;
  std::vector<std::vector<Adjacent>> adjacency_;
};

}  // namespace sim::net
