// APPS.json parsing (errors name the file and JSON path), plan JSON, generated scenarios.

#include <gtest/gtest.h>

#include <sstream>

#include "harmonybatch/baselines.hpp"
#include "harmonybatch/plan_io.hpp"
#include "sim/scenario/registry.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "test_models.hpp"

namespace sim::policy::harmonybatch {
namespace {

using nlohmann::json;

std::string error_of(const json& j) {
  try {
    (void)parse_application_set(j, "apps.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(HarmonyBatchPlanIo, ApplicationSetErrorsNameTheFileAndPath) {
  const json good = {{"model", "harmonybatch/vgg19"},
                     {"applications", {{{"name", "a"}, {"slo", "500ms"}, {"rate", "5/s"}}}}};
  const auto set = parse_application_set(good, "apps.json");
  EXPECT_DOUBLE_EQ(set.apps.at(0).slo_s, 0.5);
  EXPECT_DOUBLE_EQ(set.apps.at(0).rate, 5.0);
  json bad = good;
  bad["applications"][0]["sloo"] = 1;
  EXPECT_EQ(error_of(bad),
            "apps.json: /applications/0/sloo: unknown key (expected name, slo, "
            "rate, workload)");
  bad = good;
  bad["applications"][0]["rate"] = -1;
  EXPECT_EQ(error_of(bad),
            "apps.json: /applications/0/rate: expected a rate in [1e-12, 1e+08] req/s (the range "
            "a workload accepts), found -1");
  // A rate --scenario could not write as a valid workload (it once wrote 1e-22/s).
  bad["applications"][0]["rate"] = 1e-22;
  EXPECT_EQ(error_of(bad),
            "apps.json: /applications/0/rate: expected a rate in [1e-12, 1e+08] req/s (the range "
            "a workload accepts), found 1e-22");
  bad["applications"][0]["rate"] = 1e-12;
  EXPECT_EQ(error_of(bad), "");
  bad = good;
  bad["applications"].push_back(good["applications"][0]);
  EXPECT_EQ(error_of(bad), "apps.json: /applications/1/name: duplicate name \"a\"");
  bad = good;
  bad.erase("model");
  EXPECT_NE(error_of(bad).find("apps.json: /model"), std::string::npos);
}

TEST(HarmonyBatchPlanIo, PlanJsonAndGeneratedScenarioValidate) {
  const std::vector<Application> apps{{"app1", 0.5, 5}, {"app2", 0.8, 10}, {"app3", 1.0, 20}};
  PlannerOptions o;
  o.prices = PriceTable::code();
  const Plan p = plan_with("mbs+", testing::model("vgg19"), apps, o);
  const json j = plan_to_json(p, o);
  EXPECT_EQ(j["algorithm"], "mbs+");
  EXPECT_DOUBLE_EQ(j["cost_per_request"].get<double>(), p.cost_per_request);
  EXPECT_EQ(j["groups"].size(), p.groups.size());
  std::ostringstream table;
  print_plan_table(p, table);
  EXPECT_NE(table.str().find("predicted cost"), std::string::npos);
  // The scenario passes the loader's validation (schema of every component).
  const json doc = deployment_scenario(p, "mbs+", o, DeploymentOptions{});
  scenario::Registry registry;
  scenario::register_builtin_components(registry);
  const json resolved = scenario::resolve_document(doc, "generated.json", registry);
  EXPECT_EQ(resolved["platform"]["policies"]["planner"]["type"], "harmonybatch");
  EXPECT_EQ(resolved["platform"]["functions"][0]["queue_group"], "g0");
  EXPECT_EQ(resolved["platform"]["functions"][0]["name"], "g0.app1");
}

}  // namespace
}  // namespace sim::policy::harmonybatch
