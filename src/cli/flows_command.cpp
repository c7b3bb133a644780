// dcsim flows: replay a list of flows on a topology with the max-min network model and write each
// flow's start and finish times, for comparison with other simulators on identical inputs.

#include <boost/program_options.hpp>

#include <string>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "sim/network/flows_tool.hpp"

namespace sim::cli {

namespace po = boost::program_options;

int flows_command(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description options(
      "usage: dcsim flows --topology T.json --flows F.csv [--out OUT.csv] [--columns LIST]\n\n"
      "Reads a topology (the scenario's \"network\" object, e.g. "
      "data/topologies/flashpoint-datacenter.json)\nand flows (CSV: "
      "id,src,dst,bytes,start[,spine]; "
      "start in seconds), runs them on the flow-level\nmax-min network model and writes "
      "id,src,dst,bytes,start_s,finish_s,duration_s,finish_ns,spine\nwith full double precision, "
      "or only the columns --columns names, in its order (docs/network.md).\n\noptions");
  options.add_options()("help,h", "show this help")(
      "topology", po::value<std::string>(), "topology JSON file")("flows", po::value<std::string>(),
                                                                  "flows CSV file")(
      "out,o", po::value<std::string>(), "output CSV (written atomically); default: stdout")(
      "columns", po::value<std::string>(),
      "output columns, comma-separated, in the order given (e.g. id,finish_s); each of id, src, "
      "dst, bytes, start_s, finish_s, duration_s, finish_ns, spine at most once; default: all "
      "nine in that order");
  const auto vm = parse_command_line(args, options);
  if (vm.count("help") != 0) {
    out << options << '\n';
    return kExitOk;
  }
  if (vm.count("topology") == 0 || vm.count("flows") == 0) {
    throw UsageError("--topology and --flows are required");
  }
  // Checked before anything is read or written.
  std::vector<net::FlowColumn> columns(net::all_flow_columns().begin(),
                                       net::all_flow_columns().end());
  if (vm.count("columns") != 0) {
    try {
      columns = net::parse_flow_columns(vm["columns"].as<std::string>());
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--columns: ") + e.what());
    }
  }
  const auto topology = vm["topology"].as<std::string>();
  const auto flows = vm["flows"].as<std::string>();
  if (vm.count("out") != 0) {
    const auto n = net::run_flows_tool(topology, flows, vm["out"].as<std::string>(), columns);
    err << "dcsim flows: " << n << " flows written to " << vm["out"].as<std::string>() << '\n';
  } else {
    net::run_flows_tool(topology, flows, out, columns);
  }
  return kExitOk;
}

}  // namespace sim::cli
