// `dcsim flows` input: the flows CSV read against a small leaf-spine topology, and the flows
// then simulated and written when there are few enough. Rejections are std::invalid_argument naming
// the file and the line.

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/network/flows_tool.hpp"
#include "sim/network/topology_config.hpp"

namespace {

const sim::net::Topology& topology() {
  static const sim::net::Topology t = sim::net::load_topology(
      nlohmann::json{{"spines", 2}, {"leaves", 2}, {"hosts_per_leaf", 2}}, "fuzz-topology.json");
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    const auto flows = sim::net::read_flows_csv(in, "fuzz.csv", topology());
    if (flows.size() <= 64) {
      // Written too: the times and sizes take dcsim's own decimal writers.
      std::ostringstream out;
      sim::net::write_flow_results(out, topology(), sim::net::simulate_flows(topology(), flows));
    }
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
