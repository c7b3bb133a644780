// BATCH and MBS+ baselines of HarmonyBatch §V (implementations.md §1.14-1.15).

#include "baselines.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "bayesian_search.hpp"
#include "harmony_planner.hpp"
#include "performance_model.hpp"

namespace sim::policy::harmonybatch {

namespace {

std::vector<Application> sorted_by_slo(std::span<const Application> apps) {
  std::vector<Application> v(apps.begin(), apps.end());
  std::stable_sort(v.begin(), v.end(),
                   [](const Application& a, const Application& b) { return a.slo_s < b.slo_s; });
  return v;
}

// The 0.05-core grid, rounded to two decimals as BATCH builds it.
std::vector<double> core_grid(const PlannerOptions& o) {
  std::vector<double> g;
  const auto n = static_cast<int>(std::lround(o.cpu_max_cores / o.cpu_step));
  for (int k = 1; k <= n; ++k)
    g.push_back(std::round(k * o.cpu_step * 100.0) / 100.0);
  return g;
}

// The batch that actually forms on average: min(b, floor(r T) + 1) (HB0's b_avg).
int average_batch(int b, double rate, double timeout_s) {
  return formed_batch(b, rate * std::max(timeout_s, 0.0));
}

// BATCH for one application: exhaustive (c, b) search, deterministic latency L_max := L_avg.
FunctionConfig batch_for(const PlannerModel& m, const Application& a, const PlannerOptions& o) {
  std::optional<FunctionConfig> best;
  const int max_b = std::min(o.cpu_max_batch, static_cast<int>(m.cpu_avg.size()));
  for (double c : core_grid(o)) {
    for (int b = 1; b <= max_b; ++b) {
      if (cpu_min_cores_for_memory(m, b) > c) continue;
      const auto mem = cpu_function_memory_gb(m, c, b);
      if (!mem) continue;
      const double lat = cpu_avg_latency_s(m, c, b);
      double timeout = a.slo_s - lat;
      if (timeout < 0.0) continue;
      if (b == 1) timeout = 0.0;
      const int b_avg = average_batch(b, a.rate, timeout);
      const double cost = cost_per_request(o.prices, FunctionType::kCpu, c, *mem, 0,
                                           cpu_avg_latency_s(m, c, b_avg), b_avg);
      if (!best || cost < best->cost_per_request) {
        FunctionConfig f;
        f.type = FunctionType::kCpu;
        f.cores = c;
        f.memory_gb = *mem;
        f.batch = b;
        f.timeouts_s = {timeout};
        f.avg_latency_s = lat;
        f.max_latency_s = lat;  // BATCH's belief: a deterministic latency
        f.cost_per_request = cost;
        best = f;
      }
    }
  }
  if (!best) {  // nothing meets the SLO: the largest function, batch 1
    FunctionConfig f;
    f.type = FunctionType::kCpu;
    f.cores = o.cpu_max_cores;
    f.memory_gb = cpu_function_memory_gb(m, f.cores, 1).value_or(f.cores);
    f.timeouts_s = {0.0};
    f.avg_latency_s = f.max_latency_s = cpu_avg_latency_s(m, f.cores, 1);
    f.cost_per_request =
        cost_per_request(o.prices, FunctionType::kCpu, f.cores, f.memory_gb, 0, f.avg_latency_s, 1);
    best = f;
  }
  return *best;
}

// MBS+ for one group (applications with shares of their rates): the cheapest CPU or GPU
// function, timeouts (s_min - L_max) + (s_w - s_min), cost at b_avg (implementations.md §1.15).
// Searched either exhaustively over the grids or, as the original, by Bayesian optimisation
// with a small budget per function type.
class MbsGroupSearch {
 public:
  MbsGroupSearch(const PlannerModel& m, const Group& g, const PlannerOptions& o)
      : m_(m), o_(o), s_min_(g.min_slo()), total_(g.rate()) {
    for (std::size_t i = 0; i < g.apps.size(); ++i) {
      slos_.push_back(g.apps[i].slo_s);
      rates_.push_back(g.apps[i].rate * g.shares[i]);
    }
  }

  // A CPU function with c cores and batch b, or nullopt if it breaks a constraint.
  [[nodiscard]] std::optional<FunctionConfig> cpu(double c, int b) const {
    if (!m_.has_cpu || b < 1 || b > max_cpu_batch() || c <= 0.0) return std::nullopt;
    const auto mem = cpu_function_memory_gb(m_, c, b);
    if (!mem) return std::nullopt;
    const double lat = cpu_max_latency_s(m_, c, b);
    if (lat > s_min_) return std::nullopt;
    return priced(FunctionType::kCpu, c, *mem, 0, b, lat,
                  [&](int bb) { return cpu_avg_latency_s(m_, c, bb); });
  }

