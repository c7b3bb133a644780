// `dcsim plan harmonybatch APPS.json`: an application set read by the strict JSON reader and
// parse_application_set, then planned by HarmonyBatch, BATCH and MBS+ on the model it names.
// Rejections are ConfigError (JSON) or std::invalid_argument naming the file and the JSON path
// or the application no function meets. An accepted plan must be one the platform can run:
// every group has a function with a batch in the planner's range, a finite non-negative cost,
// one non-negative timeout per application, and its applications' rates add up.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include "harmonybatch/baselines.hpp"
#include "harmonybatch/plan_io.hpp"
#include "sim/config/diagnostics.hpp"
#include "sim/config/json_text.hpp"
#include "sim/gpu_models/model_catalog.hpp"

namespace {

namespace hb = sim::policy::harmonybatch;

// Planning time grows faster than linearly in the applications (1,000 take ~3 s); a larger set
// tells the fuzzer nothing the reader's limit test does not, and would trip its timeout.
constexpr std::size_t kMaxFuzzApplications = 12;
constexpr std::size_t kMaxMbsApplications = 2;

const sim::gpu::ModelCatalog& catalog() {
  static const sim::gpu::ModelCatalog c =
      sim::gpu::ModelCatalog::load(std::filesystem::path(SIM_DATA_DIR) / "models");
  return c;
}

void check(const hb::Plan& p, const hb::PlannerOptions& o) {
  double rate = 0.0;
  for (const auto& g : p.groups) {
    const auto& f = g.function;
    const int max_b = f.type == hb::FunctionType::kCpu ? o.cpu_max_batch : o.gpu_max_batch;
    if (f.batch < 1 || f.batch > max_b) __builtin_trap();
    if (f.timeouts_s.size() != g.apps.size()) __builtin_trap();
    for (const double t : f.timeouts_s) {
      if (!(t >= -1e-9) || !std::isfinite(t)) __builtin_trap();
    }
    if (!std::isfinite(f.max_latency_s) || !(f.max_latency_s > 0.0)) __builtin_trap();
    rate += g.rate();
  }
  if (!std::isfinite(p.cost_per_request) || p.cost_per_request < 0.0) __builtin_trap();
  if (std::abs(rate - p.total_rate) > 1e-9 * std::max(1.0, p.total_rate)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto set =
        hb::parse_application_set(sim::config::parse_json_text(text, "apps.json"), "apps.json");
    if (set.apps.size() > kMaxFuzzApplications) return 0;
    const auto model = hb::PlannerModel::from_profile(catalog().model(set.model));
    const hb::PlannerOptions o;
    for (const char* algorithm : {"harmonybatch", "batch", "mbs+"}) {
      // MBS+ searches a grid per application and costs ~10x the others (0.9 s for 8
      // applications in a release build): fuzzed on small sets only, to keep executions fast.
      if (std::string_view(algorithm) == "mbs+" && set.apps.size() > kMaxMbsApplications) continue;
      try {
        check(hb::plan_with(algorithm, model, set.apps, o), o);
      } catch (const std::invalid_argument&) {
        // "no function meets application ...": a documented rejection.
      }
    }
  } catch (const sim::config::ConfigError&) {
  } catch (const std::invalid_argument&) {
    // parse_application_set (with the JSON path) or ModelCatalog::model (an unknown model,
    // with the nearest names) or from_profile (a model the planner has no coefficients for).
  }
  return 0;
}
