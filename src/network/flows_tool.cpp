// `dcsim flows`: the run of the flows read (flows_csv.cpp) on a FlowNetwork, bursts of equal
// start in one event each, and the command (run_flows_tool) that reads, runs and writes the rows
// (flows_rows.hpp).
#include "sim/network/flows_tool.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string_view>

#include "flows_csv.hpp"
#include "flows_huge_pages.hpp"
#include "flows_rows.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/network/flow_network.hpp"
#include "sim/network/topology_config.hpp"

namespace sim::net {

using flows_impl::FlowList;
using flows_impl::HugePageAllocator;
using flows_impl::kNoSpine;
using flows_impl::read_flows;
using flows_impl::RowFormatter;
using flows_impl::write_rows;

namespace {

// What a flow's run adds to its spec: 8 bytes plus 4, where a FlowResult (a copy of the spec and
// a string) takes 88; at 1e5 flows that is 1.2 MB instead of 8.8 MB to fault in and fill.
struct Outcome {
  Time finish;
  NodeId spine = kNoSpine;  ///< the route's first spine
};

// The bursts' start events, only the next one queued. Each burst takes its sequence number up
// front, as pushing them all before the run did (one per burst, in order), and its event is
// pushed with that number (push_reserved) when the previous burst runs: the queue orders by
// (time, sequence), so every event runs where it ran. 22,000 queued events at 1e5 flows cost a
// fifth of the run's page faults and a deeper queue for every completion.
template <class StartOf, class Run>
class BurstChain final : public SequenceHolder {
 public:
  BurstChain(EventQueue& queue, std::size_t n, StartOf start_of, const Run& run)
      : queue_(queue), start_of_(start_of), run_(run) {
    queue_.add_holder(this);  // first: taking a number may renumber the ones taken before
    sequences_.reserve(n);
    for (std::size_t j = 0; j < n; ++j)
      sequences_.push_back(queue_.take_sequence());
    if (n > 0) push(0);
  }
  BurstChain(const BurstChain&) = delete;
  BurstChain& operator=(const BurstChain&) = delete;
  ~BurstChain() {
    queued_.cancel();  // if a burst threw, the next one's event captures this
    queue_.remove_holder(this);
  }

  void held_sequences(std::vector<std::uint64_t>& out) const override {
    out.insert(out.end(), sequences_.begin() + static_cast<std::ptrdiff_t>(next_),
               sequences_.end());
  }
  void renumber_sequences(const std::vector<std::uint64_t>& sorted) override {
    for (std::size_t j = next_; j < sequences_.size(); ++j)
      sequences_[j] = EventQueue::renumbered_sequence(sorted, sequences_[j]);
  }

 private:
  // Two words captured (this and j): std::function keeps the event inline, no allocation.
  void push(std::size_t j) {
    next_ = j + 1;
    queued_ = queue_.push_reserved(start_of_(j), sequences_[j], [this, j] {
      if (j + 1 < sequences_.size()) push(j + 1);
      run_(j);
    });
  }

