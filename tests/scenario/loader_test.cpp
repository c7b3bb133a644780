#include "sim/scenario/scenario_loader.hpp"

#include <gtest/gtest.h>

#include "sim/config/diagnostics.hpp"
#include "support/test_files.hpp"

namespace sim::scenario {
namespace {

using nlohmann::json;
using test_support::TempDir;

const char* kValid = R"({
  "seed": 3,
  "duration": "10s",
  "workload": [{"type": "poisson", "rate": "5/s", "function": "f"}]
})";

class Loader : public ::testing::Test {
 protected:
  Loader() { register_builtin_components(registry_); }
  Registry registry_;
  TempDir dir_{"loader"};

  std::string error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
    const auto file = dir_.write("s.json", text);
    LoadOptions options;
    for (const auto& s : sets)
      options.overrides.push_back(parse_override(s));
    try {
      load_scenario(file, registry_, options);
    } catch (const config::ConfigError& e) {
      // Drop the temporary directory from the message so the expectations read plainly.
      std::string m = e.what();
      const std::string prefix = dir_.path().string() + "/";
      for (auto pos = m.find(prefix); pos != std::string::npos; pos = m.find(prefix)) {
        m.erase(pos, prefix.size());
      }
      return m;
    }
    return "(no error)";
  }
};

TEST_F(Loader, ValidScenarioIsResolvedWithDefaults) {
  const auto file = dir_.write("s.json", kValid);
  const auto loaded = load_scenario(file, registry_);
  EXPECT_EQ(loaded.resolved["name"], "s") << "the name defaults to the file's stem";
  EXPECT_EQ(loaded.resolved["seed"], 3);
  EXPECT_EQ(loaded.resolved["warmup"], "0s");
  EXPECT_EQ(loaded.resolved["output"]["requests"], "hdf5");
  EXPECT_EQ(loaded.resolved["platform"]["type"], "fifo-gpu");
  EXPECT_EQ(loaded.resolved["platform"]["gpus"], 1);
  // The resolved document is a fixed point: resolving it again changes nothing.
  EXPECT_EQ(resolve_document(loaded.resolved, "again", registry_), loaded.resolved);
}

// A table of bad inputs, each with the message it must produce.
TEST_F(Loader, BadScenariosProduceExactMessages) {
  struct Case {
    std::string text;
    std::vector<std::string> sets;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"{\"seed\": 1,\n \"duration\": \"10s\",,\n}",
       {},
       "s.json: line 2, column 20: invalid JSON: syntax error while parsing object key - "
       "unexpected ','; expected string literal"},
      {R"({"duration": "10s", "workload": [{"type": "poisson", "rate": "5/s"}], "sede": 2})",
       {},
       "s.json: /sede: unknown key in scenario (did you mean \"seed\"?)"},
      {R"({"workload": [{"type": "poisson", "rate": "5/s"}]})",
       {},
       "s.json: /duration: missing required key \"duration\" (simulated time to run; arrivals "
       "stop there and the run ends there)"},
      {R"({"duration": "10s", "workload": [{"type": "poison", "rate": "5/s"}]})",
       {},
       "s.json: /workload/0/type: unknown workload component \"poison\""},
      {R"({"duration": "10s", "workload": []})",
       {},
       "s.json: /workload: expected at least 1 entries, found 0"},
      {kValid,
       {"platform.gpus=two"},
       "--set platform.gpus=two: /platform/gpus: expected an integer, found \"two\""},
      {kValid,
       {"duration=10"},
       "--set duration=10: /duration: expected a duration with a unit such as \"2s\", "
       "\"500ms\", found the bare number 10 (write \"10s\" if s is meant)"},
      {R"({"preset": "nonexistent", "duration": "10s"})",
       {},
       "s.json: /preset: no preset \"nonexistent\""},
      {R"({"include": "missing.json", "duration": "10s"})",
       {},
       "s.json: /include: included file \"missing.json\" does not exist"},
      {"[1, 2]", {}, "s.json: /: expected a JSON object, found array [1,2]"},
  };
  for (const auto& c : cases) {
    const std::string message = error_of(c.text, c.sets);
    EXPECT_EQ(message.substr(0, c.expected.size()), c.expected) << "input: " << c.text;
  }
}

