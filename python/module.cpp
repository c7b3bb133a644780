// dcsim._core: the C++ half of the `dcsim` Python package. It exposes what the CLI does through
// the same library functions (loading, resolving, running, listing), never through a
// subprocess; the Python half (dcsim/*.py) turns the results into dicts and DataFrames.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "commands.hpp"
#include "environment.hpp"
#include "options.hpp"
#include "python_policies.hpp"
#include "run_binding.hpp"
#include "sim/config/diagnostics.hpp"
#include "sweep_binding.hpp"
#include "views.hpp"

namespace py = pybind11;

namespace sim::python {
namespace {

ScenarioSource source_of(const std::string& path, const std::string& document,
                         const std::string& label, const std::vector<std::string>& overrides) {
  return ScenarioSource{path, document, label, overrides};
}

/// The built-in components plus the policies registered in Python.
sim::scenario::Registry registry_with(const py::list& python_policies) {
  auto registry = cli::builtin_registry();
  add_python_policies(registry, python_policies);
  return registry;
}

/// `dcsim describe NAME`'s text.
std::string describe(const std::string& name) {
  std::ostringstream out;
  cli::describe_command({name}, out, out);
  return out.str();
}

/// (category, name, description) of every registered component, as `dcsim list` shows them,
/// with the policies registered in Python.
std::vector<std::tuple<std::string, std::string, std::string>> components(
    const py::list& python_policies) {
  std::vector<std::tuple<std::string, std::string, std::string>> out;
  for (const auto& e : registry_with(python_policies).entries())
    out.emplace_back(e.category, e.name, e.description);
  return out;
}

/// The preset names `"preset": NAME` can use, as `dcsim list presets` shows them.
std::vector<std::string> presets() {
  std::set<std::string> names;
  for (const auto& dir : cli::preset_dirs()) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      if (e.path().extension() == ".json") names.insert(e.path().stem().string());
    }
  }
  return {names.begin(), names.end()};
}

}  // namespace
}  // namespace sim::python

PYBIND11_MODULE(_core, m) {
  using namespace sim::python;
  m.doc() = "dcsim's C++ core; use the `dcsim` package, not this module";
  m.attr("__version__") = SIM_VERSION;

  // Every error of the simulator becomes dcsim.Error with the text the CLI prints: a
  // ConfigError's message is the CLI's whole output (file, JSON path, expected, found).
  static py::exception<std::runtime_error> error(m, "Error");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const py::error_already_set&) {
      throw;  // a Python exception (from a Python policy, or Ctrl-C) passes through as it is
    } catch (const py::builtin_exception&) {
      throw;
    } catch (const std::exception& e) {
      error(e.what());
    }
  });

  m.def("validate",
        [](const std::string& path, const std::string& document, const std::string& label,
           const std::vector<std::string>& overrides, const py::list& policies) {
          return validate(source_of(path, document, label, overrides), registry_with(policies));
        });
  m.def("run", [](const std::string& path, const std::string& document, const std::string& label,
                  const std::vector<std::string>& overrides, const py::list& policies) {
    return run(source_of(path, document, label, overrides), registry_with(policies));
  });
  m.def("sweep", &sweep);
  m.def("describe", &describe);
  m.def("components", &components);
  m.def("presets", &presets);
  bind_policy_types(m);
}
