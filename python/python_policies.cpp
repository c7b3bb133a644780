#include "python_policies.hpp"

#include <pybind11/stl.h>

#include <algorithm>

#include "sim/policy/autoscaler.hpp"
#include "sim/policy/batcher.hpp"
#include "sim/policy/dispatcher.hpp"
#include "sim/policy/keep_alive.hpp"
#include "sim/policy/placement.hpp"

namespace sim::python {

namespace py = pybind11;
using namespace sim::policy;

namespace {

// Each adapter owns its Python object. The whole run holds the GIL (dcsim.run never releases
// it), so the calls below need no GIL handling; a Python exception travels up as
// py::error_already_set and ends the run with that exception.
constexpr auto kRef = py::return_value_policy::reference;

class PythonAutoscaler final : public Autoscaler {
 public:
  explicit PythonAutoscaler(py::object self) : self_(std::move(self)) {}
  Decisions decide(const PlatformView& view) override {
    return self_.attr("decide")(py::cast(&view, kRef)).cast<Decisions>();
  }

 private:
  py::object self_;
};

class PythonDispatcher final : public Dispatcher {
 public:
  explicit PythonDispatcher(py::object self)
      : self_(std::move(self)),
        wants_view_(py::bool_(self_.attr("wants_platform_view"))),
        choose_(self_.attr("choose")) {}
  std::optional<InstanceId> choose(const DispatchView& view) override {
    const py::object id = choose_(py::cast(&view, kRef));
    if (id.is_none()) return std::nullopt;
    return id.cast<InstanceId>();
  }
  [[nodiscard]] bool wants_platform_view() const override { return wants_view_; }

 private:
  py::object self_;
  bool wants_view_;
  py::object choose_;  // the bound method, looked up once (it is called per batch)
};

class PythonBatcher final : public Batcher {
 public:
  explicit PythonBatcher(py::object self) : self_(std::move(self)), select_(self_.attr("select")) {}
  BatchDecision select(const BatchQueueView& view) override {
    return select_(py::cast(&view, kRef)).cast<BatchDecision>();
  }

 private:
  py::object self_;
  py::object select_;
};

class PythonPlacement final : public Placement {
 public:
  explicit PythonPlacement(py::object self) : self_(std::move(self)) {}
  std::optional<Location> place(const PlacementRequest& request,
                                const PlatformView& view) override {
    const py::object where = self_.attr("place")(py::cast(&request, kRef), py::cast(&view, kRef));
    if (where.is_none()) return std::nullopt;
    return where.cast<Location>();
  }

 private:
  py::object self_;
};

class PythonKeepAlive final : public KeepAlive {
 public:
  explicit PythonKeepAlive(py::object self) : self_(std::move(self)) {}
  Time idle_timeout(const InstanceView& instance, const FunctionView& function) override {
    return self_.attr("idle_timeout")(py::cast(&instance, kRef), py::cast(&function, kRef))
        .cast<Time>();
  }
  // A Python keep-alive may return Decisions or, as before, a list of StartInstance.
  Decisions prewarm(const PlatformView& view) override {
    py::object r = self_.attr("prewarm")(py::cast(&view, kRef));
    if (py::isinstance<Decisions>(r)) return r.cast<Decisions>();
    Decisions d;
    d.start = r.cast<std::vector<StartInstance>>();
    return d;
  }

 private:
  py::object self_;
};

const std::vector<std::string>& python_categories() {
  static const std::vector<std::string> names{kAutoscaler, kDispatcher, kBatcher, kPlacement,
                                              kKeepAlive};
  return names;
}

std::unique_ptr<Policy> adapt(const std::string& category, py::object self) {
  if (category == kAutoscaler) return std::make_unique<PythonAutoscaler>(std::move(self));
  if (category == kDispatcher) return std::make_unique<PythonDispatcher>(std::move(self));
  if (category == kBatcher) return std::make_unique<PythonBatcher>(std::move(self));
  if (category == kPlacement) return std::make_unique<PythonPlacement>(std::move(self));
  if (category == kKeepAlive) return std::make_unique<PythonKeepAlive>(std::move(self));
  throw std::logic_error("dcsim.policy: category \"" + category + "\" was not checked");
}

config::ParamType param_type(const py::handle& value, const std::string& name) {
  // bool first: a Python bool is also an int.
  if (py::isinstance<py::bool_>(value)) return config::ParamType::kBool;
  if (py::isinstance<py::int_>(value)) return config::ParamType::kInteger;
  if (py::isinstance<py::float_>(value)) return config::ParamType::kNumber;
  if (py::isinstance<py::str>(value)) return config::ParamType::kString;
  throw std::invalid_argument("dcsim.policy: parameter \"" + name +
                              "\": a default must be a bool, int, float or str");
}

nlohmann::json to_json(const py::handle& value) {
  const auto dumps = py::module_::import("json").attr("dumps");
  return nlohmann::json::parse(dumps(value).cast<std::string>());
}

}  // namespace

void add_python_policies(scenario::Registry& registry, const py::list& registrations) {
  const auto loads = py::module_::import("json").attr("loads");
  for (const auto& item : registrations) {
    const auto t = item.cast<py::tuple>();
    const auto category = t[0].cast<std::string>();
    const auto name = t[1].cast<std::string>();
    const auto description = t[2].cast<std::string>();
    py::object factory = t[3];
    auto schema = policy_schema(category, name, description);
    for (const auto& [key, value] : t[4].cast<py::dict>()) {
      const auto param = key.cast<std::string>();
      schema->add(param, param_type(value, param)).def(to_json(value)).doc("(Python policy)");
    }
    const auto& known = python_categories();
    if (std::find(known.begin(), known.end(), category) == known.end()) {
      throw std::invalid_argument("dcsim.policy: no Python policies of category \"" + category +
                                  "\" (autoscaler, dispatcher, batcher, placement, keep_alive)");
    }
    registry.add_policy({category, name, description, schema,
                         [category, factory, loads](const nlohmann::json& resolved,
                                                    PolicyContext) -> std::unique_ptr<Policy> {
                           return adapt(category, factory(loads(resolved.dump())));
                         }});
  }
}

}  // namespace sim::python
