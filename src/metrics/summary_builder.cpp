#include "sim/metrics/summary_builder.hpp"

#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace sim::metrics {

namespace {

// Correctly rounded seconds (ns / 1e9 rounds once; ns * 1e-9 would round twice).
double secs(Time t) {
  return static_cast<double>(t.ns()) / 1e9;
}

nlohmann::json mean_or_null(double sum, std::uint64_t n) {
  if (n == 0) return nullptr;
  return sum / static_cast<double>(n);
}

}  // namespace

void SummaryBuilder::Group::add(const RequestRecord& r, const StreamingQuantile::Keyed& latency_s) {
  switch (r.outcome) {
    case Outcome::kOk:
      ++ok;
      break;
    case Outcome::kSloMiss:
      ++slo_miss;
      break;
    case Outcome::kDropped:
      ++dropped;
      break;
  }
  if (r.has_slo()) {
    ++with_slo;
    // Compliance is judged on the times, not on the outcome flag: a request meets its SLO when
    // it finished and its end-to-end latency is at most the SLO. Dropped requests violate it.
    if (r.finished() && r.latency() <= r.slo) ++slo_met;
  }
  if (!r.finished()) return;
  latency.add(latency_s);
  queue_sum_s += secs(r.queue_wait);
  batching_sum_s += secs(r.batching_wait);
  cold_start_sum_s += secs(r.cold_start_wait);
  execution_sum_s += secs(r.execution);
  if (r.cold_start_wait > Time::zero()) ++cold_start_affected;
  batch_size_sum += r.batch_size;
}

nlohmann::json SummaryBuilder::Group::to_json(double measured_s) const {
  const std::uint64_t completed = ok + slo_miss;
  nlohmann::json g = nlohmann::json::object();
  g["requests"] = {{"recorded", ok + slo_miss + dropped},
                   {"ok", ok},
                   {"slo_miss", slo_miss},
                   {"dropped", dropped},
                   {"completed", completed}};
  g["slo"] = {{"with_slo", with_slo},
              {"met", slo_met},
              {"violated", with_slo - slo_met},
              {"compliance", with_slo == 0 ? nlohmann::json(nullptr)
                                           : nlohmann::json(static_cast<double>(slo_met) /
                                                            static_cast<double>(with_slo))}};
  nlohmann::json lat = {{"count", latency.count()}};
  for (const char* key : {"mean", "min", "max", "p50", "p90", "p99", "p999"})
    lat[key] = nullptr;
  if (!latency.empty()) {
    lat["mean"] = latency.mean();
    lat["min"] = latency.min();
    lat["max"] = latency.max();
    lat["p50"] = latency.quantile(0.50);
    lat["p90"] = latency.quantile(0.90);
    lat["p99"] = latency.quantile(0.99);
    lat["p999"] = latency.quantile(0.999);
  }
  g["latency_s"] = std::move(lat);
  g["waits_s"] = {
      {"queue_mean", mean_or_null(queue_sum_s, completed)},
      {"batching_mean", mean_or_null(batching_sum_s, completed)},
      {"cold_start_mean", mean_or_null(cold_start_sum_s, completed)},
      {"execution_mean", mean_or_null(execution_sum_s, completed)},
      {"cold_start_affected", cold_start_affected},
      // The same waits over the requests that waited at all (> 0): the definition
      // under which Flashpoint's §8.4 cold starts fit (docs/reproduction/flashpoint.md).
      {"cold_start_mean_waiting", mean_or_null(cold_start_sum_s, cold_start_affected)}};
  g["batch_size_mean"] = mean_or_null(static_cast<double>(batch_size_sum), completed);
  g["throughput_rps"] = measured_s > 0.0
                            ? nlohmann::json(static_cast<double>(completed) / measured_s)
                            : nlohmann::json(nullptr);
  return g;
}

SummaryBuilder::SummaryBuilder(Time warmup_end, double relative_error)
    : warmup_end_(warmup_end),
      alpha_(relative_error),
      all_(relative_error),
      strict_(relative_error),
      best_effort_(relative_error) {}

