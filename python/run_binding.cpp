#include "run_binding.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <sstream>

#include "environment.hpp"
#include "sim/metrics/request_record.hpp"
#include "sim/scenario/overrides.hpp"
#include "sim/scenario/run.hpp"

namespace sim::python {

namespace py = pybind11;

namespace {

/// The records of a run, one vector per column of requests.h5 (same names, same types), so
/// that the DataFrame is built from them without a file in between.
struct RecordColumns {
  std::vector<std::uint64_t> id;
  std::vector<std::uint32_t> function, application, batch_size;
  std::vector<std::uint8_t> cls, outcome;
  std::vector<std::int64_t> arrival, dispatch, start, finish, queue_wait, batching_wait,
      cold_start_wait, execution, slo;
  std::vector<std::int32_t> device, slice;

  void add(const metrics::RequestRecord& r) {
    id.push_back(r.id);
    function.push_back(r.function);
    application.push_back(r.application);
    cls.push_back(static_cast<std::uint8_t>(r.cls));
    arrival.push_back(r.arrival.ns());
    dispatch.push_back(r.dispatch.ns());
    start.push_back(r.start.ns());
    finish.push_back(r.finish.ns());
    queue_wait.push_back(r.queue_wait.ns());
    batching_wait.push_back(r.batching_wait.ns());
    cold_start_wait.push_back(r.cold_start_wait.ns());
    execution.push_back(r.execution.ns());
    batch_size.push_back(r.batch_size);
    device.push_back(r.device);
    slice.push_back(r.slice);
    outcome.push_back(static_cast<std::uint8_t>(r.outcome));
    slo.push_back(r.slo.ns());
  }

  /// Column name -> NumPy array, in requests.h5's documented order.
  [[nodiscard]] py::dict arrays() const {
    py::dict d;
    const auto put = [&d](const char* name, const auto& v) {
      d[name] = py::array(static_cast<py::ssize_t>(v.size()), v.data());
    };
    put("id", id);
    put("function", function);
    put("application", application);
    put("class", cls);
    put("arrival_ns", arrival);
    put("dispatch_ns", dispatch);
    put("start_ns", start);
    put("finish_ns", finish);
    put("queue_wait_ns", queue_wait);
    put("batching_wait_ns", batching_wait);
    put("cold_start_wait_ns", cold_start_wait);
    put("execution_ns", execution);
    put("batch_size", batch_size);
    put("device", device);
    put("slice", slice);
    put("outcome", outcome);
    put("slo_ns", slo);
    return d;
  }
};

scenario::RunOptions base_options() {
  scenario::RunOptions o;
  o.trace_search_path = cli::trace_search_path();
  o.data_dir = cli::data_dir();
  return o;
}

}  // namespace

scenario::LoadedScenario load(const ScenarioSource& source, const scenario::Registry& registry) {
  scenario::LoadOptions options;
  options.preset_dirs = cli::preset_dirs();
  for (const auto& o : source.overrides)
    options.overrides.push_back(scenario::parse_override(o));
  if (source.document.empty()) return scenario::load_scenario(source.path, registry, options);
  return scenario::load_scenario_document(nlohmann::json::parse(source.document), source.label,
                                          registry, options);
}

std::string validate(const ScenarioSource& source, const scenario::Registry& registry) {
  const auto loaded = load(source, registry);
  scenario::check_scenario(loaded, registry, base_options());
  return loaded.resolved.dump();
}

py::dict run(const ScenarioSource& source, const scenario::Registry& registry) {
  const auto loaded = load(source, registry);
  RecordColumns records;
  std::ostringstream timeseries;
  auto options = base_options();
  options.write_files = false;
  options.on_record = [&records](const metrics::RequestRecord& r) { records.add(r); };
  options.timeseries_text = &timeseries;
  // Ctrl-C in a notebook or a terminal: stop the run; the KeyboardInterrupt is raised after.
  bool signalled = false;
  options.interrupted = [&signalled] {
    if (!signalled && PyErr_CheckSignals() != 0) signalled = true;
    return signalled;
  };
  const auto result = scenario::run_scenario(loaded, registry, options);
  if (signalled) throw py::error_already_set();

  py::dict out;
  out["summary"] = result.summary.dump();
  out["scenario"] = loaded.resolved.dump();
  out["requests"] = records.arrays();
  out["function_names"] = result.names.functions;
  out["application_names"] = result.names.applications;
  out["timeseries"] = timeseries.str();
  out["events"] = result.events;
  out["wall_seconds"] = result.wall_seconds;
  out["partial"] = result.partial;
  return out;
}

}  // namespace sim::python
