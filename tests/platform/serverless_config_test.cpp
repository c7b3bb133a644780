// The serverless configuration's defaults live in one place, the schema
// (src/platform/serverless_schema.cpp): default_serverless_config() and its siblings resolve an
// empty section against it, and the plain header (include/sim/platform/serverless_config.hpp)
// declares no default of its own. The expected values below are read off the schema's .def()
// calls by hand.

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../serverless_schema.hpp"
#include "sim/config/diagnostics.hpp"
#include "sim/platform/serverless_config.hpp"

namespace sim::platform {
namespace {

using nlohmann::json;

json resolve(const json& section, config::Diagnostics& diag) {
  return resolve_platform_section(section, diag);
}

json resolved(const json& section) {
  config::Diagnostics diag;
  json out = resolve(section, diag);
  diag.throw_if_errors();
  return out;
}

TEST(ServerlessConfigDefaults, AreTheSchemas) {
  const ServerlessConfig c = default_serverless_config();
  EXPECT_TRUE(c.hosts.empty());           // the caller adds them
  EXPECT_TRUE(c.functions.empty());       // (the schema requires one; none is kept)
  EXPECT_DOUBLE_EQ(c.pcie_bps, 512e9);    // "512Gbps"
  EXPECT_DOUBLE_EQ(c.load_bps, 8e9);      // "8Gbps"
  EXPECT_DOUBLE_EQ(c.store_bps, 2203e6);  // "2203Mbps"
  EXPECT_DOUBLE_EQ(c.host_bps, 7506e6);   // "7506Mbps"
  EXPECT_EQ(c.provisioning_delay, seconds(120));
  EXPECT_EQ(c.runtime_start, Time::zero());
  EXPECT_DOUBLE_EQ(c.spot.revocations_per_hour, 0.0);
  EXPECT_EQ(c.spot.notice_min, seconds(30));
  EXPECT_EQ(c.spot.notice_max, seconds(120));
  EXPECT_TRUE(c.spot.scheduled.empty());
  EXPECT_EQ(c.spot.revocation_interval, Time::zero());  // "0s": the interval model is off
  EXPECT_DOUBLE_EQ(c.spot.revocation_probability, 0.0);
  EXPECT_EQ(c.spot.phase, SpotPhase::kUniform);
  EXPECT_EQ(c.spot.drain, SpotDrain::kAtNotice);
  EXPECT_EQ(c.spot.drain_lead, seconds(1));
  EXPECT_FALSE(c.network.has_value());
  EXPECT_EQ(c.control_interval, seconds(1));
  EXPECT_EQ(c.rate_windows, (std::vector<Time>{seconds(10), seconds(60)}));
  EXPECT_FALSE(c.charge_decision_time);
  EXPECT_EQ(c.time_slice_mode, gpu::TimeSliceMode::kSlotSchedule);
  EXPECT_EQ(c.queue_capacity, 1000000U);
  EXPECT_EQ(c.dispatch_scope, DispatchScope::kCluster);
  EXPECT_EQ(c.gateway, GatewayRoute::kRoundRobin);
  EXPECT_EQ(c.container_memory, ContainerMemory::kBatchFootprint);
  EXPECT_EQ(c.cpu_latency, gpu::CpuLatencyMode::kAverage);
  EXPECT_FALSE(c.billing.has_value());
}

TEST(ServerlessConfigDefaults, FunctionHostAndBillingAreTheSchemas) {
  const FunctionSpec f = default_function_spec();
  EXPECT_TRUE(f.name.empty());
  EXPECT_TRUE(f.model.empty());
  EXPECT_TRUE(f.gpu);  // resource "gpu"
  EXPECT_EQ(f.config.max_batch, 1);
  EXPECT_DOUBLE_EQ(f.config.cpu_cores, 0.0);  // cores apply to CPU functions only
  EXPECT_DOUBLE_EQ(f.config.gpu_share, 1.0);
  EXPECT_DOUBLE_EQ(f.config.time_slice_gb, 0.0);
  EXPECT_EQ(f.config.cpu_threads, 0);
  EXPECT_FALSE(f.model_bytes.has_value());
  EXPECT_FALSE(f.device_memory_gb.has_value());
  EXPECT_EQ(f.batch_timeout, Time::zero());
  EXPECT_TRUE(f.app_timeouts.empty());
  EXPECT_TRUE(f.queue_group.empty());
  EXPECT_FALSE(f.billing_memory_gb.has_value());
  EXPECT_FALSE(f.billing_cores.has_value());

  const HostTemplate h = default_host_template();
  EXPECT_EQ(h.count, 1);
  EXPECT_DOUBLE_EQ(h.spec.cores, 32.0);
  EXPECT_DOUBLE_EQ(h.spec.memory_bytes, 256e9);  // "256GB"
  EXPECT_TRUE(h.spec.gpus.empty());
  EXPECT_EQ(h.spec.market, cluster::Market::kOwned);
  EXPECT_DOUBLE_EQ(h.spec.price_per_hour, 0.0);

  const FunctionBilling b = default_function_billing();
  EXPECT_DOUBLE_EQ(b.per_invocation, 0.0);
  EXPECT_DOUBLE_EQ(b.vcpu_second, 0.0);
  EXPECT_DOUBLE_EQ(b.memory_gb_second, 0.0);
  EXPECT_DOUBLE_EQ(b.gpu_memory_gb_second, 0.0);
  EXPECT_TRUE(b.gpu_whole_seconds);
  EXPECT_EQ(b.from, Time::zero());
}

/// Member declarations of `structure` in `header` that carry an initialiser other than the
/// empty `{}` (value-initialisation: zero, false, empty, the first enumerator).
std::vector<std::string> defaulted_members(const std::string& header,
                                           const std::string& structure) {
  const auto begin = header.find("struct " + structure + " {");
  if (begin == std::string::npos) return {"struct " + structure + " not found"};
  const auto end = header.find("\n};", begin);
  std::istringstream body(header.substr(begin, end - begin));
  static const std::regex kDefault(R"(=|\{\s*[^}\s])");
  std::vector<std::string> out;
  std::string line;
  std::getline(body, line);  // "struct X {"
  while (std::getline(body, line)) {
    const auto comment = line.find("//");
    std::string code = line.substr(0, comment);
    if (code.find("struct ") != std::string::npos) continue;  // a nested struct's head
    if (std::regex_search(code, kDefault)) out.push_back(line);
  }
  return out;
}

TEST(ServerlessConfigDefaults, TheHeaderDeclaresNone) {
  std::ifstream in(SIM_SOURCE_DIR "/include/sim/platform/serverless_config.hpp");
  ASSERT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  for (const char* s :
       {"FunctionSpec", "FunctionBilling", "HostTemplate", "SpotSettings", "ServerlessConfig"}) {
    EXPECT_EQ(defaulted_members(text.str(), s), std::vector<std::string>{}) << s;
  }
}

TEST(ServerlessConfigDefaults, HostAndGpuSpecsDeclareNone) {
  // The cluster's host and GPU specs take their scenario defaults from the same schema
  // (default_host_template()); their header declares none either.
  std::ifstream in(SIM_SOURCE_DIR "/include/sim/cluster/host.hpp");
  ASSERT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  for (const char* s : {"GpuSpec", "HostSpec"})
    EXPECT_EQ(defaulted_members(text.str(), s), std::vector<std::string>{}) << s;
  const cluster::HostSpec spec{};
  EXPECT_DOUBLE_EQ(spec.cores, 0.0);
  EXPECT_DOUBLE_EQ(spec.memory_bytes, 0.0);
}

TEST(ServerlessConfigDefaults, EveryInstanceConfigFieldIsReadFromTheSchema) {
  // InstanceConfig's initialisers are the policy API's plain instance (platform_view.hpp);
  // a function's configuration must not fall back on them. Values unlike those initialisers
  // (1, 0, 1.0, 0, 0) in every field: each must arrive.
  json section{
      {"functions",
       json::array({json{{"name", "g"},
                         {"model", "m"},
                         {"max_batch", 3},
                         {"gpu_share", 0.5},
                         {"time_slice_memory", "6GB"},
                         {"cpu_threads", 2}},
                    json{{"name", "c"}, {"model", "m"}, {"resource", "cpu"}, {"cores", 2.5}}})}};
  const ServerlessConfig c = read_serverless_config(resolved(section));
  ASSERT_EQ(c.functions.size(), 2U);
  const policy::InstanceConfig& g = c.functions[0].config;
  EXPECT_EQ(g.max_batch, 3);
  EXPECT_DOUBLE_EQ(g.gpu_share, 0.5);
  EXPECT_DOUBLE_EQ(g.time_slice_gb, 6.0);
  EXPECT_EQ(g.cpu_threads, 2);
  EXPECT_DOUBLE_EQ(c.functions[1].config.cpu_cores, 2.5);
}

TEST(ServerlessConfigRateWindows, AnEmptyListIsRejectedAtItsPath) {
  // No hidden window: `[]` is an error at /platform/rate_windows, not a silent 10 s.
  config::Diagnostics diag;
  (void)resolve(json{{"functions", json::array({json{{"name", "f"}, {"model", "m"}}})},
                     {"rate_windows", json::array()}},
                diag);
  ASSERT_EQ(diag.problems().size(), 1U);
  EXPECT_EQ(diag.problems()[0].location, "/platform/rate_windows");
  EXPECT_EQ(diag.problems()[0].message, "expected at least 1 entries, found 0");
  // One window is enough.
  const ServerlessConfig one = read_serverless_config(
      resolved(json{{"functions", json::array({json{{"name", "f"}, {"model", "m"}}})},
                    {"rate_windows", json::array({"5s"})}}));
  EXPECT_EQ(one.rate_windows, std::vector<Time>{seconds(5)});
}

TEST(ServerlessConfigSpot, TwoRevocationModelsAreRejected) {
  const json fn = json::array({json{{"name", "f"}, {"model", "m"}}});
  const json both = resolved(json{{"functions", fn},
                                  {"cluster",
                                   {{"spot_revocations_per_hour", 1.0},
                                    {"spot_revocation_interval", "300s"},
                                    {"spot_revocation_probability", 0.5}}}});
  EXPECT_THROW((void)read_serverless_config(both), std::invalid_argument);
  const ServerlessConfig interval =
      read_serverless_config(resolved(json{{"functions", fn},
                                           {"cluster",
                                            {{"spot_revocation_interval", "300s"},
                                             {"spot_revocation_probability", 0.5},
                                             {"spot_revocation_phase", "aligned"},
                                             {"spot_drain", "replacement"}}}}));
  EXPECT_EQ(interval.spot.revocation_interval, seconds(300));
  EXPECT_DOUBLE_EQ(interval.spot.revocation_probability, 0.5);
  EXPECT_EQ(interval.spot.phase, SpotPhase::kAligned);
  EXPECT_EQ(interval.spot.drain, SpotDrain::kAtReplacement);
}

TEST(ServerlessConfigRateWindows, AZeroLengthWindowIsRejected) {
  // A rate over a zero-length window would divide by zero.
  config::Diagnostics diag;
  (void)resolve(json{{"functions", json::array({json{{"name", "f"}, {"model", "m"}}})},
                     {"rate_windows", json::array({"10s", "0s"})}},
                diag);
  ASSERT_EQ(diag.problems().size(), 1U);
  EXPECT_EQ(diag.problems()[0].location, "/platform/rate_windows");
  EXPECT_EQ(diag.problems()[0].message, "entry 1 is \"0s\": expected a window longer than zero");
}

TEST(ServerlessConfigDefaults, TheScanFindsADefault) {
  // The check above can fail: a default by `=` or by a non-empty brace is found, `{}` is not.
  const std::string header =
      "struct A {\n  int a{};\n  double b = 2.0;  ///< x\n  std::vector<int> c{1, 2};\n"
      "  Time d;  // e = 1\n};\n";
  EXPECT_EQ(defaulted_members(header, "A"),
            (std::vector<std::string>{"  double b = 2.0;  ///< x", "  std::vector<int> c{1, 2};"}));
  EXPECT_EQ(defaulted_members(header, "B"), std::vector<std::string>{"struct B not found"});
}

TEST(ServerlessConfigDefaults, AHandBuiltConfigHasNone) {
  // Value-initialised members: a configuration built without default_serverless_config() has
  // no control interval, which the platform rejects rather than run on a guessed default.
  const ServerlessConfig c{};
  EXPECT_EQ(c.control_interval, Time::zero());
  EXPECT_DOUBLE_EQ(c.pcie_bps, 0.0);
  EXPECT_TRUE(c.rate_windows.empty());
  EXPECT_EQ(FunctionSpec{}.gpu, false);
  EXPECT_EQ(HostTemplate{}.count, 0);
}

}  // namespace
}  // namespace sim::platform
