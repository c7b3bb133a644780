// simgrid_flows: replays a `dcsim flows` input on SimGrid's flow-level network model, to compare
// dcsim's max-min solver with SimGrid's on identical inputs (docs/performance.md "Network").
//
//   simgrid_flows TOPOLOGY.json FLOWS.csv OUT.csv [--cfg=name:value ...]
//
// Writes `id,finish_s`. The model is SimGrid's CM02 (max-min fairness, no latency- or
// bandwidth-correction factors) with the given --cfg options on top of these defaults:
// network/model:CM02, network/optim:Full, network/crosstraffic:0 (no reverse ACK flows: dcsim
// models none), network/weight-S:0 (plain max-min, not RTT-weighted), network/TCP-gamma:0.
//
// Choices that make both simulators solve the same problem:
//  - Each channel (link direction) of the dcsim topology is one SimGrid link of the same
//    capacity, so both directions of a full-duplex link are independent as in dcsim.
//  - Routes are dcsim's own (RouteTable, routing key = flow id, the optional pinned spine), so
//    equal-cost path choice cannot differ. SimGrid's full zone holds one route per host pair, so
//    each dcsim node is represented by one SimGrid host per spine its flows cross ("variant").
//  - Links have zero latency and the dcsim route latency is added to SimGrid's finish time:
//    SimGrid holds a flow's bandwidth back until its latency has elapsed, dcsim starts it at once
//    and delivers the last byte one route latency after the fluid end (docs/network.md "Timing").
//  - The per-flow cap of the end hosts (dcsim's host_flow_cap) is a FATPIPE link on the route
//    (it limits every flow crossing it to its bandwidth without sharing), one per route: a
//    single cap link shared by all routes would join every flow into one component of SimGrid's
//    solver and defeat its partial updates. Comm::set_rate() is not used: on host-to-host comms
//    (sendto) SimGrid 3.32 did not apply it in our runs.
#include <fmt/format.h>

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "sim/network/flows_tool.hpp"
#include "sim/network/route_table.hpp"
#include "sim/network/topology_config.hpp"

namespace {

namespace s4u = simgrid::s4u;
using sim::net::NodeId;

struct Prepared {
  s4u::Host* src = nullptr;
  s4u::Host* dst = nullptr;
  double bytes = 0.0;
  double start_s = 0.0;
  double latency_s = 0.0;
  double finish_s = 0.0;
};

}  // namespace

int main(int argc, char** argv) {
  // Defaults first, so that --cfg options on the command line override them.
  std::vector<std::string> arg_strings{argv[0],
                                       "--cfg=network/model:CM02",
                                       "--cfg=network/optim:Full",
                                       "--cfg=network/crosstraffic:0",
                                       "--cfg=network/weight-S:0",
                                       "--cfg=network/TCP-gamma:0"};
  for (int i = 1; i < argc; ++i)
    arg_strings.emplace_back(argv[i]);
  std::vector<char*> args;
  for (auto& a : arg_strings)
    args.push_back(a.data());
  args.push_back(nullptr);
  argc = static_cast<int>(arg_strings.size());
  argv = args.data();
  s4u::Engine engine(&argc, argv);  // consumes the --cfg=... arguments
  if (argc != 4) {
    std::cerr << "usage: simgrid_flows TOPOLOGY.json FLOWS.csv OUT.csv [--cfg=name:value ...]\n";
    return 2;
  }
  const sim::net::Topology topology = sim::net::load_topology_file(argv[1]);
  std::vector<sim::net::FlowSpec> specs;
  {
    std::ifstream in(argv[2]);
    if (!in) {
      std::cerr << argv[2] << ": cannot open the flows file\n";
      return 1;
    }
    specs = sim::net::read_flows_csv(in, argv[2], topology);
  }

  auto* zone = s4u::create_full_zone("datacenter");
  std::vector<s4u::Link*> links(topology.channel_count());
  for (sim::net::ChannelId c = 0; c < topology.channel_count(); ++c) {
    links[c] = zone->create_link(fmt::format("c{}", c), topology.channel_capacity_bps(c) / 8.0)
                   ->set_latency(0.0)
                   ->seal();
  }
  sim::net::RouteTable routes(topology);
  std::map<std::pair<NodeId, NodeId>, s4u::Host*> hosts;  // (node, variant) -> host
  auto host = [&](NodeId node, NodeId variant) {
    auto [it, fresh] = hosts.try_emplace({node, variant}, nullptr);
    if (fresh) {
      it->second = zone->create_host(fmt::format("n{}v{}", node, variant), 1e9)->seal();
    }
    return it->second;
  };
  std::map<std::tuple<NodeId, NodeId, NodeId>, bool> routed;
  std::size_t cap_links = 0;
  std::vector<Prepared> flows(specs.size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const sim::net::FlowSpec& f = specs[i];
    const sim::net::Route r = routes.route(f.src, f.dst, f.id, f.spine);
    NodeId variant = 0;  // the first spine crossed, 0 if none
    for (const NodeId n : r.nodes) {
      if (topology.node(n).kind == sim::net::NodeKind::kSpine) {
        variant = n + 1;
        break;
      }
    }
    Prepared& p = flows[i];
    p.src = host(f.src, variant);
    p.dst = host(f.dst, variant);
    if (f.src != f.dst && !routed[{f.src, f.dst, variant}]) {
      routed[{f.src, f.dst, variant}] = true;
      std::vector<s4u::LinkInRoute> path;
      for (const sim::net::ChannelId c : r.channels)
        path.emplace_back(links[c]);
      double cap = std::numeric_limits<double>::infinity();
      for (const NodeId n : {f.src, f.dst}) {
        if (const auto& c = topology.node(n).flow_cap_bps) cap = std::min(cap, *c);
      }
      if (std::isfinite(cap)) {
        path.emplace_back(zone->create_link(fmt::format("cap{}", ++cap_links), cap / 8.0)
                              ->set_sharing_policy(s4u::Link::SharingPolicy::FATPIPE)
                              ->set_latency(0.0)
                              ->seal());
      }
      zone->add_route(p.src->get_netpoint(), p.dst->get_netpoint(), nullptr, nullptr, path, false);
    }
    p.bytes = f.bytes;
    p.start_s = f.start.to_seconds();
    p.latency_s = r.latency.to_seconds();
  }
  zone->seal();

  std::vector<std::size_t> order(flows.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return flows[a].start_s < flows[b].start_s;
  });
  s4u::Actor::create("driver", flows.empty() ? host(0, 0) : flows[order[0]].src, [&] {
    std::vector<std::pair<std::size_t, s4u::CommPtr>> pending;
    pending.reserve(flows.size());
    for (const std::size_t i : order) {
      Prepared& p = flows[i];
      s4u::this_actor::sleep_until(p.start_s);
      s4u::CommPtr comm =
          s4u::Comm::sendto_async(p.src, p.dst, static_cast<std::uint64_t>(std::llround(p.bytes)));
      pending.emplace_back(i, std::move(comm));
    }
    for (auto& [i, comm] : pending) {
      comm->wait();
      flows[i].finish_s = comm->get_finish_time() + flows[i].latency_s;
    }
  });
  engine.run();

  std::FILE* out = std::fopen(argv[3], "w");
  if (out == nullptr) {
    std::cerr << argv[3] << ": cannot write the output file\n";
    return 1;
  }
  std::fprintf(out, "id,finish_s\n");
  for (std::size_t i = 0; i < flows.size(); ++i)
    std::fprintf(out, "%llu,%.17g\n", static_cast<unsigned long long>(specs[i].id),
                 flows[i].finish_s);
  std::fclose(out);
  return 0;
}
