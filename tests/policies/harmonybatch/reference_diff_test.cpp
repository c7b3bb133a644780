// Differential test: dcsim's HarmonyBatch planner against the plans of the public reference
// planner (icloud-ecnu/HarmonyBatch 253269f) for the application sets in reference/cases.json.
// How the expected plans were produced: reference/README.md.

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harmonybatch/harmony_planner.hpp"
#include "test_models.hpp"

namespace sim::policy::harmonybatch {
namespace {

using nlohmann::json;

json load(const std::string& name) {
  const std::string path =
      std::string(SIM_SOURCE_DIR) + "/tests/policies/harmonybatch/reference/" + name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  return json::parse(in);
}

const json& cases() {
  static const json j = load("cases.json");
  return j.at("cases");
}

const json& reference_plans() {
  static const json j = load("reference_plans.json");
  return j.at("plans");
}

bool relative_close(double a, double b, double tol) {
  return std::abs(a - b) <= tol * std::max(std::abs(a), std::abs(b));
}

// The acceptance rule: same groups, function types, batch sizes, memory and GPU
// memory exactly, cores within 1e-6, cost per request within 0.5 %. Returns "" on a match,
// else the first difference.
std::string difference(const Plan& plan, const json& expected) {
  const auto& groups = expected.at("groups");
  if (plan.groups.size() != groups.size()) {
    return "groups: " + std::to_string(plan.groups.size()) + " instead of " +
           std::to_string(groups.size());
  }
  for (std::size_t k = 0; k < groups.size(); ++k) {
    const auto& e = groups[k];
    const auto& g = plan.groups[k];
    const auto& f = g.function;
    const std::string at = "group " + std::to_string(k) + ": ";
    std::vector<std::string> names;
    for (const auto& a : g.apps)
      names.push_back(a.name);
    if (names != e.at("applications").get<std::vector<std::string>>())
      return at + "applications differ";
    if (to_string(f.type) != e.at("type").get<std::string>()) return at + "type differs";
    if (f.batch != e.at("batch").get<int>()) {
      return at + "batch " + std::to_string(f.batch) + " instead of " + e.at("batch").dump();
    }
    if (f.memory_gb != e.at("memory_gb").get<double>()) return at + "memory differs";
    if (f.gpu_gb != e.at("gpu_gb").get<int>()) return at + "GPU memory differs";
    if (std::abs(f.cores - e.at("cores").get<double>()) > 1e-6) {
      return at + "cores " + std::to_string(f.cores) + " instead of " + e.at("cores").dump();
    }
    if (!relative_close(f.cost_per_request, e.at("cost_per_request").get<double>(), 0.005))
      return at + "cost differs";
  }
  if (!relative_close(plan.cost_per_request, expected.at("cost_per_request").get<double>(), 0.005))
    return "plan cost differs";
  return "";
}

struct Outcome {
  int matched = 0;
  int total = 0;
  std::vector<std::string> misses;
};

Outcome compare_all(const PlannerOptions& o) {
  Outcome out;
  const auto& cs = cases();
  const auto& ps = reference_plans();
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const auto& c = cs[i];
    const auto& expected = ps.at(i);
    EXPECT_EQ(c.at("id"), expected.at("id"));
    std::vector<Application> apps;
    for (const auto& a : c.at("applications"))
      apps.push_back({a.at("name"), a.at("slo"), a.at("rate")});
    const auto m = testing::model(c.at("model").get<std::string>());
    std::string diff;
    try {
      diff = difference(plan_harmonybatch(m, apps, o), expected);
    } catch (const std::exception& e) {
      diff = std::string("dcsim failed: ") + e.what();
    }
    ++out.total;
    if (diff.empty()) {
      ++out.matched;
    } else {
      out.misses.push_back(c.at("id").get<std::string>() + ": " + diff);
    }
  }
  return out;
}

TEST(HarmonyBatchReferenceDiff, ReferenceCodeSwitchesReproduceEveryPlan) {
  const auto out = compare_all(PlannerOptions::reference_code());
  std::cout << "reference-code switches: " << out.matched << " / " << out.total << " match\n";
  for (std::size_t k = 0; k < std::min<std::size_t>(out.misses.size(), 20); ++k)
    ADD_FAILURE() << out.misses[k];
  EXPECT_EQ(out.matched, out.total);
  EXPECT_GE(out.total, 600);
}

// Each departure from the code, switched back to the paper's (or the platform's) behaviour on
// its own, must change some plans of the set (otherwise the set does not exercise it). The
// counts are the "per switch setting" numbers of docs/reproduction/harmonybatch.md.
TEST(HarmonyBatchReferenceDiff, EachPaperSwitchChangesSomePlans) {
  struct Flip {
    const char* name;
    void (*apply)(PlannerOptions&);
  };
  const Flip flips[] = {
      {"fix_merge_ratio (paper weights)", [](PlannerOptions& o) { o.fix_merge_ratio = true; }},
      {"check_all_slos_on_gpu", [](PlannerOptions& o) { o.check_all_slos_on_gpu = true; }},
      {"cost-checked stage 1", [](PlannerOptions& o) { o.forced_stage1_merge = false; }},
      {"no knee-class stage", [](PlannerOptions& o) { o.knee_class_stage = false; }},
      {"cores on the 0.05 grid", [](PlannerOptions& o) { o.cpu_cores_on_grid = true; }},
      {"loose-SLO batches kept", [](PlannerOptions& o) { o.skip_loose_slo_batch = false; }},
      {"paper prices", [](PlannerOptions& o) { o.prices = PriceTable::paper(); }},
  };
  for (const auto& f : flips) {
    auto o = PlannerOptions::reference_code();
    f.apply(o);
    const auto out = compare_all(o);
    std::cout << f.name << ": " << out.matched << " / " << out.total << " match\n";
    if (std::string(f.name) != "loose-SLO batches kept") {
      EXPECT_LT(out.matched, out.total) << f.name;
    }
  }
  // The switches dcsim had before the code's stage 1, knee-class stage and continuous cores
  // were added (--prices code --no-fix-merge-ratio --largest-slo-only).
  auto before = PlannerOptions::reference_code();
  before.forced_stage1_merge = false;
  before.knee_class_stage = false;
  before.cpu_cores_on_grid = true;
  before.skip_loose_slo_batch = false;
  const auto old = compare_all(before);
  std::cout << "code prices and Q1, Q2 only: " << old.matched << " / " << old.total << " match\n";
  auto paper_code_prices = PlannerOptions{};
  paper_code_prices.prices = PriceTable::code();
  const auto pc = compare_all(paper_code_prices);
  std::cout << "paper algorithm, code prices: " << pc.matched << " / " << pc.total << " match\n";
  const auto paper = compare_all(PlannerOptions{});
  std::cout << "dcsim defaults (paper): " << paper.matched << " / " << paper.total << " match\n";
  EXPECT_LT(paper.matched, paper.total);
}

}  // namespace
}  // namespace sim::policy::harmonybatch
