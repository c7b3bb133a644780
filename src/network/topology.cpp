#include "sim/network/topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/config/diagnostics.hpp"

namespace sim::net {

std::string to_string(NodeKind k) {
  switch (k) {
    case NodeKind::kHost:
      return "host";
    case NodeKind::kLeaf:
      return "leaf";
    case NodeKind::kSpine:
      return "spine";
    case NodeKind::kStore:
      return "store";
    case NodeKind::kSwitch:
      return "switch";
  }
  return "?";
}

NodeId Topology::add_node(std::string name, NodeKind kind, std::optional<double> flow_cap_bps) {
  if (name.empty()) throw std::invalid_argument("topology: a node name must not be empty");
  if (find(name)) {
    throw std::invalid_argument(fmt::format("topology: node \"{}\" is defined twice", name));
  }
  if (flow_cap_bps && !(*flow_cap_bps > 0.0 && std::isfinite(*flow_cap_bps))) {
    throw std::invalid_argument(
        fmt::format("topology: node \"{}\": the per-flow cap must be a positive bit rate, found {}",
                    name, *flow_cap_bps));
  }
  const auto id = static_cast<NodeId>(nodes_.size());
  by_name_.emplace(name, id);
  nodes_.push_back(Node{std::move(name), kind, flow_cap_bps});
  adjacency_.emplace_back();
  return id;
}

LinkId Topology::add_link(NodeId a, NodeId b, double capacity_bps, Time latency) {
  if (a >= nodes_.size() || b >= nodes_.size()) {
    throw std::invalid_argument(fmt::format(
        "topology: link {}-{} names a node that does not exist ({} nodes)", a, b, nodes_.size()));
  }
  if (a == b) {
    throw std::invalid_argument(
        fmt::format("topology: link from \"{}\" to itself is not allowed", nodes_[a].name));
  }
  if (!(capacity_bps > 0.0) || !std::isfinite(capacity_bps)) {
    throw std::invalid_argument(
        fmt::format("topology: link {}-{}: expected a positive finite capacity, found {} bit/s",
                    nodes_[a].name, nodes_[b].name, capacity_bps));
  }
  if (latency < Time::zero()) {
    throw std::invalid_argument(
        fmt::format("topology: link {}-{}: latency must be >= 0", nodes_[a].name, nodes_[b].name));
  }
  const auto id = static_cast<LinkId>(links_.size());
  links_.push_back(Link{a, b, capacity_bps, latency});
  // Keep adjacency sorted by (neighbour, link) so that path numbering does not depend on the
  // order in which links were added between different neighbours.
  auto insert = [this](NodeId from, Adjacent adj) {
    auto& v = adjacency_[from];
    const auto pos =
        std::upper_bound(v.begin(), v.end(), adj, [](const Adjacent& x, const Adjacent& y) {
          return x.neighbour < y.neighbour || (x.neighbour == y.neighbour && x.out < y.out);
        });
    v.insert(pos, adj);
  };
  insert(a, Adjacent{b, 2 * id});
  insert(b, Adjacent{a, 2 * id + 1});
  return id;
}

std::optional<NodeId> Topology::find(const std::string& name) const {
  const auto it = by_name_.find(name);
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

NodeId Topology::at(const std::string& name) const {
  if (auto id = find(name)) return *id;
  std::vector<std::string> names;
  names.reserve(nodes_.size());
  for (const auto& n : nodes_)
    names.push_back(n.name);
  const std::string near = config::nearest(name, names);
  throw std::invalid_argument(fmt::format("unknown node \"{}\"{}", name,
                                          near.empty() ? "" : " (did you mean \"" + near + "\"?)"));
}

std::vector<NodeId> Topology::nodes_of_kind(NodeKind kind) const {
  std::vector<NodeId> out;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].kind == kind) out.push_back(static_cast<NodeId>(i));
  }
  return out;
}

std::string Topology::channel_name(ChannelId c) const {
  return nodes_[channel_from(c)].name + "->" + nodes_[channel_to(c)].name;
}

}  // namespace sim::net
