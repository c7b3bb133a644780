#pragma once
// Policies written in Python (dcsim.policy): each registration becomes a PolicyKind whose
// policies forward every call to the Python object, passing the views by reference and copying
// the decisions back.

#include <pybind11/pybind11.h>

#include "sim/scenario/registry.hpp"

namespace sim::python {

/// Adds the policies registered in Python to `registry`. `registrations` is a list of tuples
/// (category, name, description, factory, params): `factory(resolved_params_dict)` returns the
/// policy object; `params` maps each parameter name to its default (bool, int, float or str),
/// which also sets its type in the schema. A name already taken is a dcsim.Error.
void add_python_policies(scenario::Registry& registry, const pybind11::list& registrations);

}  // namespace sim::python
