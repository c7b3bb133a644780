// The infless policy family (INFless, ASPLOS'22, and its baselines): one registration line per
// policy. Each policy declares its parameters once, in its schema.

#include "register.hpp"

#include "histogram_keep_alive.hpp"
#include "infless_autoscaler.hpp"
#include "openfaas_alert_autoscaler.hpp"
#include "operator_placement.hpp"
#include "request_path.hpp"
#include "resource_efficiency.hpp"
#include "sim/config/schema.hpp"
#include "uniform_autoscaler.hpp"

namespace sim::policy::infless {

using config::ParamType;
using nlohmann::json;

namespace {

void add_slos(config::Schema& s) {
  s.add("slo", ParamType::kDuration)
      .def("200ms")
      .at_least(0)
      .doc("latency SLO of functions not listed in `slos` (the platform's views carry none)");
  auto per = std::make_shared<config::Schema>("infless/slo", "one function's latency SLO");
  per->add("function", ParamType::kString).doc("function name");
  per->add("slo", ParamType::kDuration).at_least(0).doc("its latency SLO");
  s.list_of("slos", per).def(json::array()).doc("per-function SLOs");
}

SloMap slos_of(const json& p) {
  SloMap m;
  m.fallback = config::get_duration(p, "slo");
  for (const json& e : p.at("slos"))
    m.by_function[e.at("function").get<std::string>()] = config::get_duration(e, "slo");
  return m;
}

void add_beta(config::Schema& s) {
  s.add("cpu_gflops_per_thread", ParamType::kNumber)
      .def(64.0)
      .at_least(1e-9)
      .doc("FLOPS of one CPU thread for beta (INFless §3.4; 64 GFLOPS as in the public code)");
  s.add("gpu_gflops", ParamType::kNumber)
      .def(14200.0)
      .at_least(1e-9)
      .doc("FLOPS of a whole GPU for beta (the public code's 142 GFLOPS per SM percent)");
}

double beta_of(const json& p) {
  return conversion_factor(p.at("cpu_gflops_per_thread").get<double>(),
                           p.at("gpu_gflops").get<double>());
}

PolicyKind slo_batcher() {
  const char* doc =
      "INFless §3.2 built-in batching: a full batch at once, else the waiting requests when the "
      "oldest has waited wait_fraction of its SLO (t_exec <= t_slo/2 makes t_slo/2 safe).";
  auto s = policy_schema(kBatcher, "infless-slo", doc);
  s->add("wait_fraction", ParamType::kNumber)
      .def(0.5)
      .at_least(0)
      .at_most(1)
      .doc("share of a request's SLO it may wait for its batch to fill (eq. 3-4)");
  return {kBatcher, "infless-slo", doc, s,
          [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            return std::make_unique<SloBudgetBatcher>(p.at("wait_fraction").get<double>());
          }};
}

PolicyKind rate_dispatcher() {
  const char* doc =
      "INFless §3.2 dispatch: batches split over idle instances by smooth weighted round robin "
      "with weight r_up = floor(1/t_exec) * b (eq. 1).";
  auto s = policy_schema(kDispatcher, "infless-rate", doc);
  s->add("latency_factor", ParamType::kNumber)
      .def(1.1)
      .at_least(1)
      .doc("t_exec = the instance's batch latency times this (INFless §3.3: +10%)");
  return {kDispatcher, "infless-rate", doc, s,
          [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            return std::make_unique<RateSplitDispatcher>(p.at("latency_factor").get<double>());
          }};
}

PolicyKind infless_autoscaler() {
  const char* doc =
      "INFless auto-scaling engine: dispatch rules (i)-(iii) over the instances' [r_low, r_up] "
      "(eq. 1); Schedule (Algorithm 1, eq. 10) for R - R_max; releases below alpha R_min + "
      "(1 - alpha) R_max. Functions need an operator profile (INFless models).";
  auto s = policy_schema(kAutoscaler, "infless", doc);
  add_slos(*s);
  s->add("alpha", ParamType::kNumber).def(0.8).at_least(0).at_most(1).doc("§3.2 alpha");
  s->add("rate_window", ParamType::kInteger)
      .def(0)
      .at_least(0)
      .doc("index of the platform's rate window that measures R");
  s->add("latency_factor", ParamType::kNumber)
      .optional()
      .at_least(1)
      .doc(
          "t_exec = COP prediction times this; default 1 + the model's prediction offset "
          "(+10%); 1.5 and 2 are the OP1.5 and OP2 ablations (Fig. 11)");
  s->add("batching", ParamType::kBool).def(true).doc("false: the BB ablation (batch size 1)");
  s->add("resource_scheduling", ParamType::kBool)
      .def(true)
      .doc(
          "false: the RS ablation (the configuration with the maximum throughput, first server "
          "that fits: no fragment term)");
  s->add("rs_off_throughput", ParamType::kChoice)
      .one_of({"per-resource", "r_up"})
      .def("per-resource")
      .doc(
          "the RS ablation's \"maximum throughput\": per-resource, r_up / (beta c + g) (the "
          "paper's throughput of Figs. 12 and 18; §5.2 explains RS's share by fragments); r_up, "
          "the largest r_up (wasteful configurations)");
  s->add("release", ParamType::kBool).def(true).doc("apply rule (iii)");
  s->add("release_hold", ParamType::kDuration)
      .def("30s")
      .at_least(0)
      .doc(
          "rule (iii) uses the largest R of this long a history (public code: an instance is "
          "drained after 3 idle 10 s checks)");
  s->add("hold_after_quiet", ParamType::kBool)
      .def(true)
      .doc(
          "after a whole release_hold without requests, rule (iii) waits a whole hold of renewed "
          "activity before releasing the instances the keep-alive policy kept through the gap "
          "(LSTH governs a quiet function's instances); false: it judges them at once");
  s->add("max_batch", ParamType::kInteger)
      .def(0)
      .at_least(0)
      .doc("largest batch size of B; 0: the function's max_batch");
  add_beta(*s);
  return {kAutoscaler, "infless", doc, s,
          [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            InflessAutoscalerConfig c;
            c.slo = slos_of(p);
            c.alpha = p.at("alpha").get<double>();
            c.rate_window = p.at("rate_window").get<std::size_t>();
            if (p.contains("latency_factor") && !p.at("latency_factor").is_null())
              c.latency_factor = p.at("latency_factor").get<double>();
            c.batching = p.at("batching").get<bool>();
            c.resource_scheduling = p.at("resource_scheduling").get<bool>();
            c.rs_off_per_resource = p.at("rs_off_throughput").get<std::string>() == "per-resource";
            c.release = p.at("release").get<bool>();
            c.release_hold = config::get_duration(p, "release_hold");
            c.hold_after_quiet = p.at("hold_after_quiet").get<bool>();
            c.max_batch = p.at("max_batch").get<int>();
            c.cpu_gflops_per_thread = p.at("cpu_gflops_per_thread").get<double>();
            c.gpu_gflops = p.at("gpu_gflops").get<double>();
            return std::make_unique<InflessAutoscaler>(c);
          }};
}

PolicyKind uniform_autoscaler() {
  const char* doc =
      "INFless's baselines (§5.1): uniform scaling, n = ceil(R / r_up) instances of one "
      "configuration placed first-fit. batch > 0: that fixed (batch, threads, GPU %) "
      "(OpenFaaS+: 1, 2, 10); batch = 0: BATCH's choice (rule).";
  auto s = policy_schema(kAutoscaler, "infless-uniform", doc);
  add_slos(*s);
  s->add("rate_window", ParamType::kInteger).def(0).at_least(0).doc("rate window index");
  s->add("batch", ParamType::kInteger).def(0).at_least(0).doc("fixed batch; 0: BATCH's choice");
  s->add("threads", ParamType::kInteger).def(2).at_least(1).doc("fixed CPU threads");
  s->add("gpu_percent", ParamType::kInteger).def(10).at_least(1).at_most(100).doc("fixed SM %");
  s->add("max_batch", ParamType::kInteger)
      .def(0)
      .at_least(0)
      .doc("BATCH: largest batch considered; 0: the function's max_batch");
  s->add("scale_down", ParamType::kBool)
      .def(false)
      .doc("stop surplus idle instances (off: the keep-alive reclaims them)");
  s->add("rule", ParamType::kChoice)
      .one_of({"largest-batch", "efficiency"})
      .def("largest-batch")
      .doc(
          "batch = 0: BATCH's rule as INFless §5.2 describes it (the largest batch within the "
          "SLO on the cheapest of `tiers`, rate-oblivious), or the best r_up per unified "
          "resource over INFless's whole configuration space (a stronger variant)");
  auto tier = std::make_shared<config::Schema>("infless/tier", "one BATCH resource tier");
  tier->add("threads", ParamType::kInteger).at_least(1).doc("CPU threads");
  tier->add("gpu_percent", ParamType::kInteger).at_least(1).at_most(100).doc("SM %");
  s->list_of("tiers", tier)
      .def(json::array({json{{"threads", 2}, {"gpu_percent", 10}},
                        json{{"threads", 4}, {"gpu_percent", 20}},
                        json{{"threads", 8}, {"gpu_percent", 40}}}))
      .doc(
          "rule largest-batch: BATCH's resource configurations (INFless Fig. 13c: three; "
          "assumption: Lambda-style memory tiers 1x, 2x, 4x extended with threads and SMs in "
          "proportion)");
  add_beta(*s);
  return {kAutoscaler, "infless-uniform", doc, s,
          [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            UniformAutoscalerConfig c;
            c.slo = slos_of(p);
            c.rate_window = p.at("rate_window").get<std::size_t>();
            c.batch = p.at("batch").get<int>();
            c.threads = p.at("threads").get<int>();
            c.gpu_percent = p.at("gpu_percent").get<int>();
            c.max_batch = p.at("max_batch").get<int>();
            c.scale_down = p.at("scale_down").get<bool>();
            c.rule = p.at("rule").get<std::string>() == "efficiency" ? BatchRule::kEfficiency
                                                                     : BatchRule::kLargestBatch;
            c.tiers.clear();
            for (const json& t : p.at("tiers"))
              c.tiers.push_back({t.at("threads").get<int>(), t.at("gpu_percent").get<int>()});
            c.cpu_gflops_per_thread = p.at("cpu_gflops_per_thread").get<double>();
            c.gpu_gflops = p.at("gpu_gflops").get<double>();
            return std::make_unique<UniformAutoscaler>(c);
          }};
}

PolicyKind openfaas_alert_autoscaler() {
  const char* doc =
      "OpenFaaS's alert scaling (INFless's OpenFaaS+, Table 3: no profiling, uniform scaling): "
      "rate(10s) > 5 req/s for 5 s fires an alert; every notification (after 5 s, then every "
      "30 s) adds ceil(max_replicas x scaling_factor) replicas of one fixed configuration, up "
      "to max_replicas; a request scales a function from zero to min_replicas.";
  auto s = policy_schema(kAutoscaler, "openfaas-alert", doc);
  add_slos(*s);
  s->add("rate_window", ParamType::kInteger)
      .def(0)
      .at_least(0)
      .doc("the platform rate window sampled at every control tick");
  s->add("rate_span", ParamType::kDuration)
      .def("10s")
      .at_least(1e-3)
      .doc("Prometheus rate(gateway_function_invocation_total[10s]) (faas alert.rules)");
  s->add("threshold", ParamType::kRate)
      .def("5/s")
      .at_least(0)
      .doc("APIHighInvocationRate threshold (faas alert.rules: > 5)");
  s->add("per_replica", ParamType::kBool)
      .def(false)
      .doc("compare the rate per replica instead of the function's rate");
  s->add("for", ParamType::kDuration).def("5s").at_least(0).doc("the rule's `for:` hold");
  s->add("group_wait", ParamType::kDuration)
      .def("5s")
      .at_least(0)
      .doc("AlertManager's first notification delay (OpenFaaS helm chart alertmanager.yml)");
  s->add("repeat_interval", ParamType::kDuration)
      .def("30s")
      .at_least(1e-3)
      .doc("AlertManager re-notifies a firing alert this often (helm chart: 30s)");
  s->add("min_replicas", ParamType::kInteger)
      .def(1)
      .at_least(1)
      .doc("com.openfaas.scale.min: replicas started from zero");
  s->add("max_replicas", ParamType::kInteger)
      .def(20)
      .at_least(1)
      .doc("com.openfaas.scale.max (OpenFaaS default 20)");
  s->add("scaling_factor", ParamType::kNumber)
      .def(0.2)
      .at_least(0)
      .at_most(1)
      .doc("com.openfaas.scale.factor / 100 (default 20%): the step is ceil(max x factor)");
  s->add("resolved_to_min", ParamType::kBool)
      .def(false)
      .doc(
          "stop idle replicas above min when the alert resolves (stock gateway); default off: "
          "INFless's OpenFaaS+ has a fixed keep-alive, which then governs releases");
  s->add("batch", ParamType::kInteger).def(1).at_least(1).doc("the fixed batch (OpenFaaS+: 1)");
  s->add("threads", ParamType::kInteger).def(2).at_least(1).doc("fixed CPU threads");
  s->add("gpu_percent", ParamType::kInteger).def(10).at_least(1).at_most(100).doc("fixed SM %");
  return {kAutoscaler, "openfaas-alert", doc, s,
          [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            OpenFaasAlertConfig c;
            c.slo = slos_of(p);
            c.rate_window = p.at("rate_window").get<std::size_t>();
            c.rate_span = config::get_duration(p, "rate_span");
            c.threshold_rps = config::get_rate(p, "threshold");
            c.per_replica = p.at("per_replica").get<bool>();
            c.for_duration = config::get_duration(p, "for");
            c.group_wait = config::get_duration(p, "group_wait");
            c.repeat_interval = config::get_duration(p, "repeat_interval");
            c.min_replicas = p.at("min_replicas").get<int>();
            c.max_replicas = p.at("max_replicas").get<int>();
            c.scaling_factor = p.at("scaling_factor").get<double>();
            c.resolved_to_min = p.at("resolved_to_min").get<bool>();
            c.batch = p.at("batch").get<int>();
            c.threads = p.at("threads").get<int>();
            c.gpu_percent = p.at("gpu_percent").get<int>();
            return std::make_unique<OpenFaasAlertAutoscaler>(c);
          }};
}

PolicyKind operator_placement() {
  const char* doc =
      "Placement of INFless operator-profile instances: the server with the largest eq. (10) "
      "efficiency (best fit), or the first that fits; counts free threads, SM shares and GPU "
      "memory.";
  auto s = policy_schema(kPlacement, "infless-efficiency", doc);
  s->add("rule", ParamType::kChoice)
      .one_of({"efficiency", "first-fit"})
      .def("efficiency")
      .doc("eq. (10) argmax over servers, or the first server that fits");
  add_beta(*s);
  return {kPlacement, "infless-efficiency", doc, s,
          [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            return std::make_unique<OperatorPlacement>(
                p.at("rule").get<std::string>() == "efficiency", beta_of(p));
          }};
}

void add_histogram(config::Schema& s) {
  s.add("bin", ParamType::kDuration).def("60s").at_least(1e-3).doc("histogram bin width");
  s.add("range", ParamType::kDuration).def("4h").at_least(1e-3).doc("histogram range");
  s.add("head_percentile", ParamType::kNumber).def(5.0).at_least(0).at_most(100).doc("head");
  s.add("tail_percentile", ParamType::kNumber).def(99.0).at_least(0).at_most(100).doc("tail");
  s.add("min_samples", ParamType::kInteger)
      .def(5)
      .at_least(1)
      .doc("fewer idle times: no pattern yet, use fallback_keep_alive");
  s.add("fallback_keep_alive", ParamType::kDuration)
      .def("4h")
      .at_least(0)
      .doc("keep-alive without a usable histogram (Shahrad et al.: the histogram range)");
}

void add_prewarm(config::Schema& s, bool capacity) {
  s.add("prewarm_capacity", ParamType::kBool)
      .def(capacity)
      .doc(
          "pre-warm the configurations of the instances live at the peak of the function's last "
          "activity (INFless §3.5: LSTH prepares instances for the peak seen before); false: one "
          "instance with the function's default configuration when none is live");
}

HistogramKeepAliveConfig histogram_of(const json& p, bool lsth) {
  HistogramKeepAliveConfig c;
  c.lsth = lsth;
  c.bin = config::get_duration(p, "bin");
  c.range = config::get_duration(p, "range");
  c.head_percentile = p.at("head_percentile").get<double>();
  c.tail_percentile = p.at("tail_percentile").get<double>();
  c.min_samples = p.at("min_samples").get<std::size_t>();
  c.fallback_keep_alive = config::get_duration(p, "fallback_keep_alive");
  c.prewarm_capacity = p.at("prewarm_capacity").get<bool>();
  return c;
}

PolicyKind lsth_keep_alive() {
  const char* doc =
      "INFless §3.5 LSTH: long- (24 h) and short-term (1 h) idle-time histograms; pre-warm = "
      "gamma L_head + (1 - gamma) S_head, keep-alive likewise from the tails (5th/99th pct).";
  auto s = policy_schema(kKeepAlive, "lsth", doc);
  add_histogram(*s);
  add_prewarm(*s, true);
  s->add("long_window", ParamType::kDuration).def("24h").at_least(1e-3).doc("LTP window");
  s->add("short_window", ParamType::kDuration).def("1h").at_least(1e-3).doc("STB window");
  s->add("gamma", ParamType::kNumber).def(0.5).at_least(0).at_most(1).doc("long-term weight");
  return {kKeepAlive, "lsth", doc, s, [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            HistogramKeepAliveConfig c = histogram_of(p, true);
            c.long_window = config::get_duration(p, "long_window");
            c.short_window = config::get_duration(p, "short_window");
            c.gamma = p.at("gamma").get<double>();
            return std::make_unique<HistogramKeepAlive>(c);
          }};
}

PolicyKind hhp_keep_alive() {
  const char* doc =
      "Hybrid histogram policy (Shahrad et al., ATC'20): one idle-time histogram; pre-warm = "
      "head - 10%, keep-alive to tail + 10%; mostly out-of-range idle times: ARIMA forecast; "
      "the range as keep-alive when not representative.";
  auto s = policy_schema(kKeepAlive, "hhp", doc);
  add_histogram(*s);
  add_prewarm(*s, false);
  s->add("window", ParamType::kDuration).def("4h").at_least(1e-3).doc("tracked duration");
  s->add("margin", ParamType::kNumber).def(0.1).at_least(0).at_most(1).doc("head/tail margin");
  s->add("cv_threshold", ParamType::kNumber)
      .def(2.0)
      .at_least(0)
      .doc("bin-count CV below which the histogram is not representative");
  s->add("arima", ParamType::kBool)
      .def(true)
      .doc(
          "most idle times of the window out of range: forecast the next with ARIMA (Shahrad et "
          "al. §4.2); false: the standard keep-alive (fallback_keep_alive)");
  s->add("arima_p", ParamType::kInteger)
      .def(1)
      .at_least(0)
      .at_most(8)
      .doc(
          "autoregressive order (the paper does not give one; AR(1) is the smallest with a "
          "level and persistence)");
  s->add("arima_d", ParamType::kInteger).def(0).at_least(0).at_most(2).doc("differences");
  s->add("arima_margin", ParamType::kNumber)
      .def(0.15)
      .at_least(0)
      .at_most(1)
      .doc(
          "pre-warm at the forecast - margin, keep alive for twice the margin (Shahrad et al.: "
          "15%)");
  s->add("arima_history", ParamType::kInteger)
      .def(32)
      .at_least(1)
      .doc("the last idle times the forecast is fitted to");
  return {kKeepAlive, "hhp", doc, s, [](const json& p, PolicyContext) -> std::unique_ptr<Policy> {
            HistogramKeepAliveConfig c = histogram_of(p, false);
            c.hhp_window = config::get_duration(p, "window");
            c.margin = p.at("margin").get<double>();
            c.cv_threshold = p.at("cv_threshold").get<double>();
            c.arima = p.at("arima").get<bool>();
            c.arima_order = {p.at("arima_p").get<int>(), p.at("arima_d").get<int>()};
            c.arima_margin = p.at("arima_margin").get<double>();
            c.arima_history = p.at("arima_history").get<std::size_t>();
            return std::make_unique<HistogramKeepAlive>(c);
          }};
}

}  // namespace

void register_policies(PolicyRegistry& registry) {
  registry.add(slo_batcher());
  registry.add(rate_dispatcher());
  registry.add(infless_autoscaler());
  registry.add(uniform_autoscaler());
  registry.add(openfaas_alert_autoscaler());
  registry.add(operator_placement());
  registry.add(lsth_keep_alive());
  registry.add(hhp_keep_alive());
}

}  // namespace sim::policy::infless