  EventQueue& queue_;
  StartOf start_of_;
  const Run& run_;
  std::vector<std::uint64_t> sequences_;  ///< by burst; those from next_ on are not pushed yet
  std::size_t next_ = 0;
  EventHandle queued_;
};

// `spines`: whether to find each route's first spine (Outcome::spine, the spine column); without
// it the outcomes' spines stay kNoSpine and no route is read back.
std::vector<Outcome, HugePageAllocator<Outcome>> run_flows(const Topology& topology,
                                                           std::span<const FlowSpec> flows,
                                                           bool spines = true) {
  Simulation sim;
  FlowNetwork net(sim, topology);
  std::vector<Outcome, HugePageAllocator<Outcome>> results(flows.size());
  // Flows that start at the same instant (a burst of cold-start downloads) start in one event and
  // one BatchUpdate: one rate recomputation instead of one per flow. Max-min fairness depends only
  // on the set of flows, so the rates are those of starting them one by one (docs/network.md
  // "Batches"); the order of input lines with equal start times is kept.
  // Inputs are usually in start order already: then the stable sort would keep the identity, and
  // the permutation (8 bytes a flow, a twentieth of a cloud run's page faults) is not built.
  const bool in_order =
      std::is_sorted(flows.begin(), flows.end(),
                     [](const FlowSpec& a, const FlowSpec& b) { return a.start < b.start; });
  std::vector<std::size_t> permutation;
  if (!in_order) {
    permutation.resize(flows.size());
    for (std::size_t i = 0; i < permutation.size(); ++i)
      permutation[i] = i;
    std::stable_sort(permutation.begin(), permutation.end(),
                     [&](std::size_t a, std::size_t b) { return flows[a].start < flows[b].start; });
  }
  const auto order = [&](std::size_t k) { return in_order ? k : permutation[k]; };
  const auto start_one = [&](std::size_t i) {
    const FlowSpec& f = flows[i];
    FlowOptions options;
    options.route_key = f.id;
    options.via = f.spine;
    FlowHandle h;
    try {
      // Two words, so that std::function keeps the callable inline (no allocation per flow);
      // results is sized once, so the pointer stays valid.
      h = net.start(
          f.src, f.dst, f.bytes, [out = &results[i], &sim] { out->finish = sim.now(); }, options);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("flow {} (line {}): {}", f.id, f.line, e.what()));
    }
    if (!spines) return;
    for (const NodeId n : net.route(h).nodes) {
      if (topology.node(n).kind == NodeKind::kSpine) {
        results[i].spine = n;
        break;
      }
    }
  };
  // Bursts as [begin, end) ranges of order; bursts[j + 1] ends burst j.
  // Counted first: sized once, without the copies and page faults of growing.
  const std::size_t n = flows.size();
  std::size_t burst_count = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (k == 0 || flows[order(k)].start != flows[order(k - 1)].start) ++burst_count;
  }
  std::vector<std::size_t> bursts;
  bursts.reserve(burst_count + 1);
  for (std::size_t b = 0; b < n;) {
    bursts.push_back(b);
    std::size_t e = b + 1;
    while (e < n && flows[order(e)].start == flows[order(b)].start)
      ++e;
    b = e;
  }
  bursts.push_back(n);
  const auto run_burst = [&](std::size_t j) {
    const FlowNetwork::BatchUpdate batch(net);
    for (std::size_t k = bursts[j]; k < bursts[j + 1]; ++k)
      start_one(order(k));
  };
  BurstChain chain(
      sim.queue(), bursts.size() - 1, [&](std::size_t j) { return flows[order(bursts[j])].start; },
      run_burst);
  sim.run();
  return results;
}

std::string_view spine_name(const Topology& topology, NodeId spine) {
  return spine == kNoSpine ? std::string_view("-") : std::string_view(topology.node(spine).name);
}

}  // namespace

std::vector<FlowResult> simulate_flows(const Topology& topology,
                                       const std::vector<FlowSpec>& flows) {
  const auto outcomes = run_flows(topology, flows);
  std::vector<FlowResult> results(flows.size());
  for (std::size_t i = 0; i < flows.size(); ++i) {
    results[i].spec = flows[i];
    results[i].finish = outcomes[i].finish;
    results[i].spine = spine_name(topology, outcomes[i].spine);
  }
  return results;
}

namespace {

constexpr FlowColumn kAllColumns[] = {
    FlowColumn::kId,        FlowColumn::kSrc,      FlowColumn::kDst,
    FlowColumn::kBytes,     FlowColumn::kStartS,   FlowColumn::kFinishS,
    FlowColumn::kDurationS, FlowColumn::kFinishNs, FlowColumn::kSpine};

// The rows of FlowResults (write_flow_results): full rows by RowFormatter::operator(), others by
// RowFormatter::selected() (chosen once, not per row).
template <bool kFull>
struct ResultRows {
  const std::vector<FlowResult>& results;
  RowFormatter& format;
  [[nodiscard]] std::size_t room(std::size_t i) const {
    return format.room(results[i].spine.size() + 1);
  }
  char* operator()(char* out, std::size_t i) const {
    const FlowResult& r = results[i];
    if constexpr (kFull) {
      return format(out, r.spec, r.finish, std::string_view(r.spine));
    } else {
      return format.selected(out, r.spec, r.finish, std::string_view(r.spine));
    }
  }
};

// The same for the command's flows and outcomes.
template <bool kFull>
struct OutcomeRows {
  const FlowList& flows;
  const std::vector<Outcome, HugePageAllocator<Outcome>>& outcomes;
  RowFormatter& format;
  std::size_t room_all;
  [[nodiscard]] std::size_t room(std::size_t /*i*/) const { return room_all; }
  char* operator()(char* out, std::size_t i) const {
    if constexpr (kFull) {
      return format(out, flows[i], outcomes[i].finish, outcomes[i].spine);
    } else {
      return format.selected(out, flows[i], outcomes[i].finish, outcomes[i].spine);
    }
  }
};

}  // namespace

