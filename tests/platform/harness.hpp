#pragma once
// A ServerlessPlatform driven by hand-placed arrivals, for tests.

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "reference/autoscalers.hpp"
#include "reference/cluster_policies.hpp"
#include "reference/first_fit.hpp"
#include "reference/keep_alive.hpp"
#include "reference/request_path.hpp"
#include "reference/sourcing.hpp"
#include "sim/metrics/csv_format.hpp"
#include "sim/platform/serverless_platform.hpp"

namespace sim::platform::testing {

/// The repository's catalog plus tests/platform/data/test_models.json.
inline const gpu::ModelCatalog& catalog() {
  static const gpu::ModelCatalog c = [] {
    auto cat = gpu::ModelCatalog::load(SIM_SOURCE_DIR "/data/models");
    std::ifstream in(SIM_SOURCE_DIR "/tests/platform/data/test_models.json");
    std::stringstream text;
    text << in.rdbuf();
    cat.add_model_file("test_models.json", text.str());
    return cat;
  }();
  return c;
}

/// Reference policies; tests replace the ones they exercise.
inline Policies reference_policies() {
  namespace r = policy::reference;
  Policies p;
  p.batcher = std::make_unique<r::FifoBatcher>();
  p.dispatcher = std::make_unique<r::PullDispatcher>();
  p.autoscaler = std::make_unique<r::FixedPoolAutoscaler>(1);
  p.placement = std::make_unique<r::FirstFitPlacement>();
  p.partitioner = std::make_unique<r::StaticPartitioner>();
  p.keep_alive = std::make_unique<r::KeepForever>();
  p.sourcing = std::make_unique<r::CloudStoreSourcing>();
  p.procurement = std::make_unique<r::NoProcurement>();
  return p;
}

/// Reference policies with an autoscaler that starts nothing: the test starts instances itself.
inline Policies manual_policies() {
  Policies p = reference_policies();
  p.autoscaler = std::make_unique<policy::reference::FixedPoolAutoscaler>(0);
  return p;
}

inline HostTemplate host(int gpus, const std::string& type = "A100-40GB", int count = 1) {
  HostTemplate t = default_host_template();
  t.count = count;
  for (int g = 0; g < gpus; ++g)
    t.spec.gpus.push_back({type, cluster::GpuSharing::kExclusive, {}});
  return t;
}

inline FunctionSpec function(const std::string& name, const std::string& model, int batch) {
  FunctionSpec f = default_function_spec();
  f.name = name;
  f.model = model;
  f.config.max_batch = batch;
  return f;
}

/// A cluster of one host template with round cold-start rates for hand computation: downloads
/// from the store at 1 Gbit/s (1 GB in 8 s) and host-to-GPU copies at 2 Gbit/s (1 GB in 4 s).
inline ServerlessConfig config(HostTemplate hosts) {
  ServerlessConfig c = default_serverless_config();
  c.hosts.push_back(std::move(hosts));
  c.store_bps = 1e9;
  c.pcie_bps = 2e9;
  return c;
}

struct Harness {
  Simulation sim;
  traces::WorkloadLabels labels;
  std::vector<metrics::RequestRecord> records;
  std::unique_ptr<ServerlessPlatform> platform;
  std::uint64_t next_id = 0;
  std::uint64_t arrived = 0;

  /// The lifecycle events (output.events), one line each: "time event function instance host
  /// gpu device slice profile batch detail"; empty unless the harness was given a level.
  std::vector<std::string> events;

  Harness(ServerlessConfig config, Policies policies, std::uint64_t seed = 1,
          metrics::EventLevel event_level = metrics::EventLevel::kNone)
      : sim(seed) {
    for (const auto& f : config.functions)
      labels.function_id(f.name);
    labels.application_id("app");
    PlatformContext ctx;
    ctx.sim = &sim;
    ctx.labels = &labels;
    ctx.record = [this](const metrics::RequestRecord& r) { records.push_back(r); };
    ctx.event_level = event_level;
    ctx.events = [this](const metrics::LifecycleEvent& e) {
      std::ostringstream line;
      line << metrics::format_seconds(e.time) << ' ' << e.event << ' ' << e.function << ' '
           << e.instance << ' ' << e.host << ' ' << e.gpu << ' ' << e.device << ' ' << e.slice
           << ' ' << e.profile << ' ' << e.batch << ' ' << e.detail;
      events.push_back(line.str());
    };
    platform = std::make_unique<ServerlessPlatform>(std::move(config), catalog(), ctx,
                                                    std::move(policies));
  }

  void arrive(Time t, std::uint32_t function, Time slo = Time::zero(),
              traces::RequestClass cls = traces::RequestClass::kStrict) {
    traces::Arrival a;
    a.time = t;
    a.function = function;
    a.cls = cls;
    a.slo = slo;
    const std::uint64_t id = next_id++;
    sim.schedule_at(t, [this, a, id] {
      ++arrived;
      platform->on_arrival(a, id);
    });
  }
};

}  // namespace sim::platform::testing
