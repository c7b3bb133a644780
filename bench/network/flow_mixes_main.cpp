// bench_flow_mixes: the Flashpoint-shaped flow sets of docs/performance.md "Network".
//
//   bench_flow_mixes generate MIX N OUT.csv [SEED]
//       writes the first N flows of MIX (cloud, busy, storm) as a `dcsim flows` input.
//   bench_flow_mixes run MIX N [SEED] [--finish OUT.csv] [--one-by-one]
//       runs them in this process on dcsim's FlowNetwork, generating flows as they start (memory
//       follows the flows in flight, not N); prints CPU time, flows in flight and peak RSS. A
//       burst's flows start in one BatchUpdate, or each with its own recomputation
//       (--one-by-one). --finish writes id,finish_s of every flow.
//   bench_flow_mixes flows --topology T.json --flows F.csv --out OUT.csv [--columns LIST]
//       what `dcsim flows` does (run_flows_tool), without the rest of the CLI.
//   bench_flow_mixes compare MIX N --dcsim PATH [--dcsim-before PATH] [--simgrid PATH]
//                    [--dcsim-columns LIST] [--repeat R] [--dir DIR] [SEED]
//       writes the flow set to DIR, runs each program R times as its own process on it (CPU time
//       of the child: user + system), and prints the times (median, min, max), their ratios and
//       the largest finish-time differences. --dcsim-columns adds a series `dcsim-columns`: the
//       --dcsim program with `--columns LIST` (e.g. id,finish_s, what simgrid_flows writes; LIST
//       must hold id and finish_s, which the finish-time comparison reads).
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "flow_mixes.hpp"
#include "sim/network/flow_network.hpp"
#include "sim/network/flows_tool.hpp"
#include "sim/network/topology_config.hpp"

namespace {

using namespace sim;

constexpr std::uint64_t kDefaultSeed = 2024;

std::string topology_path() {
  return std::string(SIM_DATA_DIR_BENCH) + "/topologies/flashpoint-datacenter.json";
}

double cpu_seconds(const rusage& r) {
  return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

int cmd_generate(const std::vector<std::string>& args) {
  if (args.size() < 3) throw std::invalid_argument("generate: expected MIX N OUT.csv [SEED]");
  const net::Topology topology = net::load_topology_file(topology_path());
  const auto flows = bench::generate_flows(topology, bench::parse_flow_mix(args[0]),
                                           args.size() > 3 ? std::stoull(args[3]) : kDefaultSeed,
                                           std::stoull(args[1]));
  std::ofstream out(args[2]);
  bench::write_flows_csv(out, topology, flows);
  return out ? 0 : 1;
}

// In-process run: every burst starts in one BatchUpdate (its flows share one start instant).
int cmd_run(const std::vector<std::string>& args) {
  std::vector<std::string> pos;
  std::optional<std::string> finish_path;
  bool one_by_one = false;  // start a burst's flows one recomputation each (no BatchUpdate)
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--finish" && i + 1 < args.size()) {
      finish_path = args[++i];
    } else if (args[i] == "--one-by-one") {
      one_by_one = true;
    } else {
      pos.push_back(args[i]);
    }
  }
  if (pos.size() < 2)
    throw std::invalid_argument("run: expected MIX N [SEED] [--finish F] [--one-by-one]");
  const bench::FlowMix mix = bench::parse_flow_mix(pos[0]);
  const std::uint64_t total = std::stoull(pos[1]);
  const std::uint64_t seed = pos.size() > 2 ? std::stoull(pos[2]) : kDefaultSeed;
  const net::Topology topology = net::load_topology_file(topology_path());
  std::ofstream finish_out;
  if (finish_path) {
    finish_out.open(*finish_path);
    finish_out << "id,finish_s\n";
  }

