#include "sim/config/json_text.hpp"

#include <gtest/gtest.h>

#include <string>

#include "sim/config/diagnostics.hpp"

namespace sim::config {
namespace {

using nlohmann::json;

std::string error_of(std::string_view text) {
  try {
    parse_json_text(text, "f.json");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<accepted>";
}

TEST(JsonText, ParsesWhatNlohmannParses) {
  const std::string text =
      R"({"a": [1, -2, 3.5, true, null, "x\u0000y"], "b": {"c": {}, "d": []}, "e": 18446744073709551615})";
  EXPECT_EQ(parse_json_text(text, "f.json"), json::parse(text));
  EXPECT_EQ(parse_json_text("  7 ", "f.json"), json(7));
}

TEST(JsonText, OrderedParseKeepsTheKeyOrderOfTheFile) {
  // The model catalog lists MIG profiles largest first; sorting the keys would reorder them.
  const auto doc =
      parse_ordered_json_text(R"({"7g": 1, "3g": {"z": 1, "a": 2}, "1g": 3})", "f.json");
  std::string keys;
  for (const auto& [k, v] : doc.items())
    keys += k + " ";
  EXPECT_EQ(keys, "7g 3g 1g ");
  EXPECT_EQ(doc["3g"].begin().key(), "z");
  EXPECT_THROW(parse_ordered_json_text(R"({"a": 1, "a": 2})", "f.json"), ConfigError);
}

TEST(JsonText, SyntaxErrorsNameTheLineAndColumn) {
  EXPECT_EQ(error_of("{\"a\": 1,\n \"b\": ,}"),
            "f.json: line 2, column 7: invalid JSON: syntax error while parsing value - "
            "unexpected ','; expected '[', '{', or a literal");
  // nlohmann reports this one as out_of_range.406 with neither file nor line.
  EXPECT_EQ(error_of("{\"rate\":\n  1e400}"),
            "f.json: line 2, column 7: invalid JSON: number overflow parsing '1e400'");
}

TEST(JsonText, TextAfterTheDocumentIsRejected) {
  EXPECT_NE(error_of("{} {}").find("f.json: line 1, column 4: invalid JSON"), std::string::npos);
  // A NUL byte used to end the input silently, so the garbage after it was never read.
  EXPECT_EQ(error_of(std::string_view("{}\0garbage", 10)),
            "f.json: line 1, column 3: invalid JSON: a NUL byte; a JSON file is text and may "
            "contain none");
}

TEST(JsonText, DuplicateKeysAreRejectedWithTheirPath) {
  EXPECT_EQ(error_of(R"({"models": {"resnet-50": {"x": 1}, "resnet-50": {"x": 2}}})"),
            "f.json: /models: the key \"resnet-50\" appears twice in this object; each key may "
            "appear once");
  EXPECT_EQ(error_of(R"([{"a": 1}, {"b": 1, "b": 2}])"),
            "f.json: /1: the key \"b\" appears twice in this object; each key may appear once");
  // The same key in different objects is fine.
  EXPECT_NO_THROW(parse_json_text(R"({"a": {"x": 1}, "b": {"x": 1}})", "f.json"));
}

TEST(JsonText, NestingIsLimited) {
  const auto nested = [](std::size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
  };
  EXPECT_NO_THROW(parse_json_text(nested(kMaxJsonDepth), "f.json"));
  const std::string message = error_of(nested(kMaxJsonDepth + 1));
  EXPECT_NE(message.find("f.json: /0/0/0/0/0/0/0/0/0/0/0/0/... (256 levels): arrays and objects "
                         "are nested more than 256 levels deep here; dcsim accepts at most 256 "
                         "levels"),
            std::string::npos)
      << message;
  // The input that used to crash every reader: ~50,000 levels. It must fail fast and cleanly.
  EXPECT_NE(error_of(nested(50'000)).find("nested more than 256 levels"), std::string::npos);
  EXPECT_NE(error_of(R"({"a": )" + nested(300) + "}").find("f.json: /a/0/0/"), std::string::npos);
}

TEST(JsonText, LineAndColumnCountFromOne) {
  EXPECT_EQ(line_and_column("ab\ncd", 0), (std::pair<std::size_t, std::size_t>{1, 1}));
  EXPECT_EQ(line_and_column("ab\ncd", 4), (std::pair<std::size_t, std::size_t>{2, 2}));
}

TEST(JsonText, FilesAreReadWithLimits) {
  EXPECT_NE(std::string([] {
              try {
                read_json_document("/nonexistent/x.json");
              } catch (const ConfigError& e) {
                return std::string(e.what());
              }
              return std::string();
            }())
                .find("/nonexistent/x.json: cannot read: no such file"),
            std::string::npos);
  try {
    read_json_document("/");
    FAIL() << "a directory was read";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("this is a directory"), std::string::npos) << e.what();
  }
  // /dev/zero never ends; the reader stops past the limit instead of reading gigabytes.
  try {
    read_json_document("/dev/zero", 1 << 20);
    FAIL() << "/dev/zero was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("more than the 1 MiB"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sim::config
