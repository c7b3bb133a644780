// The model catalog (data/models/*.json): the input is one family file read against the
// repository's GPU types. Rejections are std::runtime_error / std::invalid_argument naming the
// file and the JSON path, or ConfigError from the JSON reader.

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "sim/config/diagnostics.hpp"
#include "sim/gpu_models/model_catalog.hpp"

namespace {

const std::string& gpu_types() {
  static const std::string text = [] {
    std::ifstream in(std::string(SIM_DATA_DIR) + "/models/gpus.json", std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }();
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  sim::gpu::ModelCatalog catalog;
  catalog.add_gpu_file("gpus.json", gpu_types());
  try {
    catalog.add_model_file("fuzz.json", text);
    // Use what was accepted: every model's profile must answer the platform's questions.
    for (const auto& [name, m] : catalog.models()) {
      (void)m.memory_gb();
      if (m.gpu) {
        for (int b = 1; b <= 8; b *= 2)
          (void)m.gpu->latency_s(b);
      }
    }
  } catch (const sim::config::ConfigError&) {
  } catch (const std::runtime_error&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