std::string_view flow_column_name(FlowColumn column) {
  switch (column) {
    case FlowColumn::kId:
      return "id";
    case FlowColumn::kSrc:
      return "src";
    case FlowColumn::kDst:
      return "dst";
    case FlowColumn::kBytes:
      return "bytes";
    case FlowColumn::kStartS:
      return "start_s";
    case FlowColumn::kFinishS:
      return "finish_s";
    case FlowColumn::kDurationS:
      return "duration_s";
    case FlowColumn::kFinishNs:
      return "finish_ns";
    case FlowColumn::kSpine:
      return "spine";
  }
  return "?";
}

std::span<const FlowColumn> all_flow_columns() {
  return kAllColumns;
}

std::vector<FlowColumn> parse_flow_columns(std::string_view list) {
  const auto error = [](const std::string& found) {
    std::string names;
    for (const FlowColumn c : kAllColumns) {
      if (!names.empty()) names += ',';
      names += flow_column_name(c);
    }
    return std::invalid_argument(
        fmt::format("expected a comma-separated list of distinct column names among {}; found {}",
                    names, found));
  };
  if (list.empty()) throw error("an empty list");
  std::vector<FlowColumn> columns;
  for (std::size_t begin = 0;;) {
    const std::size_t comma = std::min(list.find(',', begin), list.size());
    const std::string_view name = list.substr(begin, comma - begin);
    if (name.empty()) throw error(fmt::format("an empty column name in \"{}\"", list));
    const auto* it = std::find_if(std::begin(kAllColumns), std::end(kAllColumns),
                                  [&](FlowColumn c) { return flow_column_name(c) == name; });
    if (it == std::end(kAllColumns)) {
      throw error(fmt::format("unknown column \"{}\" in \"{}\"", name, list));
    }
    if (std::find(columns.begin(), columns.end(), *it) != columns.end()) {
      throw error(fmt::format("column \"{}\" twice in \"{}\"", name, list));
    }
    columns.push_back(*it);
    if (comma == list.size()) return columns;
    begin = comma + 1;
  }
}

void write_flow_results(std::ostream& out, const Topology& topology,
                        const std::vector<FlowResult>& results,
                        std::span<const FlowColumn> columns) {
  RowFormatter format(topology, columns);
  if (format.full()) {
    write_rows(out, format.head(), results.size(), ResultRows<true>{results, format});
  } else {
    write_rows(out, format.head(), results.size(), ResultRows<false>{results, format});
  }
}

std::size_t run_flows_tool(const std::string& topology_path, const std::string& flows_path,
                           std::ostream& out, std::span<const FlowColumn> columns) {
  if (columns.empty()) throw std::invalid_argument("no output column chosen");
  const Topology topology = load_topology_file(topology_path);
  std::ifstream in(flows_path);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open the flows file", flows_path));
  std::error_code size_error;
  const std::uintmax_t size = std::filesystem::file_size(flows_path, size_error);
  const FlowList flows = read_flows<FlowList>(in, flows_path, topology, size_error ? 0 : size);
  // The same rows as write_flow_results(simulate_flows(...)), without building FlowResults, and
  // without looking for the routes' spines unless the spine column is asked for.
  const bool spines =
      std::find(columns.begin(), columns.end(), FlowColumn::kSpine) != columns.end();
  const auto outcomes = run_flows(topology, flows, spines);
  RowFormatter format(topology, columns);
  if (format.full()) {
    write_rows(out, format.head(), flows.size(),
               OutcomeRows<true>{flows, outcomes, format, format.room()});
  } else {
    write_rows(out, format.head(), flows.size(),
               OutcomeRows<false>{flows, outcomes, format, format.room()});
  }
  return flows.size();
}

std::size_t run_flows_tool(const std::string& topology_path, const std::string& flows_path,
                           const std::string& out_path, std::span<const FlowColumn> columns) {
  if (columns.empty()) throw std::invalid_argument("no output column chosen");
  namespace fs = std::filesystem;
  const fs::path target(out_path);
  fs::path tmp = target;
  tmp += ".tmp";
  std::size_t n = 0;
  {
    std::ofstream out(tmp);
    if (!out)
      throw std::runtime_error(fmt::format("{}: cannot write the output file", tmp.string()));
    try {
      n = run_flows_tool(topology_path, flows_path, out, columns);
    } catch (...) {
      out.close();
      std::error_code ec;
      fs::remove(tmp, ec);
      throw;
    }
    out.flush();
    if (!out) throw std::runtime_error(fmt::format("{}: write failed", tmp.string()));
  }
  fs::rename(tmp, target);
  return n;
}

}  // namespace sim::net
