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
    ServerlessConfig c = read_serverless_config(p);
    check_cluster_size(c.hosts);

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
