// The "serverless" platform kind: the factory that turns a section resolved against its schema
// (serverless_schema.cpp) into a ServerlessPlatform.

#include <fmt/format.h>

#include <stdexcept>

#include "serverless_schema.hpp"
#include "sim/platform/serverless_platform.hpp"
#include "sim/policy/planner.hpp"
#include "sim/policy/policy_registry.hpp"

namespace sim::platform {

using nlohmann::json;

namespace {

double bytes_of(const json& o, const std::string& key) {
  return config::get_bytes(o, key);
}

/// The largest cluster a run builds: each host template may have 100,000 hosts and each host
/// 64 GPUs (the schema), but their product -- 6.4 million GPUs -- took 42 s and 7.4 GB just to
/// validate. One million GPUs (about 1.2 GB of platform state) is 250 times Flashpoint's
/// 1,600-GPU datacenter and 250 times INFless's 2,000-server simulation; raise these
/// constants for a larger study on a machine with the memory.
constexpr long long kMaxClusterHosts = 100'000;
constexpr long long kMaxClusterGpus = 1'000'000;

void check_cluster_size(const std::vector<HostTemplate>& templates) {
  long long hosts = 0;
  long long gpus = 0;
  for (const HostTemplate& t : templates) {
    hosts += t.count;
    gpus += static_cast<long long>(t.count) * static_cast<long long>(t.spec.gpus.size());
  }
  if (hosts > kMaxClusterHosts) {
    throw std::invalid_argument(
        fmt::format("cluster.hosts: {} hosts in all, at most {} are simulated (kMaxClusterHosts in "
                    "src/platform/serverless_kind.cpp)",
                    hosts, kMaxClusterHosts));
  }
  if (gpus > kMaxClusterGpus) {
    throw std::invalid_argument(fmt::format(
        "cluster.hosts: {} GPUs in all, at most {} are simulated (about 1.2 GB of state; "
        "kMaxClusterGpus in src/platform/serverless_kind.cpp)",
        gpus, kMaxClusterGpus));
  }
}

}  // namespace

PlatformKind serverless_platform_kind() {
  const auto schema = serverless_schema();
  PlatformKind kind;
  kind.name = "serverless";
  kind.description = schema->description();
  kind.schema = schema;
  kind.make = [](const json& p, PlatformContext context) -> std::unique_ptr<Platform> {
    if (context.catalog == nullptr || context.policies == nullptr) {
      throw std::invalid_argument(
          "the serverless platform needs the model catalog and the policy registry (run it "
          "through dcsim or pass RunOptions::data_dir)");
    }
    ServerlessConfig c;
    const json& cl = p.at("cluster");
    for (const json& h : cl.at("hosts")) {
      HostTemplate t;
      t.count = h.at("count").get<int>();
      t.spec.cores = h.at("cores").get<double>();
      t.spec.memory_bytes = bytes_of(h, "memory");
      t.spec.market = cluster::parse_market(h.at("market").get<std::string>());
      t.spec.price_per_hour = h.at("price_per_hour").get<double>();
      for (const json& g : h.at("gpus")) {
        cluster::GpuSpec gs;
        gs.type = g.at("type").get<std::string>();
        gs.sharing = cluster::parse_gpu_sharing(g.at("sharing").get<std::string>());
        gs.mig = g.at("mig").get<std::vector<std::string>>();
        for (int k = 0; k < g.at("count").get<int>(); ++k)
          t.spec.gpus.push_back(gs);
      }
      c.hosts.push_back(std::move(t));
    }
    check_cluster_size(c.hosts);
    c.pcie_bps = config::get_bitrate(cl, "pcie_bandwidth");
    c.load_bps = config::get_bitrate(cl, "load_bandwidth");
    c.store_bps = config::get_bitrate(cl, "store_bandwidth");
    c.host_bps = config::get_bitrate(cl, "host_bandwidth");
    c.provisioning_delay = config::get_duration(cl, "provisioning_delay");
    c.runtime_start = config::get_duration(cl, "runtime_start");
    c.spot.revocations_per_hour = cl.at("spot_revocations_per_hour").get<double>();
    c.spot.notice_min = config::get_duration(cl, "spot_notice_min");
    c.spot.notice_max = config::get_duration(cl, "spot_notice_max");
    if (c.spot.notice_max < c.spot.notice_min) {
      throw std::invalid_argument("platform.cluster: spot_notice_max is below spot_notice_min");
    }
    for (const json& r : cl.at("revocations"))
      c.spot.scheduled.push_back({r.at("host").get<int>(), config::get_duration(r, "at")});
    if (p.contains("network") && !p.at("network").is_null()) c.network = p.at("network");
    for (const json& f : p.at("functions")) {
      FunctionSpec fs;
      fs.name = f.at("name").get<std::string>();
      fs.model = f.at("model").get<std::string>();
      fs.gpu = f.at("resource").get<std::string>() == "gpu";
      fs.config.max_batch = f.at("max_batch").get<int>();
      fs.config.cpu_cores = fs.gpu ? 0.0 : f.at("cores").get<double>();
      fs.config.gpu_share = f.at("gpu_share").get<double>();
      fs.config.time_slice_gb = fs.gpu ? bytes_of(f, "time_slice_memory") / 1e9 : 0.0;
      fs.config.cpu_threads = fs.gpu ? f.at("cpu_threads").get<int>() : 0;
      if (f.contains("model_size") && !f.at("model_size").is_null())
        fs.model_bytes = bytes_of(f, "model_size");
      if (f.contains("device_memory") && !f.at("device_memory").is_null())
        fs.device_memory_gb = bytes_of(f, "device_memory") / 1e9;
      fs.batch_timeout = config::get_duration(f, "batch_timeout");
      for (const json& a : f.at("application_timeouts"))
        fs.app_timeouts[a.at("application").get<std::string>()] =
            config::get_duration(a, "timeout");
      fs.queue_group = f.at("queue_group").get<std::string>();
      if (f.contains("billing_memory") && !f.at("billing_memory").is_null())
        fs.billing_memory_gb = bytes_of(f, "billing_memory") / 1e9;
      if (f.contains("billing_cores") && !f.at("billing_cores").is_null())
        fs.billing_cores = f.at("billing_cores").get<double>();
      c.functions.push_back(std::move(fs));
    }
    c.control_interval = config::get_duration(p, "control_interval");
    c.rate_windows.clear();
    for (const json& w : p.at("rate_windows")) {
      json tmp{{"w", w}};
      c.rate_windows.push_back(config::get_duration(tmp, "w"));
    }
    c.charge_decision_time = p.at("charge_decision_time").get<bool>();
    c.queue_capacity = p.at("queue_capacity").get<std::uint64_t>();
    const auto scope = p.at("dispatch_scope").get<std::string>();
    c.dispatch_scope = scope == "node"       ? DispatchScope::kNode
                       : scope == "instance" ? DispatchScope::kInstance
                                             : DispatchScope::kCluster;
    c.gateway = p.at("gateway").get<std::string>() == "least-loaded" ? GatewayRoute::kLeastLoaded
                                                                     : GatewayRoute::kRoundRobin;
    c.container_memory = p.at("container_memory").get<std::string>() == "weights-resident"
                             ? ContainerMemory::kWeightsResident
                             : ContainerMemory::kBatchFootprint;
    c.time_slice_mode = p.at("time_slice_mode").get<std::string>() == "average"
                            ? gpu::TimeSliceMode::kAverage
                            : gpu::TimeSliceMode::kSlotSchedule;
    {
      const auto mode = p.at("cpu_latency").get<std::string>();
      c.cpu_latency = mode == "sampled"   ? gpu::CpuLatencyMode::kSampled
                      : mode == "maximum" ? gpu::CpuLatencyMode::kMaximum
                                          : gpu::CpuLatencyMode::kAverage;
    }
    if (p.contains("billing") && !p.at("billing").is_null()) {
      const json& b = p.at("billing");
      FunctionBilling fb;
      fb.per_invocation = b.at("per_invocation").get<double>();
      fb.vcpu_second = b.at("vcpu_second").get<double>();
      fb.memory_gb_second = b.at("memory_gb_second").get<double>();
      fb.gpu_memory_gb_second = b.at("gpu_memory_gb_second").get<double>();
      fb.gpu_whole_seconds = b.at("gpu_whole_seconds").get<bool>();
      fb.from = config::get_duration(b, "from");
      c.billing = fb;
    }

    const json& pol = p.at("policies");
    const auto& f = *context.policies;
    const auto ctx = [&](const char* category) {
      return policy::PolicyContext{context.sim->rng("policy", category), context.catalog};
    };
    Policies ps;
    ps.batcher =
        f.make_as<policy::Batcher>(policy::kBatcher, pol.at("batcher"), ctx(policy::kBatcher));
    ps.dispatcher = f.make_as<policy::Dispatcher>(policy::kDispatcher, pol.at("dispatcher"),
                                                  ctx(policy::kDispatcher));
    ps.autoscaler = f.make_as<policy::Autoscaler>(policy::kAutoscaler, pol.at("autoscaler"),
                                                  ctx(policy::kAutoscaler));
    ps.placement = f.make_as<policy::Placement>(policy::kPlacement, pol.at("placement"),
                                                ctx(policy::kPlacement));
    ps.partitioner = f.make_as<policy::GpuPartitioner>(
        policy::kGpuPartitioner, pol.at("gpu_partitioner"), ctx(policy::kGpuPartitioner));
    ps.keep_alive = f.make_as<policy::KeepAlive>(policy::kKeepAlive, pol.at("keep_alive"),
                                                 ctx(policy::kKeepAlive));
    ps.sourcing = f.make_as<policy::ColdStartSourcing>(
        policy::kColdStartSourcing, pol.at("cold_start_sourcing"), ctx(policy::kColdStartSourcing));
    ps.procurement = f.make_as<policy::Procurement>(policy::kProcurement, pol.at("procurement"),
                                                    ctx(policy::kProcurement));
    ps.planner =
        f.make_as<policy::Planner>(policy::kPlanner, pol.at("planner"), ctx(policy::kPlanner));
    const gpu::ModelCatalog& catalog = *context.catalog;
    return std::make_unique<ServerlessPlatform>(std::move(c), catalog, std::move(context),
                                                std::move(ps));
  };
  return kind;
}

}  // namespace sim::platform
