// Calibration of the MPS interference term kappa (sharing_model.hpp, interference_fit.hpp).

#include "sim/gpu_models/interference_fit.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/engine/random.hpp"
#include "test_helpers.hpp"

namespace sim::gpu {
namespace {

using testing::a100;
using testing::linear_model;

TEST(InterferenceFit, OneCoLocationHandComputed) {
  const GpuType gpu = a100();
  // L(4) = 4 ms x 4 + 4 ms = 20 ms, so c = xi1 b / L(b) = 16 / 20 = 0.8; d = fbr = 0.58 on 7g.
  const ModelProfile m = linear_model("albert-like", 0.004, 0.004, 0.58);
  InterferenceObservation o{&gpu, nullptr, {&m, 4}, {{&m, 4}}, 3.3333};
  // s = max{1, 0.8 + 0.8, 0.58 + 0.58} = 1.6; 3.3333 = 1.6 (1 + 0.58 kappa)
  // -> kappa = (3.3333 / 1.6 - 1) / 0.58 = 1.86778.
  EXPECT_NEAR(predicted_slowdown(o, 0.0), 1.6, 1e-12);
  const std::vector<InterferenceObservation> obs{o};
  const InterferenceFit f = fit_mps_interference(obs);
  EXPECT_NEAR(f.kappa, (3.3333 / 1.6 - 1) / 0.58, 1e-9);
  EXPECT_NEAR(f.rms, 0.0, 1e-9);
  EXPECT_NEAR(predicted_slowdown(o, f.kappa), 3.3333, 1e-9);
}

TEST(InterferenceFit, RecoversKappaFromRandomCoLocations) {
  const GpuType gpu = a100();
  RandomStream rng(17);
  std::vector<ModelProfile> models;
  for (int i = 0; i < 6; ++i) {
    models.push_back(linear_model("m" + std::to_string(i), rng.uniform(0.0005, 0.002),
                                  rng.uniform(0.001, 0.02), rng.uniform(0.1, 0.7)));
  }
  const double truth = 0.42;
  std::vector<InterferenceObservation> exact, noisy;
  for (int k = 0; k < 60; ++k) {
    InterferenceObservation o;
    o.gpu = &gpu;
    const int pidx = static_cast<int>(rng.uniform(0, 5));  // whole GPU or a slice
    o.profile = pidx == 0 ? nullptr : &gpu.mig_profiles[static_cast<std::size_t>(pidx - 1)];
    o.job = {&models[static_cast<std::size_t>(rng.uniform(0, 6))],
             static_cast<int>(rng.uniform(1, 64))};
    const int n = 1 + static_cast<int>(rng.uniform(0, 4));
    for (int j = 0; j < n; ++j) {
      o.corunners.push_back({&models[static_cast<std::size_t>(rng.uniform(0, 6))],
                             static_cast<int>(rng.uniform(1, 64))});
    }
    o.slowdown = predicted_slowdown(o, truth);
    exact.push_back(o);
    o.slowdown *= 1.0 + rng.normal(0, 0.02);
    noisy.push_back(o);
  }
  EXPECT_NEAR(fit_mps_interference(exact).kappa, truth, 1e-9);
  EXPECT_NEAR(fit_mps_interference(noisy).kappa, truth, 0.05);
}

TEST(InterferenceFit, UndeterminedWithoutCoRunnerBandwidth) {
  const GpuType gpu = a100();
  const ModelProfile m = linear_model("m", 0.001, 0.01, 0.3);
  const std::vector<InterferenceObservation> solo{{&gpu, nullptr, {&m, 8}, {}, 1.0}};
  EXPECT_THROW((void)fit_mps_interference(solo), std::invalid_argument);
}

// The catalog's kappa must be what `dcsim fit mps-interference` gives on the checked-in
// measurements: a stale value fails here rather than silently drifting from its provenance.
TEST(InterferenceFit, CatalogValueIsTheFitOfTheCheckedInMeasurements) {
  const auto catalog = ModelCatalog::load(SIM_SOURCE_DIR "/data/models");
  std::ostringstream out;
  const auto frag = fit_mps_interference_csv(
      catalog, SIM_SOURCE_DIR "/data/models/measurements/protean-fig2-interference.csv", out);
  const double fitted = frag["mps_interference"]["value"].get<double>();
  EXPECT_NEAR(catalog.gpu("A100-40GB").mps_interference, fitted, 1e-4);
}

TEST(InterferenceFit, CsvErrorsNameFileAndLine) {
  const auto catalog = ModelCatalog::load(SIM_SOURCE_DIR "/data/models");
  const auto p = std::filesystem::path(::testing::TempDir()) / "interference_bad.csv";
  std::ofstream(p) << "gpu,unit,job,batch,corunners,slowdown\n"
                   << "A100-40GB,whole,protean/albert,4,protean/albert:4,3.3\n"
                   << "A100-40GB,9g.80gb,protean/albert,4,protean/albert:4,3.3\n";
  std::ostringstream out;
  try {
    (void)fit_mps_interference_csv(catalog, p, out);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("interference_bad.csv"), std::string::npos) << what;
    EXPECT_NE(what.find(":3"), std::string::npos) << what;
    EXPECT_NE(what.find("9g.80gb"), std::string::npos) << what;
  }
  // A batch beyond int's range was converted to int (undefined behaviour) before this check.
  std::ofstream(p) << "gpu,unit,job,batch,corunners,slowdown\n"
                   << "A100-40GB,whole,protean/albert,5e37,protean/albert:4,3.3\n";
  try {
    (void)fit_mps_interference_csv(catalog, p, out);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("interference_bad.csv:2: column 'batch': expected an integer from 1 to "
                        "65536"),
              std::string::npos)
        << what;
  }
}

}  // namespace
}  // namespace sim::gpu
