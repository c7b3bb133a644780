#include "sim/scenario/run.hpp"

#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <optional>
#include <sstream>

#include "sim/engine/simulation.hpp"
#include "sim/gpu_models/model_catalog.hpp"
#include "sim/metrics/atomic_file.hpp"
#include "sim/metrics/csv_request_writer.hpp"
#include "sim/metrics/event_log.hpp"
#include "sim/metrics/hdf5_request_writer.hpp"
#include "sim/metrics/summary_builder.hpp"
#include "sim/metrics/time_series_recorder.hpp"
#include "sim/traces/merged_source.hpp"

namespace sim::scenario {

using nlohmann::json;
namespace fs = std::filesystem;

std::string dcsim_version() {
  return SIM_VERSION;
}

namespace {

/// Feeds arrivals into the platform one at a time: exactly one arrival event is pending, so
/// memory does not depend on the length of the workload.
class ArrivalPump {
 public:
  ArrivalPump(Simulation& sim, traces::ArrivalSource& source, platform::Platform& platform,
              Time horizon)
      : sim_(sim), source_(source), platform_(platform), horizon_(horizon) {}

  void start() { schedule_next(); }
  [[nodiscard]] std::uint64_t delivered() const { return delivered_; }

 private:
  void schedule_next() {
    auto next = source_.next();
    if (!next || next->time > horizon_) return;
    pending_ = *next;
    sim_.schedule_at(next->time, [this] { deliver(); });
  }
  void deliver() {
    platform_.on_arrival(pending_, delivered_++);
    schedule_next();
  }

  Simulation& sim_;
  traces::ArrivalSource& source_;
  platform::Platform& platform_;
  Time horizon_;
  traces::Arrival pending_;
  std::uint64_t delivered_ = 0;
};

/// Prints "sim 120s / 600s (20.0%)  wall 3.1s  4.2M events/s" at most twice a second, and only
/// after the first wall-clock second.
class ProgressReporter {
 public:
  using Clock = std::chrono::steady_clock;
  ProgressReporter(const Simulation& sim, Time horizon,
                   std::function<void(const std::string&)> sink)
      : sim_(sim), horizon_(horizon), sink_(std::move(sink)), started_(Clock::now()) {}

  void tick() {
    if (!sink_) return;
    const auto now = Clock::now();
    const double wall = std::chrono::duration<double>(now - started_).count();
    if (wall < 1.0 || now - last_ < std::chrono::milliseconds(500)) return;
    last_ = now;
    const double sim_s = sim_.now().to_seconds();
    const double rate = static_cast<double>(sim_.events_executed()) / wall;
    sink_(fmt::format("sim {:.1f}s / {:.0f}s ({:.1f}%)  wall {:.1f}s  {:.2f}M events/s", sim_s,
                      horizon_.to_seconds(), 100.0 * sim_s / horizon_.to_seconds(), wall,
                      rate / 1e6));
  }
  [[nodiscard]] double wall_seconds() const {
    return std::chrono::duration<double>(Clock::now() - started_).count();
  }

