// The maximum sustained load by bisection (rate_search.hpp).

#include "sim/reproduce/rate_search.hpp"

#include <cmath>
#include <stdexcept>

namespace sim::reproduce {

using nlohmann::json;

RateSearchResult search_rate(const RateSearch& s, const RateRun& run) {
  if (!(s.high > s.low) || s.steps < 1) {
    throw std::invalid_argument("search_rate: expected high > low and at least one step");
  }
  RateSearchResult r;
  double low = s.low;
  double high = s.high;
  for (int i = 0; i < s.steps; ++i) {
    // nearbyint rounds half to even in the default rounding mode, as Python's round() does.
    const double mid = std::nearbyint((low + high) / 2.0);
    const auto compliance = run(mid);
    if (!compliance) {
      r.interrupted = true;
      return r;
    }
    r.probes.push_back({mid, *compliance});
    if (*compliance >= s.target) {
      r.rate = mid;
      r.compliance = *compliance;
      low = mid;
    } else {
      high = mid;
    }
  }
  return r;
}

double search_compliance(const json& summary) {
  const auto& slo = summary.at("slo");
  const double with_slo =
      slo.at("with_slo").get<double>() + summary.value("requests_in_system_at_end", 0.0);
  return with_slo > 0.0 ? slo.at("met").get<double>() / with_slo : 0.0;
}

json search_block(const RateSearchResult& r, std::size_t workloads) {
  json probes = json::array();
  for (const auto& p : r.probes)
    probes.push_back({{"rate_per_workload", p.rate}, {"compliance", p.compliance}});
  return {{"rate_per_workload", r.rate},
          {"workloads", workloads},
          {"slo_compliance", r.compliance},
          {"throughput_rps", r.rate * static_cast<double>(workloads) * r.compliance},
          {"probes", std::move(probes)}};
}

}  // namespace sim::reproduce
