#include "sim/gpu_models/fit.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/engine/random.hpp"

namespace sim::gpu {
namespace {

/// `name` in a directory of this test process: ctest runs the cases of this file as parallel
/// processes, and two of them writing /tmp/bad.csv at once read each other's tables.
std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::path(::testing::TempDir()) /
                   ("dcsim-fit-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto p = dir / name;
  std::ofstream(p) << text;
  return p;
}

TEST(Fit, GpuLinearRecoversCoefficientsFromNoisyData) {
  RandomStream rng(7);
  std::vector<double> b, l;
  for (int batch = 1; batch <= 32; ++batch) {
    for (int rep = 0; rep < 5; ++rep) {
      b.push_back(batch);
      // HarmonyBatch VGG-19 on an A10 plus 0.2 ms of Gaussian noise.
      l.push_back(0.0016798 * batch + 0.0021131 + rng.normal(0, 0.0002));
    }
  }
  const LinearFit f = fit_gpu_linear(b, l);
  EXPECT_NEAR(f.xi1_s, 0.0016798, 2e-5);
  EXPECT_NEAR(f.xi2_s, 0.0021131, 2e-4);
  EXPECT_NEAR(f.rms_s, 0.0002, 5e-5);
  EXPECT_THROW((void)fit_gpu_linear(std::vector<double>{4, 4}, std::vector<double>{1, 2}),
               std::invalid_argument);
}

TEST(Fit, CpuExponentialRecoversCoefficientsFromNoisyData) {
  RandomStream rng(11);
  const ExpCoefficients truth{1.8260695578676214, 0.5283726420022545, 0.18015427168547402};
  std::vector<double> c, l;
  for (int i = 1; i <= 32; ++i) {
    for (int rep = 0; rep < 3; ++rep) {
      c.push_back(0.25 * i);
      l.push_back(cpu_latency_s(truth, 0.25 * i) + rng.normal(0, 0.002));
    }
  }
  const ExpFit f = fit_cpu_exp(c, l);
  EXPECT_NEAR(f.k.alpha, truth.alpha, 0.03 * truth.alpha);
  EXPECT_NEAR(f.k.beta, truth.beta, 0.02 * truth.beta);
  EXPECT_NEAR(f.k.gamma, truth.gamma, 0.01 * truth.gamma);
  // Without noise the fit is exact.
  std::vector<double> exact;
  for (double x : c)
    exact.push_back(cpu_latency_s(truth, x));
  const ExpFit e = fit_cpu_exp(c, exact);
  EXPECT_NEAR(e.k.beta, truth.beta, 1e-6);
  EXPECT_NEAR(e.k.alpha, truth.alpha, 1e-5);
}

TEST(Fit, MpsFbrSolvesTheLinearEquationsOfEq1) {
  RandomStream rng(3);
  const std::map<std::string, double> truth{{"a", 0.5}, {"b", 0.7}, {"c", 0.4}, {"d", 0.6}};
  std::vector<FbrObservation> obs;
  const std::vector<std::vector<std::string>> groups{
      {"a", "b"},      {"b", "c"},      {"d", "d"},      {"a", "d"}, {"b", "d"},
      {"a", "b", "c"}, {"b", "c", "d"}, {"a", "b", "d"}, {"c", "c"}};
  for (const auto& g : groups) {
    for (std::size_t k = 0; k < g.size(); ++k) {
      FbrObservation o;
      o.job = g[k];
      double sum = 0;
      for (std::size_t i = 0; i < g.size(); ++i) {
        sum += truth.at(g[i]);
        if (i != k) o.corunners.push_back(g[i]);
      }
      o.solo_s = 0.1;
      // Protean eq. 1 with 1% multiplicative noise.
      o.colocated_s = 0.1 * std::max(sum, 1.0) * (1.0 + rng.normal(0, 0.01));
      obs.push_back(o);
    }
  }
  const FbrFit f = fit_mps_fbr(obs);
  // {c, c} sums to 0.8 < 1 (measured ratio ~1, within the 2% clamp margin): no equation.
  EXPECT_EQ(f.skipped, 2u);
  for (const auto& [name, v] : truth)
    EXPECT_NEAR(f.fbr.at(name), v, 0.03) << name;
  // One co-location cannot separate two FBRs.
  EXPECT_THROW((void)fit_mps_fbr(std::vector<FbrObservation>{{"a", {"b"}, 0.1, 0.13}}),
               std::invalid_argument);
}

TEST(Fit, CsvEndToEndPrintsAFragment) {
  std::string csv = "# VGG-19 on an A10\nbatch,latency_s\n";
  for (int b : {1, 2, 4, 8, 16})
    csv += std::to_string(b) + "," + std::to_string(0.001 * b + 0.002) + "\n";
  const auto p = write_temp("gpu.csv", csv);
  std::ostringstream out;
  const auto j = fit("gpu-linear", p, out);
  EXPECT_NEAR(j["xi1_s"]["value"].get<double>(), 0.001, 1e-9);
  EXPECT_NEAR(j["xi2_s"]["value"].get<double>(), 0.002, 1e-9);
  EXPECT_EQ(
      j["xi1_s"]["source"].get<std::string>().rfind("dcsim fit gpu-linear gpu.csv (5 points", 0),
      0u);
  EXPECT_NE(out.str().find("\"xi1_s\""), std::string::npos);

  std::string fbr = "job,corunners,solo_s,colocated_s\n";
  fbr += "a,b,0.1,0.12\nb,a,0.2,0.24\na,c,0.1,0.11\nc,a,0.1,0.11\nb,c,0.1,0.13\n";
  std::ostringstream o2;
  const auto jf = fit("mps-fbr", write_temp("fbr.csv", fbr), o2);
  // a + b = 1.2, a + c = 1.1, b + c = 1.3 -> a = 0.5, b = 0.7, c = 0.6.
  EXPECT_NEAR(jf["a"]["fbr"]["value"].get<double>(), 0.5, 1e-9);
  EXPECT_NEAR(jf["b"]["fbr"]["value"].get<double>(), 0.7, 1e-9);
  EXPECT_NEAR(jf["c"]["fbr"]["value"].get<double>(), 0.6, 1e-9);

  std::string cpu = "batch,cores,stat,latency_s\n";
  const ExpCoefficients k{2.0, 0.5, 0.2};
  for (int b : {1, 2}) {
    for (double c : {0.5, 1.0, 2.0, 4.0}) {
      cpu += std::to_string(b) + "," + std::to_string(c) + ",avg," +
             std::to_string(cpu_latency_s(k, c) * b) + "\n";
    }
  }
  std::ostringstream o3;
  const auto jc = fit("cpu-exp", write_temp("cpu.csv", cpu), o3);
  ASSERT_EQ(jc["avg"]["value"].size(), 2u);
  EXPECT_NEAR(jc["avg"]["value"][0][1].get<double>(), 0.5, 1e-3);
  EXPECT_NEAR(jc["avg"]["value"][1][0].get<double>(), 4.0, 1e-2);
}

std::string fit_error(const std::string& kind, const std::string& text) {
  std::ostringstream out;
  try {
    (void)fit(kind, write_temp("bad.csv", text), out);
  } catch (const std::exception& e) {
    std::string s = e.what();
    const auto pos = s.find("bad.csv");
    return pos == std::string::npos ? s : s.substr(pos);
  }
  return "(ok)";
}

TEST(Fit, CsvErrorsNameFileAndLine) {
  EXPECT_EQ(fit_error("gpu-linear", "batch,latency_s\n1,0.1\n2,fast\n"),
            "bad.csv:3: column 'latency_s': expected a number, found 'fast'");
  EXPECT_EQ(fit_error("gpu-linear", "batch,latency\n1,0.1\n"),
            "bad.csv:1: unknown column 'latency' (expected: batch, latency_s)");
  EXPECT_EQ(fit_error("gpu-linear", "latency_s\n0.1\n"), "bad.csv:1: missing column 'batch'");
  EXPECT_EQ(fit_error("gpu-linear", "batch,latency_s\n1,0.1,3\n"),
            "bad.csv:2: expected 2 columns, found 3");
  EXPECT_EQ(fit_error("cpu-exp", "batch,cores,stat,latency_s\n1,1,mean,0.1\n"),
            "bad.csv:2: column 'stat': expected avg or max, found 'mean'");
  EXPECT_EQ(fit_error("gpu-linear", "batch,latency_s\n"), "bad.csv:1: no data rows");
  // Found by fuzz_fit_csv: a job name that is not UTF-8 reached the JSON dump and came out as
  // "[json.exception.type_error.316] invalid UTF-8 byte", without file or line.
  EXPECT_EQ(fit_error("mps-fbr", "job,corunners,solo_s,colocated_s\na\x91,b,0.1,0.12\n"),
            "bad.csv:2: not UTF-8 text (byte 0x91 at character 2)");
  // Found by fuzz_fit_csv: a batch of 5.6e37 was converted to int before its range was checked.
  EXPECT_EQ(fit_error("cpu-exp", "batch,cores,stat,latency_s\n5.6e37,1,avg,0.1\n"),
            "bad.csv:2: column 'batch': expected an integer from 1 to 1024");
  EXPECT_EQ(fit_error("cpu-exp", "batch,cores,stat,latency_s\n1.5,1,avg,0.1\n"),
            "bad.csv:2: column 'batch': expected an integer from 1 to 1024");
  EXPECT_EQ(fit_error("linear", "batch,latency_s\n1,1\n"),
            "unknown fit kind 'linear' (expected gpu-linear, cpu-exp or mps-fbr)");
}

// A file without newlines (such as /dev/zero) is rejected after one bounded line instead of
// being read whole looking for a header.
TEST(Fit, OverlongLinesAreRejectedWithoutReadingOn) {
  EXPECT_EQ(fit_error("gpu-linear", std::string(70000, 'x')),
            "bad.csv:1: line longer than 65536 bytes: not a measurement table");
  EXPECT_EQ(fit_error("gpu-linear", "batch,latency_s\n1,0.1\n2," + std::string(70000, '1')),
            "bad.csv:3: line longer than 65536 bytes: not a measurement table");
}

}  // namespace
}  // namespace sim::gpu
