#pragma once
// Python classes for the policy views (include/sim/policy/) and the decisions policies return.

#include <pybind11/pybind11.h>

namespace sim::python {

/// Adds Time, the read-only views and the decision types to `m` (dcsim._core).
void bind_policy_types(pybind11::module_& m);

}  // namespace sim::python