 private:
  const Simulation& sim_;
  Time horizon_;
  std::function<void(const std::string&)> sink_;
  Clock::time_point started_;
  Clock::time_point last_;
};

std::unique_ptr<metrics::RequestWriter> make_request_writer(const std::string& kind,
                                                            const fs::path& dir,
                                                            const metrics::NameTables& names) {
  if (kind == "hdf5") {
    return metrics::make_hdf5_request_writer(dir / "requests.h5", names);
  }
  if (kind == "csv") {
    return std::make_unique<metrics::CsvRequestWriter>(dir / "requests.csv", names);
  }
  return nullptr;
}

/// Runs a component's construction; an error that does not yet say where it is (a ConfigError
/// does) gets the scenario file and the component's JSON path, so that `run` and `validate`
/// name the place.
template <class Build>
auto located(const LoadedScenario& scenario, const std::string& path, Build&& build) {
  try {
    return build();
  } catch (const config::ConfigError&) {
    throw;
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: {}: {}", scenario.file.string(), path, e.what()));
  }
}

/// Workload: one source per entry, each with its own random-stream prefix, merged by time.
std::vector<std::unique_ptr<traces::ArrivalSource>> make_sources(
    const LoadedScenario& scenario, const Registry& registry, Simulation& sim,
    traces::WorkloadLabels& labels, const RunOptions& options, Time horizon) {
  std::vector<std::unique_ptr<traces::ArrivalSource>> sources;
  const json& workload = scenario.resolved.at("workload");
  for (std::size_t i = 0; i < workload.size(); ++i) {
    traces::WorkloadContext context;
    context.random = &sim.random();
    context.stream_prefix = fmt::format("workload/{}", i);
    context.trace_search_path = options.trace_search_path;
    context.labels = &labels;
    context.horizon = horizon;
    const json& entry = workload[i];
    sources.push_back(located(scenario, fmt::format("/workload/{}", i), [&] {
      return registry.workload(entry.at("type").get<std::string>()).make(entry, context);
    }));
  }
  return sources;
}

std::optional<gpu::ModelCatalog> load_catalog(const RunOptions& options) {
  std::optional<gpu::ModelCatalog> catalog;
  if (!options.data_dir.empty()) catalog = gpu::ModelCatalog::load(options.data_dir / "models");
  return catalog;
}

/// What a platform is built with; the caller sets where records go.
platform::PlatformContext platform_context(Simulation& sim, const traces::WorkloadLabels& labels,
                                           const std::optional<gpu::ModelCatalog>& catalog,
                                           const Registry& registry) {
  platform::PlatformContext pctx;
  pctx.sim = &sim;
  pctx.labels = &labels;
  pctx.catalog = catalog ? &*catalog : nullptr;
  pctx.policies = &registry.policies();
  return pctx;
}

std::unique_ptr<platform::Platform> make_platform(const LoadedScenario& scenario,
                                                  const Registry& registry,
                                                  const platform::PlatformContext& pctx) {
  const json& doc = scenario.resolved.at("platform");
  return located(scenario, "/platform", [&] {
    return registry.platform(doc.at("type").get<std::string>()).make(doc, pctx);
  });
}

}  // namespace

void check_scenario(const LoadedScenario& scenario, const Registry& registry,
                    const RunOptions& options) {
  const json& doc = scenario.resolved;
  Simulation sim(doc.at("seed").get<std::uint64_t>());
  traces::WorkloadLabels labels;
  // As in run_scenario: the merged source reads each source's first arrival, which is when
  // some sources (Poisson) intern their function names.
  const traces::MergedSource arrivals(make_sources(scenario, registry, sim, labels, options,
                                                   config::get_duration(doc, "duration")));
  const auto catalog = load_catalog(options);
  auto pctx = platform_context(sim, labels, catalog, registry);
  pctx.record = [](const metrics::RequestRecord&) {};
  const auto platform = make_platform(scenario, registry, pctx);
}

RunResult run_scenario(const LoadedScenario& scenario, const Registry& registry,
                       const RunOptions& options) {
  const json& doc = scenario.resolved;
  const auto seed = doc.at("seed").get<std::uint64_t>();
  const Time horizon = config::get_duration(doc, "duration");
  const Time warmup = config::get_duration(doc, "warmup");
  const std::string name = doc.at("name").get<std::string>();
  const json& output = doc.at("output");

  RunResult result;
  result.directory = options.out_dir / name;

  Simulation sim(seed);
  traces::WorkloadLabels labels;

  traces::MergedSource arrivals(make_sources(scenario, registry, sim, labels, options, horizon));

  // Names are complete once the merged source has read every source's first arrival.
  metrics::NameTables names{labels.functions(), labels.applications()};
  std::unique_ptr<metrics::RequestWriter> writer;  // created once the platform is built
  metrics::SummaryBuilder summary(warmup);

  const auto catalog = load_catalog(options);

  auto pctx = platform_context(sim, labels, catalog, registry);
  pctx.record = [&](const metrics::RequestRecord& r) {
    summary.add(r);
    if (options.on_record) options.on_record(r);
    if (!writer) return;
    // Per-function traces name functions as they reach them: extend the writer's tables.
    if (r.function >= names.functions.size() || r.application >= names.applications.size()) {
      names = metrics::NameTables{labels.functions(), labels.applications()};
      writer->extend_names(names);
    }
    writer->write(r);
  };
  // The event log writes to a file only; without files its events go nowhere (none asked).
  const metrics::EventLevel event_level =
      metrics::parse_event_level(output.at("events").get<std::string>());
  std::optional<metrics::CsvEventWriter> event_writer;
  if (options.write_files && event_level != metrics::EventLevel::kNone) {
    fs::create_directories(result.directory);
    event_writer.emplace(result.directory / "events.csv");
    pctx.event_level = event_level;
    pctx.events = [&event_writer](const metrics::LifecycleEvent& e) { event_writer->write(e); };
  }
  auto platform = make_platform(scenario, registry, pctx);

  // Only a scenario that built leaves an output folder behind.
  std::ostringstream no_timeseries;
  std::optional<metrics::TimeSeriesRecorder> timeseries_store;
  if (options.write_files) {
    fs::create_directories(result.directory);
    writer = make_request_writer(output.at("requests").get<std::string>(), result.directory, names);
    timeseries_store.emplace(result.directory / "timeseries.csv");
  } else {
    timeseries_store.emplace(options.timeseries_text != nullptr ? *options.timeseries_text
                                                                : no_timeseries);
  }
  metrics::TimeSeriesRecorder& timeseries = *timeseries_store;
  std::uint64_t arrived = 0;
  timeseries.add_column("requests_in_system",
                        [&] { return static_cast<double>(platform->requests_in_system()); });
  platform->add_timeseries_columns(timeseries);
  timeseries.start_periodic(sim, config::get_duration(output, "timeseries_period"), horizon);

  ArrivalPump pump(sim, arrivals, *platform, horizon);
  pump.start();

  ProgressReporter progress(sim, horizon, options.progress);
  bool interrupted = false;
  sim.set_observer(
      [&] {
        if (options.interrupted && options.interrupted()) {
          interrupted = true;
          sim.stop();
        }
        progress.tick();
      },
      4096);
  const RunOutcome outcome = sim.run_until(horizon);
  result.partial = interrupted || outcome == RunOutcome::kStopped;
  arrived = pump.delivered();

  json extra = platform->summary_extra(sim.now());
  extra["partial"] = result.partial;
  extra["run"] = json{{"dcsim_version", dcsim_version()},
                      {"seed", seed},
                      {"scenario", name},
                      {"simulated_until_s", sim.now().to_seconds()},
                      {"events", sim.events_executed()}};
  // Conservation: every arrival is recorded or still in the system at the end.
  extra["requests_arrived"] = arrived;
  extra["requests_in_system_at_end"] = platform->requests_in_system();

  metrics::SummaryContext sctx;
  sctx.names = metrics::NameTables{labels.functions(), labels.applications()};  // complete now
  sctx.duration = sim.now();
  sctx.extra = std::move(extra);
  result.summary = summary.build(sctx);

  if (writer) writer->close();
  if (event_writer) event_writer->close();
  timeseries.close();
  if (options.write_files) {
    metrics::write_json_atomic(result.directory / "scenario.json", doc);
    metrics::write_json_atomic(result.directory / "summary.json", result.summary);
  }
  result.names = metrics::NameTables{labels.functions(), labels.applications()};
  result.events = sim.events_executed();
  result.wall_seconds = progress.wall_seconds();
  return result;
}

namespace {
std::string cell(const json& v, const char* fmt_spec, double scale = 1.0) {
  if (v.is_null()) return "-";
  return fmt::format(fmt::runtime(fmt_spec), v.get<double>() * scale);
}
}  // namespace

void print_summary_table(const json& s, std::ostream& out) {
  const json& req = s.at("requests");
  const json& lat = s.at("latency_s");
  out << fmt::format("{:<28}{}\n", "requests arrived", s.value("requests_arrived", 0));
  out << fmt::format("{:<28}{} ok, {} SLO miss, {} dropped, {} in system at end\n",
                     "requests recorded", req.value("ok", 0), req.value("slo_miss", 0),
                     req.value("dropped", 0), s.value("requests_in_system_at_end", 0));
  out << fmt::format("{:<28}{}\n", "SLO compliance",
                     cell(s.at("slo").at("compliance"), "{:.2f}%", 100.0));
  out << fmt::format("{:<28}{}\n", "throughput", cell(s.at("throughput_rps"), "{:.1f} req/s"));
  out << fmt::format("{:<28}mean {}  p50 {}  p99 {}  p99.9 {}\n", "latency (ms)",
                     cell(lat.at("mean"), "{:.2f}", 1e3), cell(lat.at("p50"), "{:.2f}", 1e3),
                     cell(lat.at("p99"), "{:.2f}", 1e3), cell(lat.at("p999"), "{:.2f}", 1e3));
  if (s.contains("gpu_utilisation")) {
    out << fmt::format("{:<28}{}\n", "GPU utilisation",
                       cell(s.at("gpu_utilisation"), "{:.1f}%", 100.0));
  }
  if (s.value("partial", false)) out << "(partial run: interrupted before the end)\n";
}

}  // namespace sim::scenario
