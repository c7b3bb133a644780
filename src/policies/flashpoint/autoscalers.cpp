#include "autoscalers.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace sim::policy::flashpoint {

ReplicaCounts count_replicas(const PlatformView& view, std::uint32_t function,
                             bool replica_per_partitioned) {
  ReplicaCounts c;
  for (const auto& i : view.instances) {
    if (i.function != function || i.state == InstanceState::kDraining ||
        i.state == InstanceState::kTerminated) {
      continue;
    }
    if (i.partition <= 0 || !replica_per_partitioned) ++c.live;
    if (i.partition > 0) continue;  // a replica's other parts: counted by its head
    // A head is ready only once every part is (replicas.cpp holds the parts until then), and
    // its parts then serve in its pipeline: when parts are counted as replicas they are ready
    // pods too, and busy while the head is (the pipeline at its capacity; see the header).
    const int w = (i.partition == 0 && !replica_per_partitioned) ? i.partitions : 1;
    if (i.state == InstanceState::kIdle || i.state == InstanceState::kBusy) c.ready += w;
    if (i.state == InstanceState::kBusy) c.busy += w;
  }
  return c;
}

int free_gpus(const PlatformView& view) {
  int n = 0;
  for (const auto& h : view.hosts) {
    if (!h.available) continue;
    for (const auto& g : h.gpus) {
      if (g.instances == 0 && !g.reconfiguring) ++n;
    }
  }
  return n;
}

bool ReplicaAutoscaler::evaluation_due(Time now) {
  if (limits_.evaluation_period <= Time::zero()) return true;
  // On the grid t0, t0 + period, ... of the first call: a tick at or past the next point
  // evaluates (ticks need not fall on the grid), the grid itself does not drift.
  if (next_evaluation_ && now < *next_evaluation_) return false;
  if (!next_evaluation_) next_evaluation_ = now;
  while (*next_evaluation_ <= now)
    *next_evaluation_ += limits_.evaluation_period;
  return true;
}

Decisions ReplicaAutoscaler::decide(const PlatformView& view) {
  Decisions d;
  const bool evaluate = evaluation_due(view.now);
  if (evaluate) {
    ++evaluations_;
    d.compute_time = limits_.decision_time;
  }
  // The kFreeGpus budget of this decision, shared by its functions in id order.
  int gpus_left = evaluate && mp_.replica_per_partitioned() ? free_gpus(view) : 0;
  for (const auto& f : view.functions) {
    if (!f.gpu) continue;
    // Sampled at every tick (windowed metrics), acted on only at evaluations.
    int want = desired(f, view);
    if (!evaluate) continue;
    want = std::clamp(want, limits_.min_replicas, limits_.max_replicas);
    if (f.queue_length > 0) want = std::max(want, std::min(1, limits_.max_replicas));
    // Stabilisation as Kubernetes HPA does it for an HPA without `behavior` (TorchServe's
    // hpa.yaml has none): horizontal.go's stabilizeRecommendation applies the largest count
    // recommended within the scale-down window, now included, in both directions; the
    // scale-up policies below then cap the growth (normalizeDesiredReplicas).
    const ReplicaCounts c = counts(view, f.id);
    auto& h = history_[f.id];
    // The first window starts from the replicas found (HPA seeds its recommendations with the
    // current count), so a run that begins with warm replicas does not drop them at once.
    if (h.empty()) h.emplace_back(view.now, c.live);
    h.emplace_back(view.now, want);
    while (!h.empty() && h.front().first < view.now - limits_.scale_down_window)
      h.pop_front();
    int applied = want;
    for (const auto& [t, n] : h)
      applied = std::max(applied, n);
    if (limits_.scale_up_period > Time::zero()) {
      // HPA scale-up policies: the base is the count before the scale-ups of the period
      // (those after now - period), as Kubernetes computes it from its scale events.
      auto& events = scale_ups_[f.id];
      while (!events.empty() && events.front().first <= view.now - limits_.scale_up_period)
        events.pop_front();
      int base = c.live;
      for (const auto& [t, n] : events)
        base -= n;
      base = std::max(base, 0);
      const int cap = std::max(
          static_cast<int>(std::ceil(base * (1.0 + limits_.scale_up_percent / 100.0) - 1e-9)),
          base + limits_.scale_up_pods);
      applied = std::min(applied, std::max(cap, c.live));
      if (applied > c.live) events.emplace_back(view.now, applied - c.live);
    }
    if (applied > c.live) {
      scale_up(f, applied - c.live, c.ready, gpus_left, d, view.now);
      continue;
    }
    int surplus = c.live - applied;
    if (surplus <= 0) continue;
    // §4.2.6: partitioned replicas first (lower service rate), most GPUs first, while they
    // fit in what is to be removed (in GPUs; in replicas when a partitioned one counts once).
    const int per_head = mp_.replica_per_partitioned() ? 1 : 0;
    std::vector<std::pair<int, InstanceId>> heads;
    for (const auto& i : view.instances) {
      if (i.function == f.id && i.partition == 0 && i.state != InstanceState::kDraining) {
        heads.emplace_back(-i.partitions, i.id);
      }
    }
    std::sort(heads.begin(), heads.end());
    for (const auto& [neg_parts, id] : heads) {
      const int size = per_head > 0 ? per_head : -neg_parts;
      if (size > surplus) continue;
      d.stop.push_back({id});
      surplus -= size;
    }
    for (const auto state :
         {InstanceState::kIdle, InstanceState::kColdStarting, InstanceState::kBusy}) {
      for (auto it = view.instances.rbegin(); it != view.instances.rend() && surplus > 0; ++it) {
        if (it->function != f.id || it->state != state || it->partition >= 0) continue;
        d.stop.push_back({it->id});
        --surplus;
      }
    }
  }
  return d;
}

