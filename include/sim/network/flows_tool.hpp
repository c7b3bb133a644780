#pragma once
/// `dcsim flows`: replay a list of flows on a topology and write each flow's start and finish
/// times, so that the network model can be compared with other simulators on identical inputs.
/// Input and output formats: docs/network.md "dcsim flows".

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/network/topology.hpp"

namespace sim::net {

/// One row of the flows CSV.
struct FlowSpec {
  std::uint64_t id = 0;  ///< also the routing key hashed to choose the path
  NodeId src = 0;
  NodeId dst = 0;
  double bytes = 0.0;
  Time start;
  std::optional<NodeId> spine;  ///< pinned spine, if the optional column is given
  std::size_t line = 0;         ///< line number in the input (1-based), for messages
};

/// Parses the flows CSV (header `id,src,dst,bytes,start[,spine]` in any column order).
/// Throws std::invalid_argument naming `file`, the line and the problem. `input_bytes`, the
/// input's size if known, only sizes the result's first allocation.
std::vector<FlowSpec> read_flows_csv(std::istream& in, const std::string& file,
                                     const Topology& topology, std::uintmax_t input_bytes = 0);

struct FlowResult {
  FlowSpec spec;
  Time finish;
  std::string spine;  ///< name of the first spine on the route, "-" if none
};

/// Runs the flows on a fresh FlowNetwork; results in input order.
std::vector<FlowResult> simulate_flows(const Topology& topology,
                                       const std::vector<FlowSpec>& flows);

/// The columns of `dcsim flows`' output, in their default order (docs/network.md "dcsim flows").
enum class FlowColumn : std::uint8_t {
  kId,
  kSrc,
  kDst,
  kBytes,
  kStartS,
  kFinishS,
  kDurationS,
  kFinishNs,
  kSpine,
};

/// The column's name in the output's header ("id", "finish_s", ...).
std::string_view flow_column_name(FlowColumn column);

/// All nine columns in the default order: `id,src,dst,bytes,start_s,finish_s,duration_s,
/// finish_ns,spine`.
std::span<const FlowColumn> all_flow_columns();

/// The columns of a comma-separated list of names ("id,finish_s"), in its order. Throws
/// std::invalid_argument, saying what was expected (the valid names) and what was found, for an
/// empty list, an empty or unknown name, or a name given twice.
std::vector<FlowColumn> parse_flow_columns(std::string_view list);

/// Writes `columns` (default: all nine) of each result; doubles in the shortest form that reads
/// back to the same double (full precision). Only the columns asked for are formatted.
/// Throws std::invalid_argument if `columns` is empty.
void write_flow_results(std::ostream& out, const Topology& topology,
                        const std::vector<FlowResult>& results,
                        std::span<const FlowColumn> columns = all_flow_columns());

namespace detail {
/// A number cell as std::from_chars reads it (ok: all of s read, finite), with a fast path for
/// plain decimals (digits, perhaps a point and digits); tests compare the two.
double parse_number(std::string_view s, bool& ok);
/// Writes to `out` (room for kNumberChars: it may write past the end it returns) what fmt's "{}"
/// writes for Time::from_ns(ns) .to_seconds() (the shortest decimal that reads back to the same
/// double), and returns the end. Most times take a path without the general shortest-decimal
/// search; tests compare the two.
constexpr std::size_t kNumberChars = 48;
char* write_seconds(char* out, std::int64_t ns);
/// The same for a double (an integral byte count takes a path of its own).
char* write_double(char* out, double v);
/// n / 10^p (n < 10^17, 0 <= p <= 20) in fixed notation without trailing zeros (nor the point if
/// nothing follows it); may write past the returned end, within kNumberChars.
char* write_fixed(char* out, std::uint64_t n, int p);
/// What fmt's "{}" writes for a non-integral v in [10^e10, 10^(e10 + 1)), -4 <= e10 <= 15, below
/// 2^53, provided no decimal of fewer than min_digits significant digits reads back to v; or
/// nullptr, writing nothing, where it cannot decide (a tie, the smallest significand of a
/// binade, or v outside those bounds).
char* write_shortest(char* out, double v, int e10, int min_digits);
}  // namespace detail

/// The whole command: reads both files, simulates, writes the CSV's `columns` (default: all
/// nine, in their order) to `out`. Returns the number of flows. Throws (config::ConfigError,
/// std::invalid_argument, std::runtime_error) with messages naming the file and the line or JSON
/// path; std::invalid_argument before reading anything if `columns` is empty.
std::size_t run_flows_tool(const std::string& topology_path, const std::string& flows_path,
                           std::ostream& out,
                           std::span<const FlowColumn> columns = all_flow_columns());

/// Same, writing to `out_path` atomically (a temporary file in the same directory, renamed).
std::size_t run_flows_tool(const std::string& topology_path, const std::string& flows_path,
                           const std::string& out_path,
                           std::span<const FlowColumn> columns = all_flow_columns());

}  // namespace sim::net
