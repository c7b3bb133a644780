#include "sim/sweep/experiment.hpp"

#include <gtest/gtest.h>

#include "sim/config/diagnostics.hpp"
#include "sim/sweep/plan.hpp"

namespace sim::sweep {
namespace {

using nlohmann::json;

Experiment parse(const std::string& text) {
  return parse_experiment(json::parse(text), "exp/grid.json");
}

/// The problems of an invalid experiment, one rendered line each.
std::string problems(const std::string& text) {
  try {
    parse(text);
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "";
}

const char* kGrid = R"({
  "scenario": "../base.json",
  "set": ["duration=10s"],
  "axes": [
    {"name": "load", "set": ["workload.0.rate", "workload.1.rate"], "values": ["100/s", "200/s", "300/s"]},
    {"name": "policy", "variants": [
      {"name": "fast", "set": {"platform.max_batch": 4}},
      {"name": "big", "set": ["platform.max_batch=16"], "scenario": "other.json"}]}
  ],
  "replications": 2, "seed": 7
})";

TEST(Experiment, ExpandsTheCartesianProductTimesTheSeeds) {
  const Plan plan = expand(parse(kGrid));
  // 3 loads x 2 policies = 6 combinations, x 2 seeds = 12 runs.
  ASSERT_EQ(plan.runs.size(), 12U);
  EXPECT_EQ(plan.combinations, 6U);
  EXPECT_EQ(plan.excluded, 0U);
  EXPECT_EQ(plan.axes, (std::vector<std::string>{"load", "policy"}));
  // The first axis varies slowest, the seeds fastest.
  EXPECT_EQ(plan.runs[0].name, "load=100_s,policy=fast,seed=7");
  EXPECT_EQ(plan.runs[1].name, "load=100_s,policy=fast,seed=8");
  EXPECT_EQ(plan.runs[2].name, "load=100_s,policy=big,seed=7");
  EXPECT_EQ(plan.runs[11].name, "load=300_s,policy=big,seed=8");
  EXPECT_EQ(plan.runs[11].labels, (std::vector<std::string>{"300/s", "big"}));
  EXPECT_EQ(plan.runs[11].combination, 5U);
  EXPECT_EQ(plan.runs[11].replication, 1U);
  for (std::size_t i = 0; i < plan.runs.size(); ++i)
    EXPECT_EQ(plan.runs[i].index, i);
}

// The plan is held in memory, so its size is limited before anything is built: 1e30
// combinations once ended in std::bad_alloc, 1e12 replications in an endless loop.
TEST(Experiment, PlansBeyondTheRunLimitAreRejectedBeforeBuilding) {
  EXPECT_NE(problems(R"({"scenario": "b.json", "replications": 1000000000000})")
                .find("exp/grid.json: /replications: 1000000000000 replications, more than the "
                      "100000 runs a sweep may plan"),
            std::string::npos);
  json many = json::parse(R"({"scenario": "b.json", "axes": []})");
  for (int a = 0; a < 3; ++a) {
    json values = json::array();
    for (int v = 0; v < 100; ++v)
      values.push_back(v);
    many["axes"].push_back(
        {{"name", "a" + std::to_string(a)}, {"set", "seed"}, {"values", values}});
  }
  try {
    expand(parse(many.dump()));
    ADD_FAILURE() << "1e6 runs were planned";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "exp/grid.json: /axes: 1e+06 runs (combinations x seeds, before filters), more than "
              "the 100000 a sweep may plan; split the experiment");
  }
  many["axes"].erase(2);
  EXPECT_EQ(expand(parse(many.dump())).runs.size(), 10000u);
}

