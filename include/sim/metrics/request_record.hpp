#pragma once
/// One finished or dropped request, as recorded by the platform (DESIGN.md, "Metrics").
///
/// A record is a plain value: the platform fills it when a request completes or is dropped and
/// hands it to a `SummaryBuilder` and a `RequestWriter`. Function and application ids index the
/// name tables (`NameTables`) given to the writers and to the summary.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/engine/request_class.hpp"
#include "sim/engine/time.hpp"

namespace sim::metrics {

/// Service class of a request (Protean's strict and best-effort classes).
using sim::RequestClass;

/// How a request ended.
enum class Outcome : std::uint8_t {
  kOk = 0,       ///< finished, and within its SLO if it has one
  kSloMiss = 1,  ///< finished after its SLO
  kDropped = 2,  ///< never finished (rejected, timed out in a queue, lost at shutdown)
};

struct RequestRecord {
  std::uint64_t id = 0;
  std::uint32_t function = 0;     ///< index into NameTables::functions
  std::uint32_t application = 0;  ///< index into NameTables::applications
  RequestClass cls = RequestClass::kStrict;

  /// Absolute simulated times. For a dropped request `finish` is the time it was dropped and
  /// the stages it never reached hold the drop time as well (the platform's convention).
  Time arrival;
  Time dispatch;
  Time start;
  Time finish;

  /// Decomposition of the end-to-end latency into waits (each >= 0).
  Time queue_wait;       ///< in the per-function queue before being picked for a batch
  Time batching_wait;    ///< held back while the batch filled up
  Time cold_start_wait;  ///< waiting for an instance to finish its cold start
  Time execution;        ///< the batch's run time on the device

  std::uint32_t batch_size = 0;  ///< size of the batch the request ran in (0 if dropped)
  std::int32_t device = -1;      ///< device index, -1 = none (CPU function or dropped)
  std::int32_t slice = -1;       ///< MIG slice index on the device, -1 = none
  Outcome outcome = Outcome::kOk;
  Time slo;  ///< latency objective; Time::zero() = the request has none

  /// End-to-end latency, finish - arrival.
  [[nodiscard]] Time latency() const { return finish - arrival; }
  [[nodiscard]] bool finished() const { return outcome != Outcome::kDropped; }
  [[nodiscard]] bool has_slo() const { return slo > Time::zero(); }

  friend bool operator==(const RequestRecord&, const RequestRecord&) = default;
};

/// Names for the ids in a record: `functions[r.function]`, `applications[r.application]`.
struct NameTables {
  std::vector<std::string> functions;
  std::vector<std::string> applications;

  friend bool operator==(const NameTables&, const NameTables&) = default;
};

/// True if `grown` keeps every name of `current` at its index (it may add names after them).
bool extends(const NameTables& grown, const NameTables& current);

/// "strict" / "best_effort": the spelling used in every output file.
std::string_view to_string(RequestClass c);
/// "ok" / "slo_miss" / "dropped": the spelling used in every output file.
std::string_view to_string(Outcome o);

}  // namespace sim::metrics