void ReplicaAutoscaler::scale_up(const FunctionView& f, int n, int ready, int& gpus_left,
                                 Decisions& d, Time now) {
  scale_up_log_.push_back({now, n, ready, 1, n, 0});
  // The tag leads the platform's report of each command back to this record (started()).
  const std::uint64_t tag = scale_up_log_.size();
  StartInstance full{f.id, n, std::nullopt, std::nullopt};
  full.tag = tag;
  const bool by_gpus = mp_.replica_per_partitioned();
  // The most parts a replica of this scale-up may have (see PartitionCap).
  const int cap = by_gpus ? gpus_left / n : n;
  if (by_gpus) gpus_left = std::max(gpus_left - n, 0);  // full replicas unless partitioned
  if (!mp_.enabled || f.layers.empty() || cap < 2) {
    d.start.push_back(full);
    return;
  }
  auto it = plans_.find(f.id);
  if (it == plans_.end()) {
    // §4.2.2: precalculated once per model (worst-case, non-local costs).
    std::vector<LayerCost> layers;
    layers.reserve(f.layers.size());
    for (const auto& l : f.layers)
      layers.push_back({l.cold_start_s, l.exec_s, l.transfer_s, 0.0});
    const int top = mp_.max_partitions > 0 ? mp_.max_partitions : static_cast<int>(layers.size());
    it = plans_.emplace(f.id, precalculate_plans(layers, top, mp_.max_x)).first;
  }
  // Eq. 4.14: x = q_l + (lambda - mu) * C(1), with mu the ready replicas' service rate.
  double full_cold = 0.0;
  for (const auto& l : f.layers)
    full_cold += l.cold_start_s;
  const double per_request_s = f.batch_latency_s / std::max(1, f.config.max_batch);
  const double mu = per_request_s > 0 ? ready / per_request_s : 0.0;
  const double lambda = f.arrival_rate.empty() ? 0.0 : f.arrival_rate.front();
  const double x = expected_requests(static_cast<double>(f.queue_length), lambda, mu, full_cold);
  const long xr = std::clamp(static_cast<long>(std::llround(x)), 1L, mp_.max_x);
  const PlanCosts& plan = it->second.lookup(xr, cap);
  const int p = plan.partitions();
  if (p < 2) {
    d.start.push_back(full);
    return;
  }
  scale_up_log_.back().parts = p;
  if (by_gpus) {
    // n replicas of p parts each: n * p GPUs (n of them already taken from the budget).
    gpus_left = std::max(gpus_left - n * (p - 1), 0);
    scale_up_log_.back().added = n * p;
    StartInstance part{f.id, n, std::nullopt, std::nullopt};
    part.partition = PartitionSpec{plan.cut_after, mp_.complete, mp_.pipelined};
    part.tag = tag;
    d.start.push_back(part);
    return;
  }
  StartInstance part{f.id, n / p, std::nullopt, std::nullopt};
  part.partition = PartitionSpec{plan.cut_after, mp_.complete, mp_.pipelined};
  part.tag = tag;
  d.start.push_back(part);
  scale_up_log_.back().replicas = n / p + n % p;
  if (n % p > 0) {
    StartInstance rest{f.id, n % p, std::nullopt, std::nullopt};
    rest.tag = tag;
    d.start.push_back(rest);
  }
}

