#pragma once
// The reading of the flows CSV (flows_csv.cpp) as flows_tool.cpp uses it; private to src/network.

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "flows_huge_pages.hpp"
#include "sim/network/flows_tool.hpp"

namespace sim::net::flows_impl {

using FlowList = std::vector<FlowSpec, HugePageAllocator<FlowSpec>>;

// The flows of the CSV `in` (read_flows_csv's input, errors and `input_bytes`) as a List:
// instantiated for std::vector<FlowSpec> and FlowList only.
template <class List>
List read_flows(std::istream& in, const std::string& file, const Topology& topology,
                std::uintmax_t input_bytes);

}  // namespace sim::net::flows_impl