TEST(Experiment, OverridesComeInOrderBaseAxesSeedName) {
  const Plan plan = expand(parse(kGrid));
  const PlannedRun& r = plan.runs[3];  // load=100/s, policy=big, seed 8
  std::vector<std::string> texts;
  for (const auto& o : r.overrides)
    texts.push_back(o.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"duration=10s", R"(workload.0.rate="100/s")",
                                             R"(workload.1.rate="100/s")", "platform.max_batch=16",
                                             "seed=8", R"(name="load=100_s,policy=big,seed=8")"}));
  EXPECT_EQ(r.overrides[1].value, json("100/s"));
  EXPECT_EQ(r.overrides[3].value, json(16));
  // A variant's scenario replaces the base one; paths are relative to the experiment file.
  EXPECT_EQ(r.scenario, std::filesystem::path("exp/other.json"));
  EXPECT_EQ(plan.runs[0].scenario, std::filesystem::path("exp/../base.json"));
}

TEST(Experiment, FinalOverridesComeAfterTheAxes) {
  Experiment e = parse(kGrid);
  e.final_overrides.push_back(scenario::parse_override("platform.max_batch=2"));
  const Plan plan = expand(e);
  const auto& o = plan.runs[3].overrides;
  ASSERT_EQ(o.size(), 7U);
  EXPECT_EQ(o[3].text, "platform.max_batch=16");
  EXPECT_EQ(o[4].text, "platform.max_batch=2");
  EXPECT_EQ(o[5].text, "seed=8");
}

TEST(Experiment, ExcludeDropsMatchingCombinations) {
  json doc = json::parse(kGrid);
  // Drops load 200/s and 300/s with "big": 2 of the 6 combinations.
  doc["exclude"] = json::parse(R"([{"load": ["200/s", "300/s"], "policy": "big"}])");
  const Plan plan = expand(parse_experiment(doc, "exp/grid.json"));
  EXPECT_EQ(plan.combinations, 4U);
  EXPECT_EQ(plan.excluded, 2U);
  ASSERT_EQ(plan.runs.size(), 8U);
  for (const auto& r : plan.runs) {
    EXPECT_FALSE(r.labels[1] == "big" && r.labels[0] != "100/s") << r.name;
  }
  // Combination indices stay consecutive over the kept ones.
  EXPECT_EQ(plan.runs.back().combination, 3U);
}

TEST(Experiment, OnlyKeepsCombinationsMatchingAnEntry) {
  json doc = json::parse(kGrid);
  doc["only"] = json::parse(R"([{"load": "100/s"}, {"policy": "fast", "load": "300/s"}])");
  const Plan plan = expand(parse_experiment(doc, "exp/grid.json"));
  // load=100/s with both policies, and 300/s with fast: 3 combinations.
  EXPECT_EQ(plan.combinations, 3U);
  EXPECT_EQ(plan.excluded, 3U);
  EXPECT_EQ(plan.runs[4].name, "load=300_s,policy=fast,seed=7");
}

TEST(Experiment, WithoutAxesItIsReplicationsOfTheBase) {
  const Plan plan = expand(parse(R"({"scenario": "b.json", "seeds": [3, 1]})"));
  ASSERT_EQ(plan.runs.size(), 2U);
  EXPECT_EQ(plan.runs[0].name, "base,seed=3");
  EXPECT_EQ(plan.runs[1].seed, 1U);
}

TEST(Experiment, DefaultsToOneReplicationWithSeedOneAndTheFileName) {
  const auto e = parse(R"({"scenario": "b.json"})");
  EXPECT_EQ(e.name, "grid");
  EXPECT_EQ(e.seeds, (std::vector<std::uint64_t>{1}));
}

TEST(Experiment, ValueLabelsDefaultToTheValueAndMayBeGiven) {
  const auto e = parse(R"({"scenario": "b.json", "axes": [
    {"name": "batch", "set": "platform.max_batch", "values": [1, 8]},
    {"name": "slo", "set": "workload.0.slo", "values": ["50ms", "100ms"], "labels": ["tight", "loose"]}]})");
  EXPECT_EQ(e.axes[0].variants[1].label, "8");
  EXPECT_EQ(e.axes[1].variants[0].label, "tight");
}

