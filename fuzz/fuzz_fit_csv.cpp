// `dcsim fit KIND CSV` input: one measurement table read and fitted by every kind. Rejections
// are std::runtime_error or std::invalid_argument naming the file and the line; an accepted
// table must give finite coefficients (the JSON fragment dcsim prints).

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "scratch_file.hpp"
#include "sim/gpu_models/fit.hpp"

namespace {

// Every number of a fitted fragment must be finite: `fit` once printed NaN and inf.
void check_finite(const nlohmann::json& j) {
  if (j.is_number_float() && !std::isfinite(j.get<double>())) __builtin_trap();
  if (j.is_structured()) {
    for (const auto& v : j)
      check_finite(v);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = sim::fuzz::write_scratch("fit.csv", data, size);
  for (const char* kind : {"gpu-linear", "cpu-exp", "mps-fbr", "mps-interference"}) {
    std::ostringstream out;
    try {
      check_finite(sim::gpu::fit(kind, path, out));
    } catch (const std::runtime_error&) {
    } catch (const std::invalid_argument&) {
    }
  }
  return 0;
}
