#include "sim/scenario/overrides.hpp"

#include <gtest/gtest.h>

#include "sim/config/diagnostics.hpp"

namespace sim::scenario {
namespace {

using nlohmann::json;

TEST(Overrides, ValuesAreJsonWhenTheyParseAndStringsOtherwise) {
  EXPECT_EQ(parse_override("seed=7").value, json(7));
  EXPECT_EQ(parse_override("duration=30s").value, json("30s"));
  EXPECT_EQ(parse_override("output.requests=\"csv\"").value, json("csv"));
  EXPECT_EQ(parse_override("a.b=[1,2]").value, json::array({1, 2}));
  EXPECT_EQ(parse_override("platform.gpus=4").path, (std::vector<std::string>{"platform", "gpus"}));
}

TEST(Overrides, AppliesIntoObjectsAndLists) {
  json doc = {{"workload", json::array({{{"rate", "1/s"}}, {{"rate", "2/s"}}})}};
  apply_override(doc, parse_override("workload.1.rate=80/s"));
  apply_override(doc, parse_override("platform.gpus=4"));
  EXPECT_EQ(doc["workload"][1]["rate"], "80/s");
  EXPECT_EQ(doc["workload"][0]["rate"], "1/s");
  EXPECT_EQ(doc["platform"]["gpus"], 4);
}

TEST(Overrides, TextThatIsNotUtf8IsRejectedAndShownEscaped) {
  // Found by fuzz_scenario: "--set platform.share=\xFC.25" reached the schema, whose message
  // quoting the value threw nlohmann's type_error 316 (a crash in the fuzz target, an
  // unlocated library message from dcsim); "name=a\xFC" was even accepted by `validate`.
  for (const std::string text : {"seed=\xFC", "name=a\xFC", "pl\xC3tform.x=1"}) {
    try {
      parse_override(text);
      FAIL() << "accepted";
    } catch (const config::ConfigError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("expected UTF-8 text"), std::string::npos) << message;
      EXPECT_EQ(message.find(text), std::string::npos) << "the raw bytes are quoted";
    }
  }
  try {
    parse_override("seed=\xFC");
  } catch (const config::ConfigError& e) {
    EXPECT_STREQ(e.what(), "--set seed=\\xFC: expected UTF-8 text, found the byte 0xFC at byte 6");
  }
  EXPECT_EQ(parse_override("name=caf\xC3\xA9").value, json("caf\xC3\xA9"));  // UTF-8 is fine
}

TEST(Overrides, MalformedOverridesNameThemselves) {
  try {
    parse_override("seed");
    FAIL();
  } catch (const config::ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "--set seed: expected KEY.PATH=VALUE, for example duration=30s or "
                 "workload.0.rate=80/s");
  }
  json doc = {{"workload", json::array({json::object()})}, {"seed", 1}};
  try {
    apply_override(doc, parse_override("workload.3.rate=1/s"));
    FAIL();
  } catch (const config::ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "--set workload.3.rate=1/s: /workload/3: index 3 is past the end of a list of 1");
  }
  EXPECT_THROW(apply_override(doc, parse_override("seed.x=1")), config::ConfigError);
  EXPECT_THROW(parse_override("a..b=1"), config::ConfigError);
}

}  // namespace
}  // namespace sim::scenario