TEST(Experiment, ReportsEveryProblemWithItsPointer) {
  const std::string p = problems(R"({
    "scenari": "b.json",
    "axes": [{"name": "load", "set": "x", "values": []},
             {"name": "load", "variants": [{"set": 3}]},
             {"name": "both", "set": "x", "variants": []}],
    "replications": 0,
    "exclude": [{"lod": "1"}]
  })");
  EXPECT_NE(p.find("/scenari: unknown key \"scenari\""), std::string::npos) << p;
  EXPECT_NE(p.find("did you mean \"scenario\"?"), std::string::npos) << p;
  EXPECT_NE(p.find("/scenario"), std::string::npos) << p;
  EXPECT_NE(p.find("/axes/0/values"), std::string::npos) << p;
  EXPECT_NE(p.find("/axes/1/name"), std::string::npos) << p;
  EXPECT_NE(p.find("/axes/1/variants/0/name"), std::string::npos) << p;
  EXPECT_NE(p.find("/axes/1/variants/0/set"), std::string::npos) << p;
  EXPECT_NE(p.find("/axes/2: expected either"), std::string::npos) << p;
  EXPECT_NE(p.find("/replications"), std::string::npos) << p;
  EXPECT_NE(p.find("/exclude/0/lod: no axis is named \"lod\""), std::string::npos) << p;
  EXPECT_NE(p.find("exp/grid.json"), std::string::npos) << p;
}

TEST(Experiment, RejectsFilterLabelsThatNoAxisHas) {
  const std::string p = problems(R"({"scenario": "b.json",
    "axes": [{"name": "load", "set": "x", "values": ["100/s"]}],
    "exclude": [{"load": "10/s"}]})");
  EXPECT_NE(p.find("/exclude/0/load: axis \"load\" has no value \"10/s\""), std::string::npos) << p;
}

TEST(Experiment, RejectsLabelsThatCollideAsDirectoryNames) {
  const std::string p = problems(R"({"scenario": "b.json",
    "axes": [{"name": "load", "set": "x", "values": ["1/s", "1 s"]}]})");
  EXPECT_NE(p.find("share the directory name \"1_s\""), std::string::npos) << p;
}

TEST(Experiment, RejectsTwoVariantsReplacingTheScenarioInOneCombination) {
  const auto e = parse(R"({"scenario": "b.json", "axes": [
    {"name": "a", "variants": [{"name": "x", "scenario": "x.json"}]},
    {"name": "b", "variants": [{"name": "y", "scenario": "y.json"}]}]})");
  EXPECT_THROW(expand(e), config::ConfigError);
}

TEST(Experiment, ScenarioPathsTakeTheAxisLabels) {
  const Plan plan = expand(parse(R"({"scenario": "p/{model}-slo/{scheme}.json", "axes": [
    {"name": "model", "variants": [{"name": "resnet-50"}, {"name": "dpn-92"}]},
    {"name": "scheme", "variants": [{"name": "protean"}, {"name": "molecule"}]}]})"));
  ASSERT_EQ(plan.runs.size(), 4U);
  EXPECT_EQ(plan.runs[0].scenario, std::filesystem::path("exp/p/resnet-50-slo/protean.json"));
  EXPECT_EQ(plan.runs[3].scenario, std::filesystem::path("exp/p/dpn-92-slo/molecule.json"));
  const std::string p = problems(R"({"scenario": "p/{modle}.json",
    "axes": [{"name": "model", "variants": [{"name": "a"}]}]})");
  EXPECT_NE(p.find("/scenario: placeholder {modle} names no axis (did you mean \"{model}\"?)"),
            std::string::npos)
      << p;
}

TEST(Experiment, DirectorySafeReplacesSeparators) {
  EXPECT_EQ(directory_safe("100/s"), "100_s");
  EXPECT_EQ(directory_safe("a b,c=d"), "a_b_c_d");
  EXPECT_EQ(directory_safe("x-1.5_y"), "x-1.5_y");
}

}  // namespace
}  // namespace sim::sweep
