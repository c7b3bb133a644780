// HarmonyBatch Algorithm 1: two-stage merging of application groups (§IV-B).

#include "harmony_planner.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "func_provision.hpp"

namespace sim::policy::harmonybatch {

namespace {

std::vector<Application> sorted_by_slo(std::span<const Application> apps) {
  std::vector<Application> v(apps.begin(), apps.end());
  std::stable_sort(v.begin(), v.end(),
                   [](const Application& a, const Application& b) { return a.slo_s < b.slo_s; });
  return v;
}

std::string describe(const Application& a) {
  // %g: an SLO of 1e-300 s must not print as 0.000000.
  return fmt::format("application \"{}\" (SLO {:g} s, rate {:g} req/s)", a.name, a.slo_s, a.rate);
}

class Merger {
 public:
  Merger(const PlannerModel& m, const PlannerOptions& o) : m_(m), o_(o) {}

  // Merge(L, low, high) of Algorithm 1 (lines 23-29): provision the union and keep it when
  // its weighted cost is not above the groups' it replaces. `forced`: keep it whatever it
  // costs (the code's stage 1); a union no function can serve is never kept.
  bool merge(std::vector<Group>& L, std::size_t low, std::size_t high, bool forced = false) const {
    if (high <= low) return false;
    if (high - low == 1 && !forced) {
      // A "merge" of one group changes nothing; the code still re-weights it (quirk Q1).
      if (!o_.fix_merge_ratio) L[low].ratio += 1.0;
      return false;
    }
    Group merged;
    double old_cost = 0.0;
    merged.ratio = o_.fix_merge_ratio ? 0.0 : 1.0;
    for (std::size_t k = low; k < high; ++k) {
      merged.apps.insert(merged.apps.end(), L[k].apps.begin(), L[k].apps.end());
      merged.ratio += L[k].ratio;
      old_cost += L[k].ratio * L[k].function.cost_per_request;
    }
    auto f = provision(m_, merged.apps, o_);
    if (!f || (!forced && merged.ratio * f->cost_per_request > old_cost)) return false;
    merged.function = *f;
    merged.shares.assign(merged.apps.size(), 1.0);
    L.erase(L.begin() + static_cast<std::ptrdiff_t>(low),
            L.begin() + static_cast<std::ptrdiff_t>(high));
    L.insert(L.begin() + static_cast<std::ptrdiff_t>(low), std::move(merged));
    return true;
  }

 private:
  const PlannerModel& m_;
  const PlannerOptions& o_;
};

// One left-to-right pass of stage 2: each pair of neighbours with a GPU function among them
// (and `eligible`) is merged if Merge accepts; after a merge the merged group is tried again
// with its next neighbour (the code steps back one index, then forward).
template <typename Eligible>
void merge_neighbours(std::vector<Group>& L, const Merger& merger, Eligible eligible) {
  std::ptrdiff_t k = 0;
  while (k + 1 < static_cast<std::ptrdiff_t>(L.size())) {
    const auto u = static_cast<std::size_t>(k);
    if ((L[u].function.type == FunctionType::kGpu ||
         L[u + 1].function.type == FunctionType::kGpu) &&
        eligible(L[u], L[u + 1])) {
      if (merger.merge(L, u, u + 2)) k = std::max<std::ptrdiff_t>(k - 1, -1);
    }
    k += 1;
  }
}

}  // namespace

double knee_rate(const PlannerModel& m, double slo_s, const PlannerOptions& o) {
  double lo = o.knee_min_rate;
  double hi = o.knee_max_rate;
  while (hi - lo > o.knee_resolution) {
    const double mid = (lo + hi) / 2.0;
    const Application probe{"knee", slo_s, mid};
    const auto f = provision(m, std::span<const Application>(&probe, 1), o);
    if (!f) {
      throw std::invalid_argument(
          fmt::format("HarmonyBatch knee point: no function meets an SLO of {:g} s", slo_s));
    }
    if (f->type == FunctionType::kGpu) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return hi;
}

double plan_cost(std::span<const Group> groups) {
  double total = 0.0;
  double weighted = 0.0;
  for (const auto& g : groups) {
    total += g.rate();
    weighted += g.rate() * g.function.cost_per_request;
  }
  return total > 0.0 ? weighted / total : 0.0;
}

Plan plan_harmonybatch(const PlannerModel& m, std::span<const Application> input,
                       const PlannerOptions& o) {
  if (input.empty()) throw std::invalid_argument("HarmonyBatch: no applications");
  const auto apps = sorted_by_slo(input);
  double R = 0.0;
  for (const auto& a : apps)
    R += a.rate;
  // Lines 1-3: one group per application, provisioned on its own, in SLO order.
  std::vector<Group> L;
  for (const auto& a : apps) {
    Group g;
    g.apps = {a};
    g.shares = {1.0};
    g.ratio = a.rate / R;
    auto f = provision(m, g.apps, o);
    if (!f) throw std::invalid_argument("HarmonyBatch: no function meets " + describe(a));
    g.function = *f;
    L.push_back(std::move(g));
  }
  const Merger merger(m, o);
  // Stage 1 (lines 4-13): runs of CPU groups whose total rate passes the knee point r* are
  // merged, to be served by a GPU function. r* is the knee of the tightest SLO (as the code).
  const double r_knee = knee_rate(m, apps.front().slo_s, o);
  std::size_t i = 0;
  std::size_t j = 0;
  double r = 0.0;
  while (i < L.size()) {
    if (L[i].function.type == FunctionType::kCpu) {
      r += L[i].rate();
      if (r > r_knee) {
        merger.merge(L, j, i + 1, o.forced_stage1_merge);
        i = j;
        j = j + 1;
        r = 0.0;
      }
    } else {
      j = i + 1;
      r = 0.0;
    }
    i += 1;
  }
  // The code's extra pass before stage 2: only neighbours whose boundary SLOs (the left
  // group's largest, the right group's smallest) are in the same knee class.
  if (o.knee_class_stage) {
    std::map<double, int> knee_class;
    for (const auto& a : apps) {
      if (knee_class.contains(a.slo_s)) continue;
      const double k = knee_rate(m, a.slo_s, o);
      knee_class[a.slo_s] = k < 0.05 ? 1 : (k > 39.95 ? 3 : 2);
    }
    merge_neighbours(L, merger, [&](const Group& left, const Group& right) {
      return knee_class.at(left.apps.back().slo_s) == knee_class.at(right.apps.front().slo_s);
    });
  }
  // Stage 2 (lines 14-21): merge each GPU group with its neighbour while that is cheaper.
  merge_neighbours(L, merger, [](const Group&, const Group&) { return true; });
  Plan plan;
  plan.algorithm = "harmonybatch";
  plan.model = m.name;
  plan.groups = std::move(L);
  plan.total_rate = R;
  plan.cost_per_request = plan_cost(plan.groups);
  return plan;
}

}  // namespace sim::policy::harmonybatch