// A scenario received from someone else must never make a run write outside --out: the run
// name is one folder name.
TEST_F(Loader, RunNamesAreOneFolderName) {
  for (const std::string bad : {"../../x", "/tmp/x", "a/b", "..", ".", "", "a\\b"}) {
    const std::string message = error_of(kValid, {"name=" + json(bad).dump()});
    EXPECT_NE(message.find("/name: expected "), std::string::npos) << bad << ": " << message;
    EXPECT_NE(message.find("folder name"), std::string::npos) << bad << ": " << message;
  }
  const auto file = dir_.write("named.json", R"({"name": "../escape", "duration": "1s",
      "workload": [{"type": "poisson", "rate": "5/s"}]})");
  EXPECT_THROW(load_scenario(file, registry_), config::ConfigError);
  EXPECT_EQ(error_of(kValid, {"name=run-2.b_c"}), "(no error)") << "an ordinary name is accepted";
}

TEST_F(Loader, DuplicateKeysAndDeepNestingAreRejected) {
  EXPECT_EQ(error_of(R"({"seed": 1, "seed": 2, "duration": "1s"})"),
            "s.json: /: the key \"seed\" appears twice in this object; each key may appear once");
  const std::string deep = "{\"a\": " + std::string(50000, '[') + std::string(50000, ']') + "}";
  EXPECT_NE(error_of(deep).find("s.json: /a/0/0/"), std::string::npos);
  // --set values that are JSON go through the same reader.
  EXPECT_THROW(parse_override("platform=" + std::string(300, '[') + std::string(300, ']')),
               config::ConfigError);
}

TEST_F(Loader, PresetsAndIncludesMergeBeneathTheFile) {
  dir_.write("presets/small.json",
             R"({"platform": {"type": "fifo-gpu", "gpus": 3, "max_batch": 2}, "seed": 9})");
  dir_.write("common.json", R"({"platform": {"max_batch": 4}, "warmup": "1s"})");
  const auto file = dir_.write(
      "s.json", R"({"preset": "small", "include": ["common.json"], "duration": "10s", "seed": 5,
                   "workload": [{"type": "poisson", "rate": "5/s"}]})");
  LoadOptions options;
  options.overrides.push_back(parse_override("platform.gpus=7"));
  const auto loaded = load_scenario(file, registry_, options);
  EXPECT_EQ(loaded.resolved["platform"]["gpus"], 7) << "--set wins over the preset";
  EXPECT_EQ(loaded.resolved["platform"]["max_batch"], 4) << "include wins over preset";
  EXPECT_EQ(loaded.resolved["seed"], 5) << "the file wins over its preset";
  EXPECT_EQ(loaded.resolved["warmup"], "1s");
  EXPECT_FALSE(loaded.resolved.contains("preset"));
  EXPECT_FALSE(loaded.resolved.contains("include"));
}

TEST(Merge, AComponentOfAnotherTypeReplacesTheOneBeneath) {
  json base = {{"platform", {{"type", "a"}, {"x", 1}, {"y", 2}}}, {"seed", 1}};
  merge_into(base, json{{"platform", {{"type", "a"}, {"x", 5}}}});
  EXPECT_EQ(base["platform"], (json{{"type", "a"}, {"x", 5}, {"y", 2}})) << "same type: merged";
  merge_into(base, json{{"platform", {{"type", "b"}, {"z", 3}}}});
  EXPECT_EQ(base["platform"], (json{{"type", "b"}, {"z", 3}})) << "other type: replaced";
  merge_into(base, json{{"platform", {{"z", 4}}}});
  EXPECT_EQ(base["platform"], (json{{"type", "b"}, {"z", 4}})) << "no type: refines";
  EXPECT_EQ(base["seed"], 1);
}

TEST_F(Loader, IncludeCyclesAreReported) {
  dir_.write("a.json", R"({"include": "b.json"})");
  dir_.write("b.json", R"({"include": "a.json"})");
  const auto file = dir_.write("s.json", R"({"include": "a.json", "duration": "1s"})");
  try {
    load_scenario(file, registry_);
    FAIL();
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("a.json: includes or presets form a cycle"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(Loader, WarmupMustEndBeforeTheRun) {
  EXPECT_EQ(error_of(kValid, {"warmup=20s"}),
            "--set warmup=20s: /warmup: the warm-up (20s) must end before the run does (10s)");
}

TEST_F(Loader, MissingFileIsNamed) {
  try {
    load_scenario(dir_.path() / "nope.json", registry_);
    FAIL();
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("nope.json: cannot read: no such file"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace sim::scenario
