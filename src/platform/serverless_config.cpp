// The "serverless" platform's configuration read from a section resolved against its schema
// (serverless_schema.cpp), and the defaults of ServerlessConfig and its parts: the schema's,
// resolved from an empty section, so that they are declared in one place (the header's members
// have none).

#include <stdexcept>
#include <string>
#include <vector>

#include "serverless_schema.hpp"
#include "sim/config/diagnostics.hpp"
#include "sim/platform/serverless_config.hpp"

namespace sim::platform {

using nlohmann::json;

namespace {

/// Policies are no part of ServerlessConfig: every component type resolves to an empty schema.
class AnyComponent final : public config::ComponentLookup {
 public:
  [[nodiscard]] const config::Schema* find(const std::string& /*category*/,
                                           const std::string& /*type*/) const override {
    return &empty_;
  }
  [[nodiscard]] std::vector<std::string> types(const std::string& /*category*/) const override {
    return {};
  }

 private:
  config::Schema empty_{"any"};
};

double bytes_of(const json& o, const std::string& key) {
  return config::get_bytes(o, key);
}

HostTemplate read_host(const json& h) {
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
  return t;
}

FunctionSpec read_function(const json& f) {
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
    fs.app_timeouts[a.at("application").get<std::string>()] = config::get_duration(a, "timeout");
  fs.queue_group = f.at("queue_group").get<std::string>();
  if (f.contains("billing_memory") && !f.at("billing_memory").is_null())
    fs.billing_memory_gb = bytes_of(f, "billing_memory") / 1e9;
  if (f.contains("billing_cores") && !f.at("billing_cores").is_null())
    fs.billing_cores = f.at("billing_cores").get<double>();
  return fs;
}

FunctionBilling read_billing(const json& b) {
  FunctionBilling fb;
  fb.per_invocation = b.at("per_invocation").get<double>();
  fb.vcpu_second = b.at("vcpu_second").get<double>();
  fb.memory_gb_second = b.at("memory_gb_second").get<double>();
  fb.gpu_memory_gb_second = b.at("gpu_memory_gb_second").get<double>();
  fb.gpu_whole_seconds = b.at("gpu_whole_seconds").get<bool>();
  fb.from = config::get_duration(b, "from");
  return fb;
}

/// The schema's defaults: a section with one function (the schema requires one) and nothing
/// else, resolved.
json default_section() {
  config::Diagnostics diag;
  json section = resolve_platform_section(
      json{{"functions", json::array({json{{"name", ""}, {"model", ""}}})}}, diag);
  diag.throw_if_errors();
  return section;
}

}  // namespace

json resolve_platform_section(const json& section, config::Diagnostics& diag) {
  const AnyComponent any;
  return serverless_schema()->resolve(section, "/platform", diag, &any);
}

ServerlessConfig read_serverless_config(const json& p) {
  ServerlessConfig c;
  const json& cl = p.at("cluster");
  for (const json& h : cl.at("hosts"))
    c.hosts.push_back(read_host(h));
  c.pcie_bps = config::get_bitrate(cl, "pcie_bandwidth");
  c.load_bps = config::get_bitrate(cl, "load_bandwidth");
  c.store_bps = config::get_bitrate(cl, "store_bandwidth");
  c.host_bps = config::get_bitrate(cl, "host_bandwidth");
  c.provisioning_delay = config::get_duration(cl, "provisioning_delay");
  c.runtime_start = config::get_duration(cl, "runtime_start");
  c.spot.revocations_per_hour = cl.at("spot_revocations_per_hour").get<double>();
  c.spot.notice_min = config::get_duration(cl, "spot_notice_min");
  c.spot.notice_max = config::get_duration(cl, "spot_notice_max");
  c.spot.revocation_interval = config::get_duration(cl, "spot_revocation_interval");
  c.spot.revocation_probability = cl.at("spot_revocation_probability").get<double>();
  c.spot.phase = cl.at("spot_revocation_phase").get<std::string>() == "aligned"
                     ? SpotPhase::kAligned
                     : SpotPhase::kUniform;
  c.spot.drain = cl.at("spot_drain").get<std::string>() == "replacement" ? SpotDrain::kAtReplacement
                                                                         : SpotDrain::kAtNotice;
  c.spot.drain_lead = config::get_duration(cl, "spot_drain_lead");
  const auto cut = cl.at("spot_revoked_batches").get<std::string>();
  c.spot.revoked_batches = cut == "drop"      ? SpotRevokedBatches::kDrop
                           : cut == "requeue" ? SpotRevokedBatches::kRequeue
                                              : SpotRevokedBatches::kFinish;
  if (c.spot.revocation_interval > Time::zero() && c.spot.revocations_per_hour > 0) {
    throw std::invalid_argument(
        "platform.cluster: spot_revocations_per_hour and spot_revocation_interval are two "
        "revocation models; set one");
  }
  if (c.spot.notice_max < c.spot.notice_min) {
    throw std::invalid_argument("platform.cluster: spot_notice_max is below spot_notice_min");
  }
  for (const json& r : cl.at("revocations"))
    c.spot.scheduled.push_back({r.at("host").get<int>(), config::get_duration(r, "at")});
  if (p.contains("network") && !p.at("network").is_null()) c.network = p.at("network");
  for (const json& f : p.at("functions"))
    c.functions.push_back(read_function(f));
  c.control_interval = config::get_duration(p, "control_interval");
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
  c.node_backlog =
      p.at("node_backlog").get<std::string>() == "share" ? NodeBacklog::kShare : NodeBacklog::kWait;
  c.container_memory = p.at("container_memory").get<std::string>() == "weights-resident"
                           ? ContainerMemory::kWeightsResident
                           : ContainerMemory::kBatchFootprint;
  c.evict_idle = p.at("evict_idle").get<std::string>() == "lru" ? EvictIdle::kLeastRecentlyUsed
                                                                : EvictIdle::kNever;
  c.time_slice_mode = p.at("time_slice_mode").get<std::string>() == "average"
                          ? gpu::TimeSliceMode::kAverage
                          : gpu::TimeSliceMode::kSlotSchedule;
  {
    const auto mode = p.at("cpu_latency").get<std::string>();
    c.cpu_latency = mode == "sampled"   ? gpu::CpuLatencyMode::kSampled
                    : mode == "maximum" ? gpu::CpuLatencyMode::kMaximum
                                        : gpu::CpuLatencyMode::kAverage;
  }
  if (p.contains("billing") && !p.at("billing").is_null())
    c.billing = read_billing(p.at("billing"));

  return c;
}

ServerlessConfig default_serverless_config() {
  ServerlessConfig c = read_serverless_config(default_section());
  c.hosts.clear();
  c.functions.clear();
  return c;
}

FunctionSpec default_function_spec() {
  return read_function(default_section().at("functions").at(0));
}

HostTemplate default_host_template() {
  const json section = default_section();
  json host = section.at("cluster").at("hosts").at(0);
  host["gpus"] = json::array();
  return read_host(host);
}

FunctionBilling default_function_billing() {
  config::Diagnostics diag;
  const json section =
      resolve_platform_section(json{{"functions", json::array({json{{"name", ""}, {"model", ""}}})},
                                    {"billing", json::object()}},
                               diag);
  diag.throw_if_errors();
  return read_billing(section.at("billing"));
}

}  // namespace sim::platform
