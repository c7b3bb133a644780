#include "sim/gpu_models/interference_fit.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "csv_table.hpp"
#include "sim/gpu_models/sharing_model.hpp"

namespace sim::gpu {

namespace {

struct Terms {
  double s = 1.0;  ///< max{1, sum c, sum d}
  double d = 0.0;  ///< co-runners' bandwidth
};

Terms terms(const InterferenceObservation& o) {
  const Demand own = demand_on(*o.job.model, o.job.batch, *o.gpu, o.profile);
  double compute = own.compute;
  double bandwidth = own.bandwidth;
  Terms t;
  for (const auto& c : o.corunners) {
    const Demand d = demand_on(*c.model, c.batch, *o.gpu, o.profile);
    compute += d.compute;
    bandwidth += d.bandwidth;
    t.d += d.bandwidth;
  }
  t.s = std::max({1.0, compute, bandwidth});
  return t;
}

}  // namespace

double predicted_slowdown(const InterferenceObservation& o, double kappa) {
  const Terms t = terms(o);
  return t.s * (1.0 + kappa * t.d);
}

InterferenceFit fit_mps_interference(std::span<const InterferenceObservation> obs) {
  double num = 0.0;
  double den = 0.0;
  for (const auto& o : obs) {
    const Terms t = terms(o);
    num += t.s * t.d * (o.slowdown - t.s);
    den += (t.s * t.d) * (t.s * t.d);
  }
  if (!(den > 0.0)) {
    throw std::invalid_argument(
        "mps-interference: no observation has a co-runner with bandwidth demand; kappa is "
        "undetermined");
  }
  InterferenceFit f;
  f.kappa = std::max(0.0, num / den);
  double sq = 0.0;
  for (const auto& o : obs) {
    f.predicted.push_back(predicted_slowdown(o, f.kappa));
    sq += (f.predicted.back() - o.slowdown) * (f.predicted.back() - o.slowdown);
  }
  f.rms = std::sqrt(sq / static_cast<double>(obs.size()));
  return f;
}

nlohmann::json fit_mps_interference_csv(const ModelCatalog& catalog,
                                        const std::filesystem::path& csv_path, std::ostream& out) {
  std::size_t header_line = 0;
  const detail::Csv csv = detail::read_csv(
      csv_path, {"gpu", "unit", "job", "batch", "corunners", "slowdown"}, &header_line);
  auto col = [&](const char* name) { return csv.column(name, header_line); };
  auto model = [&](const detail::CsvRow& r, const std::string& spec) {
    // "model" or "model:batch"
    CoRunner c;
    const auto colon = spec.find(':');
    const std::string name = spec.substr(0, colon);
    c.model = catalog.find(name);
    if (c.model == nullptr) csv.fail(r.line, "unknown model '" + name + "'");
    if (colon != std::string::npos) {
      try {
        c.batch = std::stoi(spec.substr(colon + 1));
      } catch (const std::exception&) {
        csv.fail(r.line, "expected model:batch, found '" + spec + "'");
      }
    }
    if (c.batch < 1) csv.fail(r.line, "batch must be >= 1 in '" + spec + "'");
    return c;
  };
  std::vector<InterferenceObservation> obs;
  for (const auto& r : csv.rows) {
    InterferenceObservation o;
    const std::string gpu = r.cells[col("gpu")];
    if (catalog.gpus().find(gpu) == catalog.gpus().end()) {
      csv.fail(r.line, "unknown GPU type '" + gpu + "'");
    }
    o.gpu = &catalog.gpu(gpu);
    const std::string unit = r.cells[col("unit")];
    if (unit != "whole") {
      o.profile = o.gpu->find_profile(unit);
      if (o.profile == nullptr) {
        csv.fail(r.line,
                 "unit: expected 'whole' or a MIG profile of " + gpu + ", found '" + unit + "'");
      }
    }
    o.job = model(r, r.cells[col("job")]);
    const double b = csv.number(r, col("batch"));
    // Range before the cast: converting a double outside int's range is undefined.
    if (!(b >= 1 && b <= 65536) || b != std::floor(b))
      csv.fail(r.line, "column 'batch': expected an integer from 1 to 65536");
    o.job.batch = static_cast<int>(b);
    for (const auto& c : detail::split(r.cells[col("corunners")], ';')) {
      if (!c.empty()) o.corunners.push_back(model(r, c));
    }
    o.slowdown = csv.number(r, col("slowdown"));
    if (!(o.slowdown >= 1.0)) csv.fail(r.line, "slowdown must be >= 1");
    try {
      (void)predicted_slowdown(o, 0.0);
    } catch (const std::invalid_argument& e) {
      csv.fail(r.line, e.what());
    }
    obs.push_back(std::move(o));
  }
  const InterferenceFit f = fit_mps_interference(obs);
  nlohmann::ordered_json frag;
  frag["mps_interference"] = {
      {"value", f.kappa},
      {"source", fmt::format("dcsim fit mps-interference {} ({} co-locations, least squares, rms "
                             "slowdown residual {:.3g}); model: docs/gpu-models.md",
                             csv_path.filename().string(), obs.size(), f.rms)}};
  out << frag.dump(2) << "\n";
  return nlohmann::json::parse(frag.dump());
}

}  // namespace sim::gpu
