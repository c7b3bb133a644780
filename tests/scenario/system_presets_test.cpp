// The Flashpoint and HarmonyBatch presets (scenarios/presets/flashpoint*.json,
// harmonybatch*.json) against the complete scenario files their generators write: every
// scenario, rewritten as a user would write it with the preset (the blocks the preset gives
// left out), must resolve to exactly the document the complete file resolves to. A preset that
// sets one policy parameter differently from its system's scenarios fails here, naming the file.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "sim/scenario/registry.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace sim::scenario {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kScenarios = fs::path(SIM_SOURCE_DIR) / "scenarios";

std::vector<fs::path> json_files(const fs::path& dir, bool recursive) {
  std::vector<fs::path> out;
  auto take = [&](const fs::directory_entry& e) {
    if (e.is_regular_file() && e.path().extension() == ".json") out.push_back(e.path());
  };
  if (recursive) {
    for (const auto& e : fs::recursive_directory_iterator(dir))
      take(e);
  } else {
    for (const auto& e : fs::directory_iterator(dir))
      take(e);
  }
  std::sort(out.begin(), out.end());  // directory order is not portable
  return out;
}

/// The system a generated Flashpoint scenario runs: its file name ends with "-<system>" or is
/// "<system>" (scenarios/flashpoint/generate.py). Longest names first, so "lc-mc-mp" is not
/// taken for "mp".
std::string flashpoint_system(const fs::path& file) {
  static const std::vector<std::string> kSystems{"lc-mc-mp", "gpu-faas", "lc-mc", "atoll",
                                                 "bl",       "mc",       "lc",    "mp"};
  const std::string stem = file.stem().string();
  for (const auto& s : kSystems) {
    if (stem == s || (stem.size() > s.size() && stem.ends_with("-" + s))) return s;
  }
  return "";
}

class SystemPresets : public ::testing::Test {
 protected:
  SystemPresets() {
    register_builtin_components(registry_);
    options_.preset_dirs.push_back(kScenarios / "presets");
  }

  /// Loads `file` as written and `rewritten` (labelled as `file`), and compares the results.
  void expect_same_resolution(const fs::path& file, const json& rewritten) {
    const json complete = load_scenario(file, registry_, options_).resolved;
    const json with_preset = load_scenario_document(rewritten, file, registry_, options_).resolved;
    EXPECT_EQ(with_preset, complete) << file << " rewritten with preset "
                                     << rewritten["preset"].dump() << " resolves differently";
    for (const auto& p : rewritten["preset"])
      ++uses_[p.get<std::string>()];
  }

  Registry registry_;
  LoadOptions options_;
  std::map<std::string, int> uses_;
};

TEST_F(SystemPresets, EveryFlashpointScenarioIsItsPresetPlusItsSetup) {
  const auto files = json_files(kScenarios / "flashpoint", true);
  ASSERT_GE(files.size(), 100u) << "scenarios/flashpoint/generate.py writes hundreds";
  for (const auto& file : files) {
    const std::string system = flashpoint_system(file);
    ASSERT_FALSE(system.empty()) << file << ": no system in the name";
    const std::string preset = system == "lc-mc-mp" ? "flashpoint" : "flashpoint-" + system;
    json doc = read_json_file(file);
    json& policies = doc["platform"]["policies"];
    for (const char* key :
         {"batcher", "dispatcher", "placement", "keep_alive", "cold_start_sourcing"})
      policies.erase(key);
    // The presets scale with ATL; a scenario with another autoscaler restates it whole.
    json atl{{"type", "atl"}};
    if (system == "mp" || system == "lc-mc-mp") atl["partitioning"] = true;
    if (policies["autoscaler"] == atl) policies.erase("autoscaler");
    doc["preset"] = preset;
    expect_same_resolution(file, doc);
  }
  for (const char* p :
       {"flashpoint", "flashpoint-bl", "flashpoint-mc", "flashpoint-lc", "flashpoint-lc-mc",
        "flashpoint-mp", "flashpoint-atoll", "flashpoint-gpu-faas"})
    EXPECT_GT(uses_[p], 0) << p << " is checked against no scenario";
}

