// Topology JSON (the scenario's "network" section and `dcsim flows --topology` files): the
// input resolved against the schema and built. Rejections are ConfigError naming the file and
// the JSON path. An accepted fabric must be usable: every store reaches the first and the last
// host, and every route is a walk of adjacent channels from its source to its destination
// whose latency is the sum of its links'.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/config/diagnostics.hpp"
#include "sim/config/json_text.hpp"
#include "sim/network/route_table.hpp"
#include "sim/network/topology_config.hpp"

namespace {

using sim::net::NodeId;

// The schema allows 1e6 hosts (a 4 s, 650 MB build): larger fabrics are skipped so that one
// input stays within milliseconds; building at that size has its own benchmark.
constexpr double kMaxFuzzHosts = 4096;

void check_route(const sim::net::Topology& t, const sim::net::Route& r, NodeId src, NodeId dst) {
  if (r.nodes.empty() || r.nodes.front() != src || r.nodes.back() != dst) __builtin_trap();
  if (r.channels.size() + 1 != r.nodes.size()) __builtin_trap();
  sim::Time latency = sim::Time::zero();
  for (std::size_t i = 0; i < r.channels.size(); ++i) {
    const auto& link = t.link(r.channels[i] / 2);
    const bool forward = r.channels[i] % 2 == 0;
    const NodeId from = forward ? link.a : link.b;
    const NodeId to = forward ? link.b : link.a;
    if (from != r.nodes[i] || to != r.nodes[i + 1]) __builtin_trap();
    latency = latency + link.latency;
  }
  if (latency != r.latency) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto raw = sim::config::parse_json_text(text, "topology.json");
    if (raw.is_object()) {
      const auto number = [&](const char* key, double fallback) {
        const auto it = raw.find(key);
        return it != raw.end() && it->is_number() ? it->get<double>() : fallback;
      };
      // Defaults: the Flashpoint datacenter, 10 leaves x 20 hosts.
      if (number("leaves", 10) * number("hosts_per_leaf", 20) > kMaxFuzzHosts) return 0;
    }
    const auto topology = sim::net::load_topology(raw, "topology.json");
    sim::net::RouteTable routes(topology);
    NodeId first_host = 0;
    NodeId last_host = 0;
    bool any_host = false;
    for (NodeId n = 0; n < topology.node_count(); ++n) {
      if (topology.node(n).kind != sim::net::NodeKind::kHost) continue;
      if (!any_host) first_host = n;
      last_host = n;
      any_host = true;
    }
    if (!any_host) return 0;
    for (NodeId n = 0; n < topology.node_count(); ++n) {
      if (topology.node(n).kind != sim::net::NodeKind::kStore) continue;
      for (const NodeId host : {first_host, last_host}) {
        if (routes.path_count(n, host) == 0) __builtin_trap();  // a store that reaches no host
        check_route(topology, routes.route(n, host, 7), n, host);
      }
    }
    if (first_host != last_host) {
      check_route(topology, routes.route(first_host, last_host, 1), first_host, last_host);
    }
  } catch (const sim::config::ConfigError&) {
  }
  return 0;
}
