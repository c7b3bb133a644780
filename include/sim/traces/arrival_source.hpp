#pragma once
/// The workload seen by the platform: a stream of request arrivals, read incrementally so that
/// memory does not grow with the length of a trace (issue "Real traces", DESIGN.md step 3).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/schema.hpp"
#include "sim/engine/random.hpp"
#include "sim/engine/request_class.hpp"
#include "sim/engine/time.hpp"

namespace sim::traces {

using sim::RequestClass;

/// One request arrival. Names are interned in a WorkloadLabels table shared by all sources of a
/// run, so an arrival is a few integers.
struct Arrival {
  Time time;
  std::uint32_t function = 0;     ///< index into WorkloadLabels::functions
  std::uint32_t application = 0;  ///< index into WorkloadLabels::applications
  RequestClass cls = RequestClass::kStrict;
  Time slo = Time::zero();  ///< end-to-end latency objective; zero = none
};

/// Interns function and application names; ids are dense and stable in order of first use.
class WorkloadLabels {
 public:
  std::uint32_t function_id(const std::string& name);
  std::uint32_t application_id(const std::string& name);
  [[nodiscard]] const std::vector<std::string>& functions() const { return functions_; }
  [[nodiscard]] const std::vector<std::string>& applications() const { return applications_; }

 private:
  static std::uint32_t intern(std::vector<std::string>& table,
                              std::map<std::string, std::uint32_t>& index, const std::string& name);
  std::vector<std::string> functions_;
  std::vector<std::string> applications_;
  std::map<std::string, std::uint32_t> function_index_;  ///< name -> id, for fast interning
  std::map<std::string, std::uint32_t> application_index_;
};

/// A stream of arrivals in non-decreasing time order. Implementations read or generate lazily.
class ArrivalSource {
 public:
  virtual ~ArrivalSource() = default;
  /// The next arrival, or nullopt when the source is exhausted. Times never decrease.
  virtual std::optional<Arrival> next() = 0;
};

/// What a workload component needs to build its source.
struct WorkloadContext {
  const RandomStreams* random = nullptr;  ///< derive streams as random->stream("workload/<i>", ...)
  std::string stream_prefix;              ///< unique per workload entry, e.g. "workload/0"
  std::vector<std::string> trace_search_path;  ///< directories searched for trace files
  WorkloadLabels* labels = nullptr;
  Time horizon = Time::max();  ///< sources may stop generating after this time
  /// Receives notes for the user, e.g. "x.csv: skipped 3 malformed rows (lenient mode)", when a
  /// source reaches its end. May be empty.
  std::function<void(const std::string&)> warn;
};

/// A registrable workload component (a generator or a trace reader): its parameter schema and
/// a factory that builds a source from a resolved (validated, defaults filled) JSON object.
struct WorkloadKind {
  std::string name;
  std::string description;
  std::shared_ptr<const config::Schema> schema;
  std::function<std::unique_ptr<ArrivalSource>(const nlohmann::json& resolved,
                                               const WorkloadContext& context)>
      make;
};

}  // namespace sim::traces