  // A GPU function with gg GB and batch b, or nullopt if it breaks a constraint.
  [[nodiscard]] std::optional<FunctionConfig> gpu(int gg, int b) const {
    if (!m_.has_gpu || gg < 1 || b < 1 || b > o_.gpu_max_batch) return std::nullopt;
    const double cores = gg / 3.0;
    const double gmem = gpu_function_memory_gb(m_);
    if (gmem > 4.0 * cores || gpu_min_memory_gb(m_, b) > gg) return std::nullopt;
    const double lat = gpu_max_latency_s(m_, gg, b, o_.gpu_max_latency_overhead);
    if (lat > s_min_) return std::nullopt;
    return priced(FunctionType::kGpu, cores, gmem, gg, b, lat,
                  [&](int bb) { return gpu_avg_latency_s(m_, gg, bb); });
  }

  [[nodiscard]] std::optional<FunctionConfig> best() const {
    return o_.mbs_bayesian ? bayesian() : exhaustive();
  }

 private:
  [[nodiscard]] int max_cpu_batch() const {
    return std::min(o_.cpu_max_batch, static_cast<int>(m_.cpu_avg.size()));
  }

  template <typename AvgAt>
  [[nodiscard]] FunctionConfig priced(FunctionType type, double cores, double mem, int gpu_gb,
                                      int b, double lat_max, AvgAt avg_at) const {
    std::vector<double> t(slos_.size(), 0.0);
    double T = 0.0;
    if (b > 1) {
      for (std::size_t i = 0; i < slos_.size(); ++i)
        t[i] = (s_min_ - lat_max) + (slos_[i] - s_min_);
      T = equivalent_timeout_s(t, rates_);
    }
    const int b_avg = formed_batch(b, total_ * T);
    FunctionConfig f;
    f.type = type;
    f.cores = cores;
    f.memory_gb = mem;
    f.gpu_gb = gpu_gb;
    f.batch = b;
    f.timeouts_s = t;
    f.avg_latency_s = avg_at(b);
    f.max_latency_s = lat_max;
    f.cost_per_request =
        cost_per_request(o_.prices, type, cores, mem, gpu_gb, avg_at(b_avg), b_avg);
    return f;
  }

  static void keep_cheaper(std::optional<FunctionConfig>& best, std::optional<FunctionConfig> f) {
    if (f && (!best || f->cost_per_request < best->cost_per_request)) best = std::move(f);
  }

  [[nodiscard]] std::optional<FunctionConfig> exhaustive() const {
    std::optional<FunctionConfig> best;
    for (double c : core_grid(o_))
      for (int b = 1; b <= max_cpu_batch(); ++b)
        keep_cheaper(best, cpu(c, b));
    for (int gg = o_.gpu_min_gb; gg <= o_.gpu_max_gb; ++gg)
      for (int b = 1; b <= o_.gpu_max_batch; ++b)
        keep_cheaper(best, gpu(gg, b));
    return best;
  }

  // The original's search: per function type, maximise -cost over the box (batch, resource)
  // with infeasible points scored -1e9; the resource is truncated onto its grid (CPU: 0.05
  // cores; GPU: whole GB) and the batch to an integer, as the original's objective does.
  [[nodiscard]] std::optional<FunctionConfig> bayesian() const {
    constexpr double kInfeasible = -1e9;
    const BayesianSearchOptions bo{.initial_points = o_.mbs_initial_points,
                                   .iterations = o_.mbs_iterations,
                                   .seed = o_.mbs_seed};
    auto cpu_at = [&](double res, double batch) {
      const double c = std::round(std::trunc(res / o_.cpu_step) * o_.cpu_step * 100.0) / 100.0;
      return cpu(c, static_cast<int>(batch));
    };
    auto gpu_at = [&](double res, double batch) {
      return gpu(static_cast<int>(res), static_cast<int>(batch));
    };
    auto score = [&](const std::optional<FunctionConfig>& f) {
      return f ? -f->cost_per_request : kInfeasible;
    };
    std::optional<FunctionConfig> best;
    if (m_.has_cpu) {
      const auto r = bayesian_maximise(
          [&](double res, double b) { return score(cpu_at(res, b)); }, {o_.cpu_min_cores, 1.0},
          {o_.cpu_max_cores, static_cast<double>(max_cpu_batch())}, bo);
      if (r.best_value > kInfeasible) best = cpu_at(r.best_x[0], r.best_x[1]);
    }
    if (m_.has_gpu) {
      const auto r = bayesian_maximise(
          [&](double res, double b) { return score(gpu_at(res, b)); },
          {static_cast<double>(o_.gpu_min_gb), 1.0},
          {static_cast<double>(o_.gpu_max_gb), static_cast<double>(o_.gpu_max_batch)}, bo);
      if (r.best_value > kInfeasible) keep_cheaper(best, gpu_at(r.best_x[0], r.best_x[1]));
    }
    return best;
  }

