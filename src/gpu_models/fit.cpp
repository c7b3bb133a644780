#include "sim/gpu_models/fit.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <Eigen/Dense>

#include "csv_table.hpp"

namespace sim::gpu {

namespace {

using detail::Csv;
using detail::read_csv;
using detail::split;

// Least squares of y = alpha * exp(-x / beta) + gamma for a fixed beta; returns the squared
// residual and writes alpha, gamma.
double exp_residual(std::span<const double> x, std::span<const double> y, double beta,
                    double* alpha, double* gamma) {
  const auto n = static_cast<Eigen::Index>(x.size());
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd b(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    a(i, 0) = std::exp(-x[static_cast<std::size_t>(i)] / beta);
    a(i, 1) = 1.0;
    b(i) = y[static_cast<std::size_t>(i)];
  }
  const Eigen::Vector2d sol = a.colPivHouseholderQr().solve(b);
  *alpha = sol(0);
  *gamma = sol(1);
  return (a * sol - b).squaredNorm();
}

}  // namespace

LinearFit fit_gpu_linear(std::span<const double> batch, std::span<const double> latency_s) {
  if (batch.size() != latency_s.size()) throw std::invalid_argument("gpu-linear: size mismatch");
  std::set<double> distinct(batch.begin(), batch.end());
  if (distinct.size() < 2) {
    throw std::invalid_argument("gpu-linear: need at least two distinct batch sizes");
  }
  const auto n = static_cast<Eigen::Index>(batch.size());
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd b(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    a(i, 0) = batch[static_cast<std::size_t>(i)];
    a(i, 1) = 1.0;
    b(i) = latency_s[static_cast<std::size_t>(i)];
  }
  const Eigen::Vector2d sol = a.colPivHouseholderQr().solve(b);  // HarmonyBatch eq. (2)
  LinearFit f;
  f.xi1_s = sol(0);
  f.xi2_s = sol(1);
  f.rms_s = std::sqrt((a * sol - b).squaredNorm() / static_cast<double>(n));
  return f;
}

ExpFit fit_cpu_exp(std::span<const double> cores, std::span<const double> latency_s) {
  if (cores.size() != latency_s.size()) throw std::invalid_argument("cpu-exp: size mismatch");
  std::set<double> distinct(cores.begin(), cores.end());
  if (distinct.size() < 3) {
    throw std::invalid_argument("cpu-exp: need at least three distinct core counts");
  }
  for (double c : cores) {
    if (!(c > 0)) throw std::invalid_argument("cpu-exp: cores must be > 0");
  }
  // Variable projection: scan beta on a log grid, then golden-section search around the best.
  constexpr double kLo = 1e-3;
  constexpr double kHi = 1e3;
  constexpr int kGrid = 241;
  double a = 0.0;
  double g = 0.0;
  auto cost = [&](double beta) { return exp_residual(cores, latency_s, beta, &a, &g); };
  int best = 0;
  double best_cost = INFINITY;
  auto grid = [&](int i) {
    return kLo * std::pow(kHi / kLo, static_cast<double>(i) / (kGrid - 1));
  };
  for (int i = 0; i < kGrid; ++i) {
    const double c = cost(grid(i));
    if (c < best_cost) {
      best_cost = c;
      best = i;
    }
  }
  double lo = std::log(grid(std::max(0, best - 1)));
  double hi = std::log(grid(std::min(kGrid - 1, best + 1)));
  const double phi = (std::sqrt(5.0) - 1.0) / 2.0;
  double x1 = hi - phi * (hi - lo);
  double x2 = lo + phi * (hi - lo);
  double f1 = cost(std::exp(x1));
  double f2 = cost(std::exp(x2));
  for (int it = 0; it < 200 && hi - lo > 1e-12; ++it) {
    if (f1 < f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - phi * (hi - lo);
      f1 = cost(std::exp(x1));
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + phi * (hi - lo);
      f2 = cost(std::exp(x2));
    }
  }
  ExpFit f;
  f.k.beta = std::exp((lo + hi) / 2.0);
  const double r = cost(f.k.beta);
  f.k.alpha = a;
  f.k.gamma = g;
  f.rms_s = std::sqrt(r / static_cast<double>(cores.size()));
  return f;
}

FbrFit fit_mps_fbr(std::span<const FbrObservation> observations) {
  std::set<std::string> names;
  for (const auto& o : observations) {
    names.insert(o.job);
    names.insert(o.corunners.begin(), o.corunners.end());
  }
  const std::vector<std::string> unknowns(names.begin(), names.end());
  auto index = [&](const std::string& n) {
    return static_cast<Eigen::Index>(std::lower_bound(unknowns.begin(), unknowns.end(), n) -
                                     unknowns.begin());
  };
  FbrFit fit;
  std::vector<const FbrObservation*> used;
  for (const auto& o : observations) {
    if (!(o.solo_s > 0.0) || !(o.colocated_s > 0.0)) {
      throw std::invalid_argument("mps-fbr: solo_s and colocated_s must be > 0 (job " + o.job +
                                  ")");
    }
    // Eq. (1) clamps at 1: a ratio <= 1 only says the FBR sum is <= 1, not what it is, and a
    // ratio within measurement noise of 1 may still be the clamp.
    if (o.colocated_s / o.solo_s <= kMinFbrSlowdown || o.corunners.empty()) {
      ++fit.skipped;
    } else {
      used.push_back(&o);
    }
  }
  const auto rows = static_cast<Eigen::Index>(used.size());
  const auto cols = static_cast<Eigen::Index>(unknowns.size());
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(rows, cols);
  Eigen::VectorXd b(rows);
  for (Eigen::Index r = 0; r < rows; ++r) {
    const auto& o = *used[static_cast<std::size_t>(r)];
    a(r, index(o.job)) += 1.0;  // Protean eq. (1): fbr_k + sum_i fbr_i = T_k / Solo_k
    for (const auto& c : o.corunners)
      a(r, index(c)) += 1.0;
    b(r) = o.colocated_s / o.solo_s;
  }
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
  if (rows == 0 || qr.rank() < cols) {
    throw std::invalid_argument(fmt::format(
        "mps-fbr: {} usable co-location(s) (slowdown > 1) determine only {} of {} FBRs; add "
        "co-locations with different partners",
        rows, rows == 0 ? 0 : qr.rank(), cols));
  }
  const Eigen::VectorXd x = qr.solve(b);
  for (Eigen::Index i = 0; i < cols; ++i)
    fit.fbr[unknowns[static_cast<std::size_t>(i)]] = x(i);
  fit.equations = used.size();
  fit.rms = std::sqrt((a * x - b).squaredNorm() / static_cast<double>(rows));
  return fit;
}

nlohmann::json fit(std::string_view kind, const std::filesystem::path& csv_path,
                   std::ostream& out) {
  nlohmann::ordered_json frag;
  std::size_t header_line = 0;
  const std::string file = csv_path.filename().string();
  if (kind == "gpu-linear") {
    Csv csv = read_csv(csv_path, {"batch", "latency_s"}, &header_line);
    std::vector<double> b;
    std::vector<double> l;
    for (const auto& r : csv.rows) {
      b.push_back(csv.number(r, csv.column("batch", header_line)));
      l.push_back(csv.number(r, csv.column("latency_s", header_line)));
      if (b.back() < 1 || l.back() <= 0) csv.fail(r.line, "need batch >= 1 and latency_s > 0");
    }
    const LinearFit f = fit_gpu_linear(b, l);
    const std::string src = fmt::format(
        "dcsim fit gpu-linear {} ({} points, rms residual {:.3g} s), HarmonyBatch eq. 2", file,
        b.size(), f.rms_s);
    frag["xi1_s"] = {{"value", f.xi1_s}, {"unit", "s"}, {"source", src}};
    frag["xi2_s"] = {{"value", f.xi2_s}, {"unit", "s"}, {"source", src}};
  } else if (kind == "cpu-exp") {
    Csv csv = read_csv(csv_path, {"batch", "cores", "stat", "latency_s"}, &header_line);
    std::map<std::string, std::map<int, std::pair<std::vector<double>, std::vector<double>>>> data;
    for (const auto& r : csv.rows) {
      const double bd = csv.number(r, csv.column("batch", header_line));
      const std::string stat = r.cells[csv.column("stat", header_line)];
      if (stat != "avg" && stat != "max") {
        csv.fail(r.line, "column 'stat': expected avg or max, found '" + stat + "'");
      }
      // Range before the cast: converting a double outside int's range is undefined
      // (fuzz_fit_csv found a batch of 5.6e37).
      if (!(bd >= 1 && bd <= 1024) || bd != std::floor(bd))
        csv.fail(r.line, "column 'batch': expected an integer from 1 to 1024");
      const int b = static_cast<int>(bd);
      auto& d = data[stat][b];
      d.first.push_back(csv.number(r, csv.column("cores", header_line)));
      d.second.push_back(csv.number(r, csv.column("latency_s", header_line)));
    }
    for (const auto& [stat, by_batch] : data) {
      nlohmann::ordered_json rows = nlohmann::ordered_json::array();
      int expect = 1;
      std::string detail;
      for (const auto& [b, d] : by_batch) {
        if (b != expect) {
          throw std::runtime_error(
              fmt::format("{}: stat {}: batches must be 1..B without gaps (missing batch {})",
                          csv.file, stat, expect));
        }
        ++expect;
        const ExpFit f = fit_cpu_exp(d.first, d.second);
        rows.push_back({f.k.alpha, f.k.beta, f.k.gamma});
        detail += fmt::format("{}b={}: {} points, rms {:.3g} s", detail.empty() ? "" : "; ", b,
                              d.first.size(), f.rms_s);
      }
      frag[stat] = {
          {"value", rows},
          {"unit", "[s, cores, s] per batch 1..B"},
          {"source", fmt::format("dcsim fit cpu-exp {} ({}), HarmonyBatch eq. 1", file, detail)}};
    }
  } else if (kind == "mps-fbr") {
    Csv csv = read_csv(csv_path, {"job", "corunners", "solo_s", "colocated_s"}, &header_line);
    std::vector<FbrObservation> obs;
    for (const auto& r : csv.rows) {
      FbrObservation o;
      o.job = r.cells[csv.column("job", header_line)];
      if (o.job.empty()) csv.fail(r.line, "column 'job' is empty");
      for (const auto& c : split(r.cells[csv.column("corunners", header_line)], ';')) {
        if (!c.empty()) o.corunners.push_back(c);
      }
      o.solo_s = csv.number(r, csv.column("solo_s", header_line));
      o.colocated_s = csv.number(r, csv.column("colocated_s", header_line));
      if (!(o.solo_s > 0) || !(o.colocated_s > 0)) csv.fail(r.line, "times must be > 0");
      obs.push_back(std::move(o));
    }
    const FbrFit f = fit_mps_fbr(obs);
    const std::string src = fmt::format(
        "dcsim fit mps-fbr {} ({} co-locations solved by least squares, {} without slowdown "
        "skipped, rms residual {:.3g}), Protean eq. 1 / §3",
        file, f.equations, f.skipped, f.rms);
    for (const auto& [name, v] : f.fbr)
      frag[name]["fbr"] = {{"value", v}, {"source", src}};
  } else {
    throw std::invalid_argument("unknown fit kind '" + std::string(kind) +
                                "' (expected gpu-linear, cpu-exp or mps-fbr)");
  }
  out << frag.dump(2) << "\n";
  return nlohmann::json::parse(frag.dump());
}

}  // namespace sim::gpu
