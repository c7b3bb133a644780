#include "sim/traces/text_reader.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "fixture.hpp"
#include "sim/traces/trace_error.hpp"
#include "sim/traces/trace_path.hpp"

namespace sim::traces {
namespace {

using testing::ScratchDir;

TEST(TextReader, ReadsLinesOfPlainAndGzipFilesAlike) {
  ScratchDir dir;
  const std::string content = "a,b\r\n1,2\n\nlast";
  for (const std::string& path : {dir.write("x.csv", content), dir.write_gz("x.csv.gz", content)}) {
    TextReader in(path);
    std::string line;
    std::vector<std::pair<std::size_t, std::string>> got;
    while (in.next_line(line))
      got.emplace_back(in.line_number(), line);
    const std::vector<std::pair<std::size_t, std::string>> expected = {
        {1, "a,b"}, {2, "1,2"}, {3, ""}, {4, "last"}};
    EXPECT_EQ(got, expected) << path;
  }
}

// A gzip file cut short (a broken download) has no trailer; zlib reads what is there and
// ends quietly, so without the check it passed for a shorter, valid trace.
TEST(TextReader, TruncatedGzipIsAnError) {
  ScratchDir dir;
  std::string content;
  for (int i = 0; i < 20000; ++i)
    content += std::to_string(i * 7919 % 10007) + "," + std::to_string(i) + "\n";
  const std::string whole = dir.write_gz("whole.csv.gz", content);
  std::ifstream in_file(whole, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in_file)),
                          std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 100u);
  const std::string cut = dir.write("cut.csv.gz", bytes.substr(0, bytes.size() / 2));
  TextReader reader(cut);
  std::string line;
  try {
    while (reader.next_line(line)) {
    }
    FAIL() << "a truncated gzip file was read to its end without an error";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("truncated gzip stream"), std::string::npos) << e.what();
  }
  // The whole file still reads to the end.
  TextReader full(whole);
  std::size_t lines = 0;
  while (full.next_line(line))
    ++lines;
  EXPECT_EQ(lines, 20000u);
}

TEST(TextReader, TokensKnowTheirLine) {
  ScratchDir dir;
  TextReader in(dir.write("t.txt", "  5 6\n\n7\t8 \n"));
  std::string tok;
  std::vector<std::pair<std::size_t, std::string>> got;
  while (in.next_token(tok))
    got.emplace_back(in.line_number(), tok);
  const std::vector<std::pair<std::size_t, std::string>> expected = {
      {1, "5"}, {1, "6"}, {3, "7"}, {3, "8"}};
  EXPECT_EQ(got, expected);
}

TEST(TextReader, MissingFileNamesIt) {
  try {
    TextReader in("/nonexistent/dir/trace.csv");
    FAIL() << "expected TraceError";
  } catch (const TraceError& e) {
    EXPECT_EQ(e.file(), "/nonexistent/dir/trace.csv");
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/trace.csv: cannot open"),
              std::string::npos);
  }
}

TEST(TextReader, FieldParsersAreStrict) {
  std::uint64_t c = 0;
  EXPECT_TRUE(parse_count("42", c));
  EXPECT_EQ(c, 42u);
  EXPECT_FALSE(parse_count("-1", c));
  EXPECT_FALSE(parse_count("1.5", c));
  EXPECT_FALSE(parse_count("", c));
  EXPECT_FALSE(parse_count("12x", c));
  double d = 0;
  EXPECT_TRUE(parse_real("57.154", d));
  EXPECT_DOUBLE_EQ(d, 57.154);
  EXPECT_FALSE(parse_real("nan", d));
  EXPECT_FALSE(parse_real("1e999", d));
  // 2010-05-01 is day 14730 since 1970-01-01 (40 years incl. 10 leap days = 14610, + 120 days
  // of Jan..Apr 2010): 14730 * 86400 + 3600.
  EXPECT_TRUE(parse_datetime("2010-05-01 01:00:00", d));
  EXPECT_DOUBLE_EQ(d, 14730.0 * 86400.0 + 3600.0);
  EXPECT_TRUE(parse_datetime("2010-05-01T01:00:00.5Z", d));
  EXPECT_DOUBLE_EQ(d, 14730.0 * 86400.0 + 3600.5);
  EXPECT_FALSE(parse_datetime("2010-13-01 00:00:00", d));
  EXPECT_FALSE(parse_datetime("2010-05-01", d));
  // Days beyond the month are errors (they used to roll over: 2010-02-30 became March 2).
  EXPECT_FALSE(parse_datetime("2010-02-30 00:00:00", d));
  EXPECT_FALSE(parse_datetime("2010-04-31 00:00:00", d));
  EXPECT_FALSE(parse_datetime("2011-02-29 00:00:00", d));
  EXPECT_TRUE(parse_datetime("2012-02-29 00:00:00", d)) << "a leap day";
  EXPECT_TRUE(parse_datetime("2000-02-29 00:00:00", d)) << "2000 is a leap year";
  EXPECT_FALSE(parse_datetime("1900-02-29 00:00:00", d)) << "1900 is not";
}

TEST(TracePath, SearchesDirectoriesInOrderThenFailsWithTheList) {
  ScratchDir dir;
  std::filesystem::create_directories(dir.path() / "a" / "twitter");
  std::filesystem::create_directories(dir.path() / "b" / "twitter");
  dir.write("b/twitter/t.txt", "1");
  dir.write("a/twitter/t.txt", "2");
  const std::vector<std::string> path = {dir.file("a"), dir.file("b")};
  EXPECT_EQ(find_trace_file("twitter/t.txt", path), dir.file("a") + "/twitter/t.txt");
  try {
    find_trace_file("twitter/missing.txt", path);
    FAIL();
  } catch (const TraceError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("twitter/missing.txt: trace file not found (searched " + dir.file("a") +
                       ", " + dir.file("b")),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("scripts/fetch-traces"), std::string::npos);
  }
}

TEST(TracePath, ADirectoryIsNamedAsSuchNotAsMissing) {
  ScratchDir dir;
  std::filesystem::create_directories(dir.path() / "d");
  try {
    find_trace_file(dir.file("d"), {});
    ADD_FAILURE() << "a directory was accepted as a trace";
  } catch (const TraceError& e) {
    EXPECT_EQ(std::string(e.what()), dir.file("d") + ": this is a directory, not a trace file");
  }
}

TEST(TracePath, DefaultPathEndsWithRepositoryRelativeDirectories) {
  const auto p = default_trace_search_path("/repo/main");
  ASSERT_GE(p.size(), 4u);
  EXPECT_EQ(p[p.size() - 4], "../shared/traces");
  EXPECT_EQ(p[p.size() - 3], "./traces");
  EXPECT_EQ(p[p.size() - 2], "/repo/shared/traces");
  EXPECT_EQ(p[p.size() - 1], "/repo/main/traces");
}

}  // namespace
}  // namespace sim::traces