  const double cpu0 = process_cpu_seconds();
  Simulation sim(seed);
  net::FlowNetwork network(sim, topology);
  bench::FlowMixGenerator gen(topology, mix, seed);
  net::FlowSpec pending = gen.next();
  std::uint64_t started = 0;
  std::uint64_t finished = 0;
  std::size_t peak_in_flight = 0;
  double in_flight_sum = 0.0;  // sampled at every burst
  std::uint64_t bursts = 0;
  std::int64_t last_finish_ns = 0;
  std::function<void()> arrive = [&] {
    {
      std::optional<net::FlowNetwork::BatchUpdate> batch;
      if (!one_by_one) batch.emplace(network);
      while (started < total && pending.start == sim.now()) {
        const std::uint64_t id = pending.id;
        net::FlowOptions options;
        options.route_key = id;
        network.start(
            pending.src, pending.dst, pending.bytes,
            [&, id] {
              ++finished;
              last_finish_ns = sim.now().ns();
              if (finish_path) finish_out << fmt::format("{},{}\n", id, sim.now().to_seconds());
            },
            options);
        ++started;
        if (started < total) pending = gen.next();
      }
    }
    ++bursts;
    peak_in_flight = std::max(peak_in_flight, network.active_flows());
    in_flight_sum += static_cast<double>(network.active_flows());
    if (started < total) sim.schedule_at(pending.start, arrive);
  };
  sim.schedule_at(pending.start, arrive);
  sim.run();
  const double cpu = process_cpu_seconds() - cpu0;
  rusage self{};
  getrusage(RUSAGE_SELF, &self);
  const auto& st = network.stats();
  fmt::print(
      "mix={} flows={} finished={} cpu_s={:.3f} flows_per_s={:.0f} bursts={} "
      "mean_in_flight={:.1f} peak_in_flight={} simulated_s={:.0f} peak_rss_mb={:.1f} "
      "recomputations={} flows_solved={} rate_changes={} extra_rounds={} lowered_levels={} "
      "channels_solved={} channels_woken={}\n",
      bench::to_string(mix), total, finished, cpu, static_cast<double>(total) / cpu, bursts,
      in_flight_sum / static_cast<double>(std::max<std::uint64_t>(1, bursts)), peak_in_flight,
      static_cast<double>(last_finish_ns) * 1e-9, static_cast<double>(self.ru_maxrss) / 1024.0,
      st.recomputations, st.flows_solved, st.rate_changes, st.extra_rounds, st.lowered_levels,
      st.channels_solved, st.channels_woken);
  return finished == total ? 0 : 1;
}

struct Timing {
  double cpu_s = 0.0;
  double wall_s = 0.0;
};

Timing run_child(const std::vector<std::string>& argv) {
  std::vector<char*> cargv;
  for (const auto& a : argv)
    cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    execv(cargv[0], cargv.data());
    std::perror(cargv[0]);
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid) throw std::runtime_error("wait4 failed");
  const auto t1 = std::chrono::steady_clock::now();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error(fmt::format("{} failed (status {})", argv[0], status));
  }
  return Timing{cpu_seconds(usage), std::chrono::duration<double>(t1 - t0).count()};
}

// id -> finish time in seconds, from a CSV with columns `id` and `finish_s`.
std::map<std::uint64_t, double> read_finish(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  {
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ','))
      header.push_back(cell);
  }
  const auto col = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) throw std::runtime_error(path + ": no column " + name);
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t id_col = col("id");
  const std::size_t finish_col = col("finish_s");
  std::map<std::uint64_t, double> out;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ','))
      cells.push_back(cell);
    out[std::stoull(cells[id_col])] = std::stod(cells[finish_col]);
  }
  return out;
}

struct Diff {
  double max_abs_s = 0.0;
  double max_over_tolerance = 0.0;  // |diff| / (1e-6 s + 1e-9 * duration); <= 1 passes
};

Diff compare_finish(const std::vector<net::FlowSpec>& flows,
                    const std::map<std::uint64_t, double>& a,
                    const std::map<std::uint64_t, double>& b) {
  Diff d;
  for (const net::FlowSpec& f : flows) {
    const double fa = a.at(f.id);
    const double fb = b.at(f.id);
    const double diff = std::fabs(fa - fb);
    const double duration = std::max(fa, fb) - f.start.to_seconds();
    d.max_abs_s = std::max(d.max_abs_s, diff);
    d.max_over_tolerance = std::max(d.max_over_tolerance, diff / (1e-6 + 1e-9 * duration));
  }
  return d;
}

struct Series {
  std::string name;
  std::vector<std::string> argv;
  std::string out;
  std::vector<Timing> runs;
  [[nodiscard]] double median_cpu() const {
    std::vector<double> v;
    for (const auto& t : runs)
      v.push_back(t.cpu_s);
    std::sort(v.begin(), v.end());
    return v.size() % 2 == 1 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  }
};