  const PlannerModel& m_;
  const PlannerOptions& o_;
  std::vector<double> slos_;
  std::vector<double> rates_;
  double s_min_;
  double total_;
};

std::optional<FunctionConfig> mbs_for(const PlannerModel& m, const Group& g,
                                      const PlannerOptions& o) {
  return MbsGroupSearch(m, g, o).best();
}

// Split the total rate into n equal chunks walking the applications in SLO order; an
// application that overflows a chunk continues in the next one.
std::vector<Group> even_split(const std::vector<Application>& apps, int n) {
  double R = 0.0;
  for (const auto& a : apps)
    R += a.rate;
  const double chunk = R / n;
  const double eps = 1e-9 * std::max(R, 1.0);
  std::vector<Group> groups(1);
  double filled = 0.0;
  for (const auto& a : apps) {
    double rest = a.rate;
    while (rest > eps) {
      if (filled >= chunk - eps && static_cast<int>(groups.size()) < n) {
        groups.emplace_back();
        filled = 0.0;
      }
      const double take =
          static_cast<int>(groups.size()) < n ? std::min(rest, chunk - filled) : rest;
      groups.back().apps.push_back(a);
      groups.back().shares.push_back(take / a.rate);
      filled += take;
      rest -= take;
    }
  }
  return groups;
}

}  // namespace

Plan plan_batch(const PlannerModel& m, std::span<const Application> input,
                const PlannerOptions& o) {
  if (input.empty()) throw std::invalid_argument("BATCH: no applications");
  if (!m.has_cpu) throw std::invalid_argument("BATCH: model " + m.name + " has no CPU profile");
  Plan plan;
  plan.algorithm = "batch";
  plan.model = m.name;
  for (const auto& a : sorted_by_slo(input)) {
    Group g;
    g.apps = {a};
    g.shares = {1.0};
    g.function = batch_for(m, a, o);
    plan.total_rate += a.rate;
    plan.groups.push_back(std::move(g));
  }
  for (auto& g : plan.groups)
    g.ratio = g.rate() / plan.total_rate;
  plan.cost_per_request = plan_cost(plan.groups);
  return plan;
}

Plan plan_mbs_plus(const PlannerModel& m, std::span<const Application> input,
                   const PlannerOptions& o) {
  if (input.empty()) throw std::invalid_argument("MBS+: no applications");
  if (std::cmp_greater(input.size(), o.mbs_max_applications)) {
    throw std::invalid_argument(fmt::format(
        "MBS+: {} applications, more than the {} it plans by default (its time grows with the "
        "square of the set); raise the limit with --mbs-max-applications",
        input.size(), o.mbs_max_applications));
  }
  const auto apps = sorted_by_slo(input);
  std::optional<Plan> best;
  for (int n = 1; n <= static_cast<int>(apps.size()); ++n) {
    Plan p;
    p.algorithm = "mbs+";
    p.model = m.name;
    p.groups = even_split(apps, n);
    bool feasible = true;
    for (auto& g : p.groups) {
      auto f = mbs_for(m, g, o);
      if (!f) {
        feasible = false;
        break;
      }
      g.function = *f;
      p.total_rate += g.rate();
    }
    if (!feasible) continue;
    for (auto& g : p.groups)
      g.ratio = g.rate() / p.total_rate;
    p.cost_per_request = plan_cost(p.groups);
    if (!best || p.cost_per_request < best->cost_per_request) best = std::move(p);
  }
  if (!best) throw std::invalid_argument("MBS+: no split of the applications meets every SLO");
  return *best;
}

Plan plan_with(const std::string& algorithm, const PlannerModel& m,
               std::span<const Application> apps, const PlannerOptions& o) {
  if (algorithm == "harmonybatch") return plan_harmonybatch(m, apps, o);
  if (algorithm == "batch") return plan_batch(m, apps, o);
  if (algorithm == "mbs+") return plan_mbs_plus(m, apps, o);
  throw std::invalid_argument("unknown planning algorithm \"" + algorithm +
                              "\" (expected harmonybatch, batch or mbs+)");
}

}  // namespace sim::policy::harmonybatch
