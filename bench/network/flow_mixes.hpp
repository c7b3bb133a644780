#pragma once
// Flashpoint-shaped flow sets for benchmarking the flow network (docs/performance.md "Network").
//
// Cold starts in Flashpoint (thesis §3.4, §5) move a whole model's weights to each GPU host that
// needs it, in bursts: a scale-out starts 1 to 8 replicas of one model at the same instant, each
// fetching the weights either from the cloud object store or from a host that already holds the
// model. A burst here is that: one model size (Flashpoint Table 3.1, 0.5 to 11.4 GB), 1 to 8
// distinct destination hosts (uniform), one source, all flows starting at the burst's instant.
// Bursts arrive as Poisson processes whose rates set the offered load:
//   - cloud bursts offer 0.8 of the store's egress capacity (every mix);
//   - host-sourced bursts offer 0.3 ("busy") or 0.6 ("storm") of the leaf->spine capacity,
//     counting only the flows that cross a spine ("cloud" has none).
// A host-sourced burst's source is a uniformly drawn host, standing in for one that holds the
// model (which host holds what is a policy's business, not the network's).
#include <cstdint>
#include <string>
#include <vector>

#include "sim/engine/random.hpp"
#include "sim/network/flows_tool.hpp"
#include "sim/network/topology.hpp"

namespace sim::bench {

enum class FlowMix : std::uint8_t { kCloud, kBusy, kStorm };

/// "cloud", "busy" or "storm"; throws std::invalid_argument naming the expected values.
FlowMix parse_flow_mix(const std::string& name);
std::string to_string(FlowMix mix);

/// Produces the flows of one mix in start order (ids 1, 2, ...), one at a time, so that a
/// million-flow run needs no list of all flows. Deterministic for a given topology, mix and seed.
class FlowMixGenerator {
 public:
  /// `topology` must have hosts, spines and a store named "cloud"; it must outlive the generator.
  FlowMixGenerator(const net::Topology& topology, FlowMix mix, std::uint64_t seed);

  /// The next flow (start times never decrease; the flows of a burst share one start).
  net::FlowSpec next();

  /// Offered burst rates (per second), for the report.
  [[nodiscard]] double cloud_burst_rate() const { return cloud_rate_; }
  [[nodiscard]] double host_burst_rate() const { return host_rate_; }

 private:
  void new_burst();

  const net::Topology& topology_;
  std::vector<net::NodeId> hosts_;
  std::size_t hosts_per_leaf_ = 0;
  net::NodeId cloud_ = 0;
  double cloud_rate_ = 0.0;  // bursts per second
  double host_rate_ = 0.0;
  RandomStream rng_;
  std::int64_t next_cloud_ns_ = 0;
  std::int64_t next_host_ns_ = 0;
  // The burst being emitted.
  std::vector<net::NodeId> burst_dsts_;
  std::size_t burst_next_ = 0;
  net::NodeId burst_src_ = 0;
  double burst_bytes_ = 0.0;
  std::int64_t burst_ns_ = 0;
  std::uint64_t next_id_ = 1;
};

/// The first `count` flows of a mix.
std::vector<net::FlowSpec> generate_flows(const net::Topology& topology, FlowMix mix,
                                          std::uint64_t seed, std::size_t count);

/// Writes the flows as a `dcsim flows` input (id,src,dst,bytes,start); start times are whole
/// nanoseconds written exactly.
void write_flows_csv(std::ostream& out, const net::Topology& topology,
                     const std::vector<net::FlowSpec>& flows);

}  // namespace sim::bench
