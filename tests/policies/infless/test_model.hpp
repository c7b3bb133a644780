#pragma once
// A hand-made INFless operator model for tests: one operator (share 1), so combined operator
// profiling returns the table entry, and a 10% prediction offset (INFless §3.3).

#include <initializer_list>
#include <tuple>

#include "sim/gpu_models/model_profile.hpp"

namespace sim::policy::infless::testing {

/// Rows (threads, gpu %, batch, ms).
inline gpu::OperatorModel model(std::initializer_list<std::tuple<int, int, int, double>> rows) {
  gpu::OperatorModel m;
  for (const auto& [c, g, b, ms] : rows)
    m.table_ms[{c, g, b}] = ms;
  m.dag.add("op");
  m.shares = {1.0};
  m.prediction_offset.value = 0.1;
  return m;
}

}  // namespace sim::policy::infless::testing
