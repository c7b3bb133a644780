#include "sim/sweep/results.hpp"

#include <map>
#include <optional>

#include "sim/metrics/atomic_file.hpp"
#include "sim/metrics/csv_format.hpp"
#include "sim/sweep/statistics.hpp"

namespace sim::sweep {

using nlohmann::json;

namespace {

void flatten_into(const json& v, const std::string& path,
                  std::vector<std::pair<std::string, json>>& out) {
  if (v.is_object()) {
    for (const auto& [key, child] : v.items())
      flatten_into(child, path.empty() ? key : path + "." + key, out);
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i)
      flatten_into(v[i], path + "." + std::to_string(i), out);
  } else if (v.is_boolean()) {
    out.emplace_back(path, v.get<bool>() ? 1 : 0);
  } else if (v.is_number() || v.is_null()) {
    out.emplace_back(path, v);
  }
}

std::string cell(const json& v) {
  if (v.is_number_unsigned()) return std::to_string(v.get<std::uint64_t>());
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  if (v.is_number_float()) return metrics::format_double(v.get<double>());
  return "";
}

std::string cell(const std::optional<double>& v) {
  return v ? metrics::format_double(*v) : "";
}

bool succeeded(const RunReport& r) {
  return r.status == RunStatus::kDone || r.status == RunStatus::kUpToDate;
}

/// The union of metric names over the finished runs, in order of first appearance.
std::vector<std::string> metric_columns(
    const std::vector<std::vector<std::pair<std::string, json>>>& flat) {
  std::vector<std::string> columns;
  std::map<std::string, bool> seen;
  for (const auto& run : flat) {
    for (const auto& [name, value] : run) {
      if (seen.emplace(name, true).second) columns.push_back(name);
    }
  }
  return columns;
}

std::vector<std::vector<std::pair<std::string, json>>> flatten_all(
    const std::vector<RunReport>& reports) {
  std::vector<std::vector<std::pair<std::string, json>>> flat(reports.size());
  for (std::size_t i = 0; i < reports.size(); ++i) {
    if (succeeded(reports[i])) flat[i] = flatten_metrics(reports[i].summary);
  }
  return flat;
}

void write_row(std::ostream& out, const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out << ',';
    out << metrics::csv_escape(fields[i]);
  }
  out << '\n';
}

}  // namespace

std::vector<std::pair<std::string, json>> flatten_metrics(const json& summary) {
  std::vector<std::pair<std::string, json>> out;
  flatten_into(summary, "", out);
  return out;
}

void write_results_csv(const std::filesystem::path& path, const Plan& plan,
                       const std::vector<RunReport>& reports) {
  const auto flat = flatten_all(reports);
  const auto columns = metric_columns(flat);
  metrics::AtomicFile file(path);
  auto& out = file.stream();
  std::vector<std::string> header = {"run", "combination"};
  header.insert(header.end(), plan.axes.begin(), plan.axes.end());
  for (const char* h : {"seed", "status", "error"})
    header.emplace_back(h);
  header.insert(header.end(), columns.begin(), columns.end());
  write_row(out, header);
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    const PlannedRun& run = plan.runs[i];
    const RunReport& report = reports.at(i);
    std::vector<std::string> row = {run.name, run.combination_name};
    row.insert(row.end(), run.labels.begin(), run.labels.end());
    row.push_back(std::to_string(run.seed));
    row.push_back(status_name(report.status));
    row.push_back(report.error);
    std::map<std::string, const json*> values;
    for (const auto& [name, value] : flat[i])
      values.emplace(name, &value);
    for (const auto& c : columns) {
      const auto it = values.find(c);
      row.push_back(it == values.end() ? "" : cell(*it->second));
    }
    write_row(out, row);
  }
  file.commit();
}

void write_aggregate_csv(const std::filesystem::path& path, const Plan& plan,
                         const std::vector<RunReport>& reports) {
  const auto flat = flatten_all(reports);
  const auto columns = metric_columns(flat);
  metrics::AtomicFile file(path);
  auto& out = file.stream();
  std::vector<std::string> header = {"combination"};
  header.insert(header.end(), plan.axes.begin(), plan.axes.end());
  for (const char* h : {"metric", "n", "mean", "sd", "ci95_low", "ci95_high"})
    header.emplace_back(h);
  write_row(out, header);
  // Runs of one combination are consecutive in the plan, replications in seed order.
  std::size_t first = 0;
  while (first < plan.runs.size()) {
    std::size_t last = first;
    while (last < plan.runs.size() && plan.runs[last].combination == plan.runs[first].combination)
      ++last;
    std::map<std::string, std::vector<double>> samples;
    for (std::size_t i = first; i < last; ++i) {
      for (const auto& [name, value] : flat[i]) {
        if (value.is_number()) samples[name].push_back(value.get<double>());
      }
    }
    for (const auto& metric : columns) {
      const auto it = samples.find(metric);
      if (it == samples.end()) continue;
      const Statistics s = describe(it->second);
      std::vector<std::string> row = {plan.runs[first].combination_name};
      row.insert(row.end(), plan.runs[first].labels.begin(), plan.runs[first].labels.end());
      row.push_back(metric);
      row.push_back(std::to_string(s.n));
      row.push_back(metrics::format_double(s.mean));
      row.push_back(cell(s.sd));
      row.push_back(cell(s.ci_low));
      row.push_back(cell(s.ci_high));
      write_row(out, row);
    }
    first = last;
  }
  file.commit();
}

}  // namespace sim::sweep