void ReplicaAutoscaler::started(const StartInstance& s, int started) {
  if (s.tag == 0 || s.tag > scale_up_log_.size()) return;  // not a scale-up of this log
  const int parts = s.partition ? static_cast<int>(s.partition->cut_after.size()) + 1 : 1;
  scale_up_log_[s.tag - 1].unplaced += std::max(s.count - started, 0) * parts;
}

// Kubernetes HPA on an External metric with a Value target, as TorchServe's Kubernetes
// autoscaler deploys it (pytorch/serve kubernetes/autoscale.md, hpa.yaml: metric
// ts_queue_latency_microseconds, `target: {type: Value}`): replica_calculator.go's
// GetExternalMetricReplicas -> getUsageRatioReplicaCount, desired = ceil(ratio x ready pods),
// unchanged within the 10% tolerance. Unready (cold-starting) pods are not in the product and
// get no "missing metric" stand-in (that rule is for Pods / Resource metrics): a desired
// count below the live one is a scale-down, which the stabilisation window holds.
int QueueLatencyAutoscaler::desired(const FunctionView& f, const PlatformView& view) {
  const ReplicaCounts c = counts(view, f.id);
  // TorchServe's QueueTime is recorded per dequeued request: the cumulative counters sampled
  // at every tick, the oldest sample kept is the last one at or before now - window.
  auto& s = samples_[f.id];
  s.push_back({view.now, f.dequeued, f.dequeued_wait_s});
  while (s.size() > 1 && s[1].at <= view.now - window_)
    s.pop_front();
  const auto dequeued = s.back().dequeued - s.front().dequeued;
  double latency = 0.0;
  if (dequeued > 0) {
    latency = (s.back().wait_s - s.front().wait_s) / static_cast<double>(dequeued);
  } else if (f.queue_length > 0) {
    return c.live;  // requests wait, none was dequeued: no metric yet
  }
  const double ratio = latency / target_s_;
  if (c.live > 0 && std::abs(ratio - 1.0) <= 0.1) return c.live;
  // From zero replicas HPA scales to ceil(ratio) (its scale-from-zero branch).
  const double base = c.live > 0 ? static_cast<double>(c.ready) : 1.0;
  return static_cast<int>(std::ceil(base * ratio - 1e-9));
}

int ArrivalPercentileAutoscaler::desired(const FunctionView& f, const PlatformView& view) {
  auto& s = series_[f.id];
  if (s.started && view.now > s.last) {
    const double dt = (view.now - s.last).to_seconds();
    s.rates.emplace_back(view.now, static_cast<double>(f.arrivals - s.last_arrivals) / dt);
  }
  s.started = true;
  s.last = view.now;
  s.last_arrivals = f.arrivals;
  while (!s.rates.empty() && s.rates.front().first <= view.now - window_)
    s.rates.pop_front();
  if (s.rates.empty()) return counts(view, f.id).live;  // no rate measured yet
  std::vector<double> r;
  r.reserve(s.rates.size());
  for (const auto& [t, v] : s.rates)
    r.push_back(v);
  // Nearest-rank percentile.
  std::sort(r.begin(), r.end());
  const auto rank = static_cast<std::size_t>(
      std::ceil(percentile_ / 100.0 * static_cast<double>(r.size())) - 1.0);
  const double p = r[std::min(rank, r.size() - 1)];
  const double per_request_s = f.batch_latency_s / std::max(1, f.config.max_batch);
  return static_cast<int>(std::ceil(p * per_request_s / target_ - 1e-9));
}

int UtilisationAutoscaler::desired(const FunctionView& f, const PlatformView& view) {
  const ReplicaCounts c = counts(view, f.id);
  auto& s = samples_[f.id];
  if (c.ready > 0) {
    s.emplace_back(view.now, static_cast<double>(c.busy) / static_cast<double>(c.ready));
  }
  while (!s.empty() && s.front().first <= view.now - window_)
    s.pop_front();
  if (c.ready == 0) return c.live;  // no metric yet: keep what is starting
  double mean = 0.0;
  for (const auto& [t, u] : s)
    mean += u;
  mean /= static_cast<double>(s.size());
  // Unready (cold-starting) pods count as 0% utilisation.
  const double sum = mean * static_cast<double>(c.ready);
  const double ratio = sum / (target_ * static_cast<double>(c.live));
  if (std::abs(ratio - 1.0) <= 0.1) return c.live;
  return static_cast<int>(std::ceil(sum / target_ - 1e-9));
}