void SummaryBuilder::add(const RequestRecord& r) {
  const auto bad = [&r](std::string_view what) {
    return std::invalid_argument(fmt::format("SummaryBuilder::add: request {}: {}", r.id, what));
  };
  if (r.outcome != Outcome::kOk && r.outcome != Outcome::kSloMiss &&
      r.outcome != Outcome::kDropped) {
    throw bad(fmt::format("outcome has the invalid value {}", static_cast<int>(r.outcome)));
  }
  if (r.cls != RequestClass::kStrict && r.cls != RequestClass::kBestEffort) {
    throw bad(fmt::format("class has the invalid value {}", static_cast<int>(r.cls)));
  }
  if (r.finished() && r.finish < r.arrival) {
    throw bad(fmt::format("finish ({}) is before arrival ({})", to_string(r.finish),
                          to_string(r.arrival)));
  }
  const std::pair<const char*, Time> parts[] = {{"queue_wait", r.queue_wait},
                                                {"batching_wait", r.batching_wait},
                                                {"cold_start_wait", r.cold_start_wait},
                                                {"execution", r.execution},
                                                {"slo", r.slo}};
  for (const auto& [name, value] : parts) {
    if (value < Time::zero()) {
      throw bad(fmt::format("{} is negative ({})", name, to_string(value)));
    }
  }
  ++added_;
  if (r.arrival < warmup_end_) {
    ++warmup_excluded_;
    return;
  }
  // The latency's sketch key (a logarithm) taken once for the three groups' sketches, which
  // share alpha_: a key per sketch was a third of the summary's time.
  const StreamingQuantile::Keyed latency_s = r.finished()
                                                 ? all_.latency.keyed(secs(r.latency()))
                                                 : StreamingQuantile::Keyed{0.0, 0, alpha_};
  all_.add(r, latency_s);
  (r.cls == RequestClass::kStrict ? strict_ : best_effort_).add(r, latency_s);
  auto it = per_function_.find(r.function);
  if (it == per_function_.end()) it = per_function_.emplace(r.function, Group(alpha_)).first;
  it->second.add(r, latency_s);
}

nlohmann::json SummaryBuilder::build(const SummaryContext& ctx) const {
  const double measured_s = secs(ctx.duration - warmup_end_);
  nlohmann::json s = all_.to_json(measured_s);
  s["requests"]["warmup_excluded"] = warmup_excluded_;
  s["schema"] = "dcsim.summary/1";
  s["duration_s"] = secs(ctx.duration);
  s["warmup_s"] = secs(warmup_end_);
  s["measured_s"] = measured_s;
  s["quantile_relative_error"] = alpha_;
  s["per_class"] = {
      {std::string(to_string(RequestClass::kStrict)), strict_.to_json(measured_s)},
      {std::string(to_string(RequestClass::kBestEffort)), best_effort_.to_json(measured_s)}};
  nlohmann::json per_function = nlohmann::json::object();
  for (const auto& [id, group] : per_function_) {
    if (id >= ctx.names.functions.size()) {
      throw std::invalid_argument(fmt::format(
          "SummaryBuilder::build: function id {} has no name (the name table has {} entries)", id,
          ctx.names.functions.size()));
    }
    const std::string& name = ctx.names.functions[id];
    if (per_function.contains(name)) {
      throw std::invalid_argument(fmt::format(
          "SummaryBuilder::build: function name \"{}\" is used by more than one id", name));
    }
    per_function[name] = group.to_json(measured_s);
  }
  s["per_function"] = std::move(per_function);
  if (!ctx.extra.is_null()) {
    if (!ctx.extra.is_object()) {
      throw std::invalid_argument(
          fmt::format("SummaryBuilder::build: SummaryContext::extra must be a JSON object, got {}",
                      ctx.extra.type_name()));
    }
    for (const auto& [key, value] : ctx.extra.items()) {
      if (s.contains(key)) {
        throw std::invalid_argument(fmt::format(
            "SummaryBuilder::build: extra key \"{}\" collides with a summary key", key));
      }
      s[key] = value;
    }
  }
  return s;
}

}  // namespace sim::metrics
