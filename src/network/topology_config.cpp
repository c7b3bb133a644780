#include "sim/network/topology_config.hpp"

#include <fmt/format.h>

#include <fstream>
#include <set>
#include <sstream>

#include "sim/config/diagnostics.hpp"
#include "sim/config/json_text.hpp"

namespace sim::net {

using config::ParamType;
using config::Schema;
using nlohmann::json;

namespace {

// Upper bounds keep a typo (an extra zero) from allocating without bound.
constexpr int kMaxSpines = 1024;
constexpr int kMaxLeaves = 4096;
constexpr int kMaxHostsPerLeaf = 4096;
constexpr long kMaxHosts = 1'000'000;
constexpr const char* kBorderName = "border";

std::shared_ptr<const Schema> tier_schema() {
  auto s = std::make_shared<Schema>("link_tier", "Bandwidth and latency of one tier of links.");
  s->add("bandwidth", ParamType::kBitrate).at_least(1).doc("capacity of each direction");
  s->add("latency", ParamType::kDuration).at_least(0).doc("one-way latency of the link");
  return s;
}

std::string check_attach(const json& v) {
  const std::string s = v.get<std::string>();
  if (s == "border") return "";
  for (const std::string prefix : {"leaf:", "spine:"}) {
    if (s.rfind(prefix, 0) == 0) {
      const std::string n = s.substr(prefix.size());
      if (!n.empty() && n.size() < 9 && n.find_first_not_of("0123456789") == std::string::npos) {
        return "";
      }
    }
  }
  return "expected \"border\", \"leaf:<index>\" or \"spine:<index>\", found " +
         config::describe_value(v);
}

std::shared_ptr<const Schema> store_schema() {
  auto s = std::make_shared<Schema>(
      "object_store", "An object-store node (the cloud store) with its own egress link.");
  s->add("name", ParamType::kString).doc("node name, unique in the topology");
  s->add("egress", ParamType::kBitrate).at_least(1).doc("bandwidth of the store's egress link");
  s->add("latency", ParamType::kDuration)
      .def("0s")
      .at_least(0)
      .doc("one-way latency of the egress link (0: the effective bandwidth already includes it)");
  s->add("attach", ParamType::kString)
      .def("border")
      .validate(check_attach)
      .doc(
          "where the egress link ends: \"border\" (a border leaf linked to every spine), "
          "\"leaf:<i>\" or \"spine:<i>\"");
  s->add("flow_cap", ParamType::kBitrate)
      .optional()
      .at_least(1)
      .doc("per-flow rate cap of flows from or to this store");
  return s;
}

}  // namespace

std::shared_ptr<const Schema> topology_schema() {
  auto s = std::make_shared<Schema>(
      "network",
      "Spine-leaf fabric: every leaf links to every spine, hosts hang off leaves, object stores "
      "attach through their own egress link. Defaults: the Flashpoint thesis datacenter "
      "(1600 GPUs on 200 hosts, §3.1 and §8.2).");
  const auto tier = tier_schema();  // one instance, so generated docs list it once
  s->add("spines", ParamType::kInteger)
      .def(4)
      .at_least(1)
      .at_most(kMaxSpines)
      .doc(
          "number of spine switches (assumption for the thesis fabric: not stated; 4 gives 2.5:1 "
          "leaf oversubscription)");
  s->add("leaves", ParamType::kInteger)
      .def(10)
      .at_least(1)
      .at_most(kMaxLeaves)
      .doc("number of leaf (top-of-rack) switches");
  s->add("hosts_per_leaf", ParamType::kInteger)
      .def(20)
      .at_least(1)
      .at_most(kMaxHostsPerLeaf)
      .doc("hosts under each leaf");
  s->object("host_link", tier)
      .def(json{{"bandwidth", "50Gbps"}, {"latency", "1us"}})
      .doc("host-leaf links");
  s->object("spine_link", tier)
      .def(json{{"bandwidth", "100Gbps"}, {"latency", "1us"}})
      .doc("leaf-spine links");
  s->object("border_link", tier)
      .def(json{{"bandwidth", "100Gbps"}, {"latency", "1us"}})
      .doc("border-spine links (only built when a store attaches to the border)");
  s->add("host_flow_cap", ParamType::kBitrate)
      .optional()
      .at_least(1)
      .doc("per-flow rate cap of every flow from or to a host (effective TCP throughput)");
  s->list_of("object_stores", store_schema())
      .def(json::array({json{{"name", "cloud"}, {"egress", "2203Mbps"}}}))
      .doc("object-store nodes");
  s->add("provenance", ParamType::kAny)
      .optional()
      .doc("free-form sources and assumptions of the numbers (not read by the simulator)");
  return s;
}

Topology build_topology(const json& resolved, const std::string& file, const std::string& pointer) {
  config::Diagnostics diag(file);
  const int spines = resolved.at("spines").get<int>();
  const int leaves = resolved.at("leaves").get<int>();
  const int per_leaf = resolved.at("hosts_per_leaf").get<int>();
  if (static_cast<long>(leaves) * per_leaf > kMaxHosts) {
    diag.error(pointer + "/hosts_per_leaf",
               fmt::format("expected at most {} hosts in total, found {} leaves x {} hosts",
                           kMaxHosts, leaves, per_leaf));
    diag.throw_if_errors();
  }
  const json& host_link = resolved.at("host_link");
  const json& spine_link = resolved.at("spine_link");
  const json& border_link = resolved.at("border_link");
  std::optional<double> host_cap;
  if (resolved.contains("host_flow_cap")) host_cap = config::get_bitrate(resolved, "host_flow_cap");

  Topology t;
  std::vector<NodeId> spine_ids;
  std::vector<NodeId> leaf_ids;
  for (int i = 0; i < spines; ++i)
    spine_ids.push_back(t.add_node(fmt::format("spine{}", i), NodeKind::kSpine));
  for (int j = 0; j < leaves; ++j)
    leaf_ids.push_back(t.add_node(fmt::format("leaf{}", j), NodeKind::kLeaf));
  for (int j = 0; j < leaves; ++j) {
    for (int i = 0; i < spines; ++i) {
      t.add_link(leaf_ids[j], spine_ids[i], config::get_bitrate(spine_link, "bandwidth"),
                 config::get_duration(spine_link, "latency"));
    }
  }
  for (int j = 0; j < leaves; ++j) {
    for (int h = 0; h < per_leaf; ++h) {
      const NodeId host =
          t.add_node(fmt::format("host{}", j * per_leaf + h), NodeKind::kHost, host_cap);
      t.add_link(host, leaf_ids[j], config::get_bitrate(host_link, "bandwidth"),
                 config::get_duration(host_link, "latency"));
    }
  }

  std::optional<NodeId> border;
  std::set<std::string> names;
  const json& stores = resolved.at("object_stores");
  for (std::size_t k = 0; k < stores.size(); ++k) {
    const json& st = stores[k];
    const std::string where = fmt::format("{}/object_stores/{}", pointer, k);
    const std::string name = st.at("name").get<std::string>();
    if (name.empty()) {
      diag.error(where + "/name", "expected a non-empty node name, found \"\"");
      continue;
    }
    // "border" is the border leaf's name, built on demand when a store attaches there: a
    // store of that name would clash with it whichever of the two comes first.
    if (name == kBorderName) {
      diag.error(where + "/name", "the node name \"border\" is reserved for the border leaf");
      continue;
    }
    if (t.find(name) || !names.insert(name).second) {
      diag.error(where + "/name", fmt::format("the node name \"{}\" is already taken", name));
      continue;
    }
    const std::string attach = st.at("attach").get<std::string>();
    NodeId to = 0;
    if (attach == "border") {
      if (!border) {
        border = t.add_node(kBorderName, NodeKind::kLeaf);
        for (const NodeId sp : spine_ids) {
          t.add_link(*border, sp, config::get_bitrate(border_link, "bandwidth"),
                     config::get_duration(border_link, "latency"));
        }
      }
      to = *border;
    } else {
      const bool is_leaf = attach.rfind("leaf:", 0) == 0;
      const long index = std::stol(attach.substr(is_leaf ? 5 : 6));
      const auto& ids = is_leaf ? leaf_ids : spine_ids;
      if (index < 0 || index >= static_cast<long>(ids.size())) {
        diag.error(where + "/attach", fmt::format("expected a {} index below {}, found \"{}\"",
                                                  is_leaf ? "leaf" : "spine", ids.size(), attach));
        continue;
      }
      to = ids[static_cast<std::size_t>(index)];
    }
    std::optional<double> cap;
    if (st.contains("flow_cap")) cap = config::get_bitrate(st, "flow_cap");
    const NodeId store = t.add_node(name, NodeKind::kStore, cap);
    t.add_link(store, to, config::get_bitrate(st, "egress"), config::get_duration(st, "latency"));
  }
  diag.throw_if_errors();
  return t;
}

Topology load_topology(const json& raw, const std::string& file, const std::string& pointer) {
  config::Diagnostics diag(file);
  const json resolved = topology_schema()->resolve(raw, pointer, diag);
  diag.throw_if_errors();
  return build_topology(resolved, file, pointer);
}

Topology load_topology_file(const std::string& path) {
  return load_topology(config::read_json_document(path), path);
}

}  // namespace sim::net