int InvocationsAutoscaler::desired(const FunctionView& f, const PlatformView& /*view*/) {
  const std::size_t w = std::min<std::size_t>(
      static_cast<std::size_t>(window_), f.arrival_rate.empty() ? 0 : f.arrival_rate.size() - 1);
  const double rate = f.arrival_rate.empty() ? 0.0 : f.arrival_rate[w];
  const double per_request_s = f.batch_latency_s / std::max(1, f.config.max_batch);
  const double target =
      target_ > 0 ? target_ : (per_request_s > 0 ? 0.5 * 60.0 / per_request_s : 1.0);
  return static_cast<int>(std::ceil(rate * 60.0 / target - 1e-9));
}

nlohmann::json scale_up_statistics(const std::vector<ScaleUpRecord>& records,
                                   std::uint64_t evaluations) {
  if (evaluations == 0) return nullptr;
  // Thesis Fig. 6.2: added / running per scale-up; from zero running it is unbounded, so those
  // are counted apart and the deciles are over the finite ratios (nearest rank).
  std::vector<double> ratios;
  std::uint64_t scale_ups = 0;
  std::uint64_t from_zero = 0;
  std::uint64_t above_one = 0;
  std::uint64_t added = 0;
  std::map<int, std::uint64_t> by_parts;
  // A decision the platform could not start at all added nothing: it is not a scale-up of
  // Fig. 6.2 / 8.10 (under the free-gpus cap, ATL keeps asking while no GPU is idle).
  std::uint64_t rejected = 0, rejected_replicas = 0, rejected_instances = 0;
  std::uint64_t partial = 0, not_started = 0;
  for (const auto& r : records) {
    const int placed = r.added - std::min(r.unplaced, r.added);
    if (placed <= 0) {
      ++rejected;
      rejected_replicas += static_cast<std::uint64_t>(r.replicas);
      rejected_instances += static_cast<std::uint64_t>(r.added);
      continue;
    }
    if (placed < r.added) {
      ++partial;
      not_started += static_cast<std::uint64_t>(r.added - placed);
    }
    ++scale_ups;
    added += static_cast<std::uint64_t>(placed);
    ++by_parts[r.parts];
    if (r.running <= 0) {
      ++from_zero;
      ++above_one;
      continue;
    }
    const double ratio = static_cast<double>(placed) / static_cast<double>(r.running);
    if (ratio > 1.0) ++above_one;
    ratios.push_back(ratio);
  }
  std::sort(ratios.begin(), ratios.end());
  nlohmann::json deciles = nlohmann::json::array();
  if (!ratios.empty()) {
    for (int k = 0; k <= 10; ++k) {
      const auto rank = static_cast<std::size_t>(
          std::max(0.0, std::ceil(k / 10.0 * static_cast<double>(ratios.size())) - 1.0));
      deciles.push_back(ratios[std::min(rank, ratios.size() - 1)]);
    }
  }
  nlohmann::json parts = nlohmann::json::object();
  for (const auto& [p, n] : by_parts)
    parts[std::to_string(p)] = n;
  const auto n = static_cast<double>(scale_ups);
  return {{"evaluations", evaluations},
          {"scale_ups", scale_ups},
          {"rejected",
           {{"scale_ups", rejected},
            {"replicas_asked", rejected_replicas},
            {"instances_asked", rejected_instances}}},
          {"partially_placed", {{"scale_ups", partial}, {"instances_not_started", not_started}}},
          {"instances_started", added},
          {"starts_per_scale_up", scale_ups == 0 ? 0.0 : static_cast<double>(added) / n},
          {"new_per_running",
           {{"deciles", deciles},
            {"from_zero", from_zero},
            {"fraction_above_1", scale_ups == 0 ? 0.0 : static_cast<double>(above_one) / n}}},
          {"scale_ups_by_parts", parts}};
}

std::string threshold_name(const std::string& type) {
  if (type == "tsk") return "target_queue_latency_s";
  if (type == "atl") return "target_utilisation";
  if (type == "owk") return "target_utilisation";
  if (type == "sm") return "target_invocations";
  return "";
}

}  // namespace sim::policy::flashpoint
