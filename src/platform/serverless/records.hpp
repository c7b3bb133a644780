#pragma once
/// The one place a request's record is written: dropped at the gateway, or served by a batch
/// (on an execution unit or through a partitioned replica's pipeline, with the same latency
/// decomposition, docs/policy-authors.md "Latency decomposition").

#include <cstdint>

#include "model.hpp"
#include "sim/metrics/request_record.hpp"

namespace sim::platform::serverless {

[[nodiscard]] metrics::RequestRecord dropped_record(const traces::Arrival& arrival,
                                                    std::uint64_t id, Time now);
[[nodiscard]] metrics::RequestRecord served_record(const Request& request, const BatchTimes& t);

}  // namespace sim::platform::serverless