int cmd_compare(const std::vector<std::string>& args) {
  std::vector<std::string> pos;
  std::string dcsim;
  std::string before;
  std::string simgrid;
  std::string columns;
  std::string dir = ".";
  int repeat = 3;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw std::invalid_argument(args[i] + ": expected a value");
      return args[++i];
    };
    if (args[i] == "--dcsim") {
      dcsim = value();
    } else if (args[i] == "--dcsim-before") {
      before = value();
    } else if (args[i] == "--simgrid") {
      simgrid = value();
    } else if (args[i] == "--dcsim-columns") {
      columns = value();
    } else if (args[i] == "--dir") {
      dir = value();
    } else if (args[i] == "--repeat") {
      repeat = std::stoi(value());
    } else {
      pos.push_back(args[i]);
    }
  }
  if (pos.size() < 2 || dcsim.empty()) {
    throw std::invalid_argument("compare: expected MIX N --dcsim PATH [...]");
  }
  if (!columns.empty()) {  // checked before any run
    std::vector<net::FlowColumn> chosen;
    try {
      chosen = net::parse_flow_columns(columns);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("--dcsim-columns: ") + e.what());
    }
    for (const net::FlowColumn needed : {net::FlowColumn::kId, net::FlowColumn::kFinishS}) {
      if (std::find(chosen.begin(), chosen.end(), needed) == chosen.end()) {
        throw std::invalid_argument(fmt::format(
            "--dcsim-columns: expected a list with id and finish_s (the finish times are "
            "compared), found \"{}\"",
            columns));
      }
    }
  }
  const bench::FlowMix mix = bench::parse_flow_mix(pos[0]);
  const std::uint64_t total = std::stoull(pos[1]);
  const std::uint64_t seed = pos.size() > 2 ? std::stoull(pos[2]) : kDefaultSeed;
  const net::Topology topology = net::load_topology_file(topology_path());
  const auto flows = bench::generate_flows(topology, mix, seed, total);
  std::filesystem::create_directories(dir);
  const std::string stem = fmt::format("{}/{}-{}", dir, bench::to_string(mix), total);
  const std::string flows_csv = stem + "-flows.csv";
  {
    std::ofstream out(flows_csv);
    bench::write_flows_csv(out, topology, flows);
  }
  std::vector<Series> series;
  const auto dcsim_series = [&](const std::string& name, const std::string& exe,
                                const std::string& chosen) {
    const std::string out = fmt::format("{}-{}.csv", stem, name);
    std::vector<std::string> argv = {exe,       "flows",   "--topology", topology_path(),
                                     "--flows", flows_csv, "--out",      out};
    if (!chosen.empty()) {
      argv.push_back("--columns");
      argv.push_back(chosen);
    }
    series.push_back(Series{name, argv, out, {}});
  };
  dcsim_series("dcsim", dcsim, "");
  if (!before.empty()) dcsim_series("dcsim-before", before, "");
  if (!columns.empty()) dcsim_series("dcsim-columns", dcsim, columns);
  if (!simgrid.empty()) {
    const std::string out = stem + "-simgrid.csv";
    series.push_back(Series{"simgrid", {simgrid, topology_path(), flows_csv, out}, out, {}});
  }
  // Interleaved, so that load from other processes on the machine hits every program alike.
  for (int r = 0; r < repeat; ++r) {
    for (auto& s : series)
      s.runs.push_back(run_child(s.argv));
  }
  const auto reference = read_finish(series[0].out);
  fmt::print("mix={} flows={} seed={} repeats={}{}\n", bench::to_string(mix), total, seed, repeat,
             columns.empty() ? "" : " dcsim-columns=" + columns);
  for (const auto& s : series) {
    double lo = 1e300;
    double hi = 0.0;
    for (const auto& t : s.runs) {
      lo = std::min(lo, t.cpu_s);
      hi = std::max(hi, t.cpu_s);
    }
    const Diff d = compare_finish(flows, reference, read_finish(s.out));
    fmt::print(
        "  {:<13} cpu_s median {:.3f} (min {:.3f}, max {:.3f})  ratio to dcsim {:.2f}  "
        "max |finish - dcsim| {:.3g} s ({:.3g} of the tolerance)\n",
        s.name, s.median_cpu(), lo, hi, s.median_cpu() / series[0].median_cpu(), d.max_abs_s,
        d.max_over_tolerance);
  }
  return 0;
}

}  // namespace

// Same arguments as `dcsim flows`, so that `compare` can time either program.
int cmd_flows(const std::vector<std::string>& args) {
  std::string topology;
  std::string flows;
  std::string out;
  std::vector<net::FlowColumn> columns(net::all_flow_columns().begin(),
                                       net::all_flow_columns().end());
  for (std::size_t i = 0; i + 1 < args.size(); i += 2) {
    if (args[i] == "--topology") {
      topology = args[i + 1];
    } else if (args[i] == "--flows") {
      flows = args[i + 1];
    } else if (args[i] == "--out") {
      out = args[i + 1];
    } else if (args[i] == "--columns") {
      try {
        columns = net::parse_flow_columns(args[i + 1]);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("flows: --columns: ") + e.what());
      }
    }
  }
  if (topology.empty() || flows.empty() || out.empty()) {
    throw std::invalid_argument(
        "flows: expected --topology T.json --flows F.csv --out OUT.csv [--columns LIST]");
  }
  net::run_flows_tool(topology, flows, out, columns);
  return 0;
}

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.empty()) throw std::invalid_argument("expected generate, run or compare");
    const std::string cmd = args[0];
    args.erase(args.begin());
    if (cmd == "generate") return cmd_generate(args);
    if (cmd == "run") return cmd_run(args);
    if (cmd == "compare") return cmd_compare(args);
    if (cmd == "flows") return cmd_flows(args);
    throw std::invalid_argument("expected generate, run or compare, found " + cmd);
  } catch (const std::exception& e) {
    std::cerr << "bench_flow_mixes: " << e.what() << '\n';
    return 2;
  }
}
