#pragma once
/// The one place a request's record is written: dropped at the gateway, or served by a batch
/// (on an execution unit or through a partitioned replica's pipeline, with the same latency
/// decomposition, docs/policy-authors.md "Latency decomposition").

#include <cstdint>

#include "model.hpp"
#include "sim/metrics/request_record.hpp"

namespace sim::platform::serverless {

/// When and where a batch ran, as its requests' records report it.
struct BatchTimes {
  Time dispatch;  ///< the dispatcher gave the batch to the instance
  Time avail;     ///< the instance became idle before the dispatch
  Time ready_at;  ///< the instance finished its cold start
  Time start;     ///< execution began
  Time finish;
  std::uint32_t batch_size = 0;
  int device = -1;  ///< cluster-wide GPU index; -1: CPU
  int slice = -1;
};

[[nodiscard]] metrics::RequestRecord dropped_record(const traces::Arrival& arrival,
                                                    std::uint64_t id, Time now);
[[nodiscard]] metrics::RequestRecord served_record(const Request& request, const BatchTimes& t);

}  // namespace sim::platform::serverless
