// The views are bound read-only and by reference: a Python policy reads the platform's own
// view objects without a copy, which is why they are valid only during the call that received
// them (docs/python.md). Decisions are plain values built in Python and copied back.

#include "views.hpp"

#include <pybind11/operators.h>
#include <pybind11/stl.h>

#include "sim/policy/batcher.hpp"
#include "sim/policy/decisions.hpp"
#include "sim/policy/dispatcher.hpp"
#include "sim/policy/placement.hpp"
#include "sim/policy/platform_view.hpp"

namespace sim::python {

namespace py = pybind11;
using namespace sim::policy;

namespace {

// A VM request's market as Python names it: "" (the host template's), "owned", "on-demand" or
// "spot", the strings the views show.
std::optional<Market> market_arg(const std::string& s) {
  if (s.empty()) return std::nullopt;
  for (const Market m : {Market::kOwned, Market::kOnDemand, Market::kSpot})
    if (s == to_string(m)) return m;
  throw py::value_error("unknown market \"" + s + "\" (owned, on-demand or spot)");
}

/// A span of views as a list of references to them (no copies).
template <class T>
py::list list_of(std::span<const T> items) {
  py::list out(items.size());
  for (std::size_t i = 0; i < items.size(); ++i)
    out[i] = py::cast(&items[i], py::return_value_policy::reference);
  return out;
}

void bind_time(py::module_& m) {
  py::class_<Time>(m, "Time", "Simulated time: an integer number of nanoseconds.")
      .def_static("from_ns", &Time::from_ns)
      .def_static("from_seconds", [](double s) { return Time::from_ns(std::llround(s * 1e9)); })
      .def_static("max", &Time::max, "no time: never (e.g. keep an idle instance forever)")
      .def_property_readonly("ns", &Time::ns)
      .def_property_readonly("seconds", &Time::to_seconds)
      .def(py::self == py::self)
      .def(py::self < py::self)
      .def("__repr__", [](const Time& t) { return "Time(" + sim::to_string(t) + ")"; });
}

void bind_platform_view(py::module_& m) {
  py::enum_<InstanceState>(m, "InstanceState")
      .value("COLD_STARTING", InstanceState::kColdStarting)
      .value("IDLE", InstanceState::kIdle)
      .value("BUSY", InstanceState::kBusy)
      .value("DRAINING", InstanceState::kDraining)
      .value("TERMINATED", InstanceState::kTerminated);
  py::class_<InstanceConfig>(m, "InstanceConfig")
      .def(py::init<>())
      .def_readwrite("max_batch", &InstanceConfig::max_batch)
      .def_readwrite("cpu_cores", &InstanceConfig::cpu_cores)
      .def_readwrite("gpu_share", &InstanceConfig::gpu_share)
      .def_readwrite("time_slice_gb", &InstanceConfig::time_slice_gb)
      .def_readwrite("cpu_threads", &InstanceConfig::cpu_threads);
  py::class_<Location>(m, "Location")
      .def(py::init([](int host, int gpu, int slice) {
             return Location{host, gpu, slice};
           }),
           py::arg("host"), py::arg("gpu") = -1, py::arg("slice") = -1)
      .def_readwrite("host", &Location::host)
      .def_readwrite("gpu", &Location::gpu)
      .def_readwrite("slice", &Location::slice)
      .def(py::self == py::self);
  py::class_<InstanceView>(m, "InstanceView")
      .def_readonly("id", &InstanceView::id)
      .def_readonly("function", &InstanceView::function)
      .def_readonly("state", &InstanceView::state)
      .def_readonly("config", &InstanceView::config)
      .def_readonly("location", &InstanceView::location)
      .def_readonly("created", &InstanceView::created)
      .def_readonly("state_since", &InstanceView::state_since)
      .def_readonly("batches", &InstanceView::batches)
      .def_readonly("batch_latency_s", &InstanceView::batch_latency_s)
      .def_readonly("partition", &InstanceView::partition)
      .def_readonly("partitions", &InstanceView::partitions)
      .def_readonly("partition_head", &InstanceView::partition_head);
  py::class_<FunctionView>(m, "FunctionView")
      .def_readonly("id", &FunctionView::id)
      .def_readonly("name", &FunctionView::name)
      .def_readonly("model", &FunctionView::model)
      .def_readonly("gpu", &FunctionView::gpu)
      .def_readonly("config", &FunctionView::config)
      .def_readonly("model_bytes", &FunctionView::model_bytes)
      .def_readonly("device_memory_gb", &FunctionView::device_memory_gb)
      .def_readonly("batch_latency_s", &FunctionView::batch_latency_s)
      .def_readonly("queue_length", &FunctionView::queue_length)
      .def_readonly("node_queues", &FunctionView::node_queues)
      .def_readonly("oldest_wait", &FunctionView::oldest_wait)
      .def_readonly("dequeued", &FunctionView::dequeued)
      .def_readonly("dequeued_wait_s", &FunctionView::dequeued_wait_s)
      .def_readonly("arrival_rate", &FunctionView::arrival_rate)
      .def_readonly("arrivals", &FunctionView::arrivals)
      .def_readonly("strict_arrivals", &FunctionView::strict_arrivals)
      .def_readonly("fbr", &FunctionView::fbr)
      .def_readonly("rdf", &FunctionView::rdf)
      .def_readonly("cold_starting", &FunctionView::cold_starting)
      .def_readonly("idle", &FunctionView::idle)
      .def_readonly("busy", &FunctionView::busy)
      .def("live", &FunctionView::live);
  py::class_<SliceView>(m, "SliceView")
      .def_readonly("profile", &SliceView::profile)
      .def_readonly("memory_gb", &SliceView::memory_gb)
      .def_readonly("memory_free_gb", &SliceView::memory_free_gb)
      .def_readonly("instances", &SliceView::instances)
      .def_readonly("enabled", &SliceView::enabled);
  py::class_<GpuView>(m, "GpuView")
      .def_readonly("type", &GpuView::type)
      .def_property_readonly("sharing", [](const GpuView& g) { return to_string(g.sharing); })
      .def_readonly("mig", &GpuView::mig)
      .def_readonly("memory_gb", &GpuView::memory_gb)
      .def_readonly("memory_free_gb", &GpuView::memory_free_gb)
      .def_readonly("instances", &GpuView::instances)
      .def_readonly("reconfiguring", &GpuView::reconfiguring)
      .def_readonly("slices", &GpuView::slices, py::return_value_policy::reference_internal);
  py::class_<HostView>(m, "HostView")
      .def_readonly("index", &HostView::index)
      .def_readonly("name", &HostView::name)
      .def_readonly("host_template", &HostView::host_template)
      .def_property_readonly("market", [](const HostView& h) { return to_string(h.market); })
      .def_readonly("available", &HostView::available)
      .def_readonly("revocation_at", &HostView::revocation_at)
      .def_readonly("cores", &HostView::cores)
      .def_readonly("cores_free", &HostView::cores_free)
      .def_readonly("memory_bytes", &HostView::memory_bytes)
      .def_readonly("memory_free_bytes", &HostView::memory_free_bytes)
      .def_property_readonly("gpus", [](const HostView& h) { return list_of(std::span(h.gpus)); })
      .def_readonly("cached_models", &HostView::cached_models);
  py::class_<ColdStartView>(m, "ColdStartView")
      .def_readonly("instance", &ColdStartView::instance)
      .def_readonly("function", &ColdStartView::function)
      .def_readonly("host", &ColdStartView::host)
      .def_property_readonly("stage", [](const ColdStartView& c) { return to_string(c.stage); })
      .def_readonly("started", &ColdStartView::started);
  py::class_<PlatformView>(m, "PlatformView")
      .def_readonly("now", &PlatformView::now)
      .def_readonly("control_interval", &PlatformView::control_interval)
      .def_readonly("rate_windows", &PlatformView::rate_windows)
      .def_property_readonly("functions",
                             [](const PlatformView& v) { return list_of(std::span(v.functions)); })
      .def_property_readonly("instances",
                             [](const PlatformView& v) { return list_of(std::span(v.instances)); })
      .def_property_readonly("hosts",
                             [](const PlatformView& v) { return list_of(std::span(v.hosts)); })
      .def_property_readonly(
          "cold_starts", [](const PlatformView& v) { return list_of(std::span(v.cold_starts)); })
      .def_readonly("pending_vms", &PlatformView::pending_vms)
      .def("function", &PlatformView::function, py::return_value_policy::reference);
}

void bind_request_path(py::module_& m) {
  py::class_<QueuedRequest>(m, "QueuedRequest")
      .def_readonly("id", &QueuedRequest::id)
      .def_readonly("arrival", &QueuedRequest::arrival)
      .def_property_readonly("strict",
                             [](const QueuedRequest& q) { return q.cls == RequestClass::kStrict; })
      .def_readonly("application", &QueuedRequest::application)
      .def_readonly("slo", &QueuedRequest::slo)
      .def_readonly("batch_timeout", &QueuedRequest::batch_timeout);
  py::class_<BatchQueueView>(m, "BatchQueueView")
      .def_readonly("now", &BatchQueueView::now)
      .def_readonly("function", &BatchQueueView::function)
      .def_readonly("max_batch", &BatchQueueView::max_batch)
      .def_property_readonly("queue", [](const BatchQueueView& v) { return list_of(v.queue); });
  py::class_<BatchDecision>(m, "BatchDecision")
      .def(py::init([](std::vector<std::size_t> take, std::optional<Time> retry_at) {
             return BatchDecision{std::move(take), retry_at};
           }),
           py::arg("take") = std::vector<std::size_t>{}, py::arg("retry_at") = py::none())
      .def_readwrite("take", &BatchDecision::take)
      .def_readwrite("retry_at", &BatchDecision::retry_at);
  py::class_<DispatchView>(m, "DispatchView")
      .def_readonly("now", &DispatchView::now)
      .def_readonly("function", &DispatchView::function)
      .def_property_readonly("idle", [](const DispatchView& v) { return list_of(v.idle); })
      .def_property_readonly("queue", [](const DispatchView& v) { return list_of(v.queue); })
      .def_property_readonly("take",
                             [](const DispatchView& v) {
                               return std::vector<std::size_t>(v.take.begin(), v.take.end());
                             })
      .def_readonly("platform", &DispatchView::platform);
  py::class_<PlacementRequest>(m, "PlacementRequest")
      .def_readonly("function", &PlacementRequest::function)
      .def_readonly("config", &PlacementRequest::config);
}

void bind_decisions(py::module_& m) {
  py::class_<StartInstance>(m, "StartInstance")
      .def(py::init([](std::uint32_t function, int count, std::optional<InstanceConfig> config,
                       std::optional<Location> location, bool warm) {
             return StartInstance{function, count, config, location, warm};
           }),
           py::arg("function"), py::arg("count") = 1, py::arg("config") = py::none(),
           py::arg("location") = py::none(), py::arg("warm") = false)
      .def_readwrite("function", &StartInstance::function)
      .def_readwrite("count", &StartInstance::count)
      .def_readwrite("config", &StartInstance::config)
      .def_readwrite("location", &StartInstance::location)
      .def_readwrite("warm", &StartInstance::warm);
  py::class_<StopInstance>(m, "StopInstance")
      .def(py::init([](InstanceId id) { return StopInstance{id}; }), py::arg("id"))
      .def_readwrite("id", &StopInstance::id);
  py::class_<Reconfigure>(m, "Reconfigure")
      .def(py::init([](int host, int gpu, std::vector<std::string> profiles) {
             return Reconfigure{host, gpu, std::move(profiles)};
           }),
           py::arg("host"), py::arg("gpu"), py::arg("profiles"))
      .def_readwrite("host", &Reconfigure::host)
      .def_readwrite("gpu", &Reconfigure::gpu)
      .def_readwrite("profiles", &Reconfigure::profiles);
  py::class_<RequestVm>(m, "RequestVm")
      .def(py::init([](int host_template, const std::string& market) {
             return RequestVm{host_template, market_arg(market), std::nullopt};
           }),
           py::arg("host_template"), py::arg("market") = "")
      .def_readwrite("host_template", &RequestVm::host_template)
      .def_property(
          "market", [](const RequestVm& r) { return r.market ? to_string(*r.market) : ""; },
          [](RequestVm& r, const std::string& market) { r.market = market_arg(market); });
  py::class_<ReleaseVm>(m, "ReleaseVm")
      .def(py::init([](int host) { return ReleaseVm{host}; }), py::arg("host"))
      .def_readwrite("host", &ReleaseVm::host);
  py::class_<Decisions>(m, "Decisions")
      .def(py::init([](std::vector<StartInstance> start, std::vector<StopInstance> stop,
                       std::vector<Reconfigure> reconfigure, std::vector<RequestVm> request_vms,
                       std::vector<ReleaseVm> release_vms) {
             Decisions d;
             d.start = std::move(start);
             d.stop = std::move(stop);
             d.reconfigure = std::move(reconfigure);
             d.request_vms = std::move(request_vms);
             d.release_vms = std::move(release_vms);
             return d;
           }),
           py::arg("start") = std::vector<StartInstance>{},
           py::arg("stop") = std::vector<StopInstance>{},
           py::arg("reconfigure") = std::vector<Reconfigure>{},
           py::arg("request_vms") = std::vector<RequestVm>{},
           py::arg("release_vms") = std::vector<ReleaseVm>{})
      .def_readwrite("start", &Decisions::start)
      .def_readwrite("stop", &Decisions::stop)
      .def_readwrite("reconfigure", &Decisions::reconfigure)
      .def_readwrite("request_vms", &Decisions::request_vms)
      .def_readwrite("release_vms", &Decisions::release_vms)
      .def("empty", &Decisions::empty);
}

}  // namespace

void bind_policy_types(py::module_& m) {
  bind_time(m);
  bind_platform_view(m);
  bind_request_path(m);
  bind_decisions(m);
}

}  // namespace sim::python
