#include "flow_mixes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <ostream>
#include <stdexcept>

namespace sim::bench {

namespace {

// Model weights in bytes: Flashpoint Table 3.1 (the `size_mb` of data/models/flashpoint.json:
// CodeBERT, ALBERT-xxlarge, BART-large, DialoGPT-large, GPT2-XL, T5-3B).
constexpr std::array<double, 6> kModelBytes = {499e6, 890e6, 1626e6, 3135e6, 6282e6, 11408e6};
constexpr std::uint64_t kMaxDestinations = 8;
constexpr double kStoreLoad = 0.8;

double mean_model_bytes() {
  double sum = 0.0;
  for (const double b : kModelBytes)
    sum += b;
  return sum / static_cast<double>(kModelBytes.size());
}

double host_load(FlowMix mix) {
  switch (mix) {
    case FlowMix::kCloud:
      return 0.0;
    case FlowMix::kBusy:
      return 0.3;
    case FlowMix::kStorm:
      return 0.6;
  }
  return 0.0;
}

}  // namespace

FlowMix parse_flow_mix(const std::string& name) {
  if (name == "cloud") return FlowMix::kCloud;
  if (name == "busy") return FlowMix::kBusy;
  if (name == "storm") return FlowMix::kStorm;
  throw std::invalid_argument(
      fmt::format("flow mix: expected \"cloud\", \"busy\" or \"storm\", found \"{}\"", name));
}

std::string to_string(FlowMix mix) {
  switch (mix) {
    case FlowMix::kCloud:
      return "cloud";
    case FlowMix::kBusy:
      return "busy";
    case FlowMix::kStorm:
      return "storm";
  }
  return "?";
}

FlowMixGenerator::FlowMixGenerator(const net::Topology& topology, FlowMix mix, std::uint64_t seed)
    : topology_(topology),
      hosts_(topology.nodes_of_kind(net::NodeKind::kHost)),
      cloud_(topology.at("cloud")),
      rng_(seed) {
  const std::vector<net::NodeId> leaves = topology.nodes_of_kind(net::NodeKind::kLeaf);
  const std::vector<net::NodeId> spines = topology.nodes_of_kind(net::NodeKind::kSpine);
  if (hosts_.size() < kMaxDestinations + 1 || leaves.empty() || spines.empty()) {
    throw std::invalid_argument("flow mix: the topology needs 9+ hosts, leaves and spines");
  }
  hosts_per_leaf_ = hosts_.size() / leaves.size();
  // Store egress: the capacity of the store's own link (its only one).
  double store_bps = 0.0;
  double leaf_spine_bps = 0.0;  // every leaf->spine channel, one direction
  for (net::ChannelId c = 0; c < topology.channel_count(); ++c) {
    const net::Node& from = topology.node(topology.channel_from(c));
    const net::Node& to = topology.node(topology.channel_to(c));
    if (topology.channel_from(c) == cloud_) store_bps += topology.channel_capacity_bps(c);
    if (from.kind == net::NodeKind::kLeaf && to.kind == net::NodeKind::kSpine)
      leaf_spine_bps += topology.channel_capacity_bps(c);
  }
  const double mean_dsts = (1.0 + static_cast<double>(kMaxDestinations)) / 2.0;
  const double burst_bits = 8.0 * mean_model_bytes() * mean_dsts;
  cloud_rate_ = kStoreLoad * store_bps / burst_bits;
  // A destination drawn among the other hosts is on another leaf with this probability.
  const double n = static_cast<double>(hosts_.size());
  const double cross = (n - static_cast<double>(hosts_per_leaf_)) / (n - 1.0);
  host_rate_ = host_load(mix) * leaf_spine_bps / (burst_bits * cross);
  next_cloud_ns_ = static_cast<std::int64_t>(rng_.exponential(cloud_rate_) * 1e9);
  next_host_ns_ = host_rate_ > 0.0 ? static_cast<std::int64_t>(rng_.exponential(host_rate_) * 1e9)
                                   : std::numeric_limits<std::int64_t>::max();
}

void FlowMixGenerator::new_burst() {
  const bool from_cloud = next_cloud_ns_ <= next_host_ns_;
  if (from_cloud) {
    burst_ns_ = next_cloud_ns_;
    burst_src_ = cloud_;
    next_cloud_ns_ +=
        std::max<std::int64_t>(1, static_cast<std::int64_t>(rng_.exponential(cloud_rate_) * 1e9));
  } else {
    burst_ns_ = next_host_ns_;
    burst_src_ = hosts_[rng_.uniform_int(0, hosts_.size() - 1)];
    next_host_ns_ +=
        std::max<std::int64_t>(1, static_cast<std::int64_t>(rng_.exponential(host_rate_) * 1e9));
  }
  burst_bytes_ = kModelBytes[rng_.uniform_int(0, kModelBytes.size() - 1)];
  const std::uint64_t k = rng_.uniform_int(1, kMaxDestinations);
  burst_dsts_.clear();
  while (burst_dsts_.size() < k) {
    const net::NodeId d = hosts_[rng_.uniform_int(0, hosts_.size() - 1)];
    if (d == burst_src_ ||
        std::find(burst_dsts_.begin(), burst_dsts_.end(), d) != burst_dsts_.end())
      continue;
    burst_dsts_.push_back(d);
  }
  burst_next_ = 0;
}

net::FlowSpec FlowMixGenerator::next() {
  if (burst_next_ >= burst_dsts_.size()) new_burst();
  net::FlowSpec f;
  f.id = next_id_++;
  f.src = burst_src_;
  f.dst = burst_dsts_[burst_next_++];
  f.bytes = burst_bytes_;
  f.start = Time::from_ns(burst_ns_);
  return f;
}

std::vector<net::FlowSpec> generate_flows(const net::Topology& topology, FlowMix mix,
                                          std::uint64_t seed, std::size_t count) {
  FlowMixGenerator gen(topology, mix, seed);
  std::vector<net::FlowSpec> flows;
  flows.reserve(count);
  for (std::size_t i = 0; i < count; ++i)
    flows.push_back(gen.next());
  return flows;
}

void write_flows_csv(std::ostream& out, const net::Topology& topology,
                     const std::vector<net::FlowSpec>& flows) {
  out << "id,src,dst,bytes,start\n";
  for (const net::FlowSpec& f : flows) {
    const std::int64_t ns = f.start.ns();
    out << fmt::format("{},{},{},{},{}.{:09d}\n", f.id, topology.node(f.src).name,
                       topology.node(f.dst).name, f.bytes, ns / 1000000000, ns % 1000000000);
  }
}

}  // namespace sim::bench