TEST_F(SystemPresets, EveryHarmonyBatchDeploymentIsItsPresetPlusItsPlan) {
  auto files = json_files(kScenarios / "harmonybatch", false);
  const auto ci = json_files(kScenarios / "harmonybatch" / "ci", false);
  files.insert(files.end(), ci.begin(), ci.end());
  ASSERT_GE(files.size(), 30u);
  const std::map<std::string, std::string> kPresetOf{{"harmonybatch", "harmonybatch"},
                                                     {"batch", "harmonybatch-batch"},
                                                     {"mbs+", "harmonybatch-mbs-plus"}};
  // The planner options dcsim plan writes out although they are the schema's defaults; a user
  // leaves them out.
  const json kDefaults{{"fix_merge_ratio", true},      {"check_all_slos_on_gpu", true},
                       {"forced_stage1_merge", false}, {"knee_class_stage", false},
                       {"cpu_cores_on_grid", true},    {"skip_loose_slo_batch", false},
                       {"mbs_search", "bayesian"},     {"mbs_seed", 1}};
  for (const auto& file : files) {
    json doc = read_json_file(file);
    json& platform = doc["platform"];
    json& planner = platform["policies"]["planner"];
    json presets = json::array({kPresetOf.at(planner.at("algorithm").get<std::string>())});
    if (planner.at("prices") == "code") presets.push_back("harmonybatch-code-prices");
    for (const auto& [key, value] : kDefaults.items()) {
      if (planner.contains(key) && planner[key] == value) planner.erase(key);
    }
    for (const char* key : {"type", "algorithm", "prices"})
      planner.erase(key);
    platform["policies"].erase("autoscaler");
    platform["policies"].erase("keep_alive");
    platform.erase("cpu_latency");
    platform.erase("time_slice_mode");
    platform["billing"] = json{{"from", platform["billing"].at("from")}};  // the run's warm-up
    doc["preset"] = presets;
    expect_same_resolution(file, doc);
  }
  for (const char* p :
       {"harmonybatch", "harmonybatch-batch", "harmonybatch-mbs-plus", "harmonybatch-code-prices"})
    EXPECT_GT(uses_[p], 0) << p << " is checked against no scenario";
}

// The comparisons above can fail: the same rewritten scenario without its preset resolves to
// the platform's defaults, not to the file.
TEST_F(SystemPresets, WithoutThePresetTheRewrittenScenarioDiffers) {
  const fs::path file = kScenarios / "flashpoint" / "ci" / "atl-lc-mc-mp.json";
  json doc = read_json_file(file);
  json& policies = doc["platform"]["policies"];
  for (const char* key :
       {"batcher", "dispatcher", "autoscaler", "placement", "keep_alive", "cold_start_sourcing"})
    policies.erase(key);
  const json complete = load_scenario(file, registry_, options_).resolved;
  const json bare = load_scenario_document(doc, file, registry_, options_).resolved;
  EXPECT_NE(bare["platform"]["policies"], complete["platform"]["policies"]);
  doc["preset"] = "flashpoint";
  EXPECT_EQ(load_scenario_document(doc, file, registry_, options_).resolved, complete);
}

// Every preset is a partial scenario with a description (what `dcsim list` shows) and the
// platform it configures.
TEST(PresetFiles, EachHasADescriptionAndAPlatform) {
  const auto files = json_files(kScenarios / "presets", false);
  ASSERT_GE(files.size(), 29u);
  for (const auto& file : files) {
    const json doc = read_json_file(file);
    EXPECT_TRUE(doc.contains("description") && doc["description"].is_string()) << file;
    EXPECT_TRUE(doc.contains("platform") && doc["platform"].is_object()) << file;
  }
}

}  // namespace
}  // namespace sim::scenario
