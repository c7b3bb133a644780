#include "sim/config/bounded_line.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace sim::config {
namespace {

TEST(BoundedLine, ReadsLinesWithoutTheirNewline) {
  std::istringstream in("a,b\n\nlast");
  std::string line;
  ASSERT_TRUE(read_bounded_line(in, line, 10));
  EXPECT_EQ(line, "a,b");
  ASSERT_TRUE(read_bounded_line(in, line, 10));
  EXPECT_EQ(line, "");
  ASSERT_TRUE(read_bounded_line(in, line, 10));  // a last line without '\n' still counts
  EXPECT_EQ(line, "last");
  EXPECT_FALSE(read_bounded_line(in, line, 10));
  EXPECT_EQ(line, "");
}

TEST(BoundedLine, StopsOneCharacterPastTheLimit) {
  // An endless line (the shape of /dev/zero): only limit + 1 characters are taken.
  std::istringstream in(std::string(1000, 'x') + "\nnext\n");
  std::string line;
  ASSERT_TRUE(read_bounded_line(in, line, 5));
  EXPECT_EQ(line.size(), 6U);
  // The stream is left just after the sixth character, not at the end of the long line.
  EXPECT_EQ(in.get(), 'x');
}

TEST(BoundedLine, ALineOfExactlyTheLimitIsAccepted) {
  std::istringstream in("12345\n");
  std::string line;
  ASSERT_TRUE(read_bounded_line(in, line, 5));
  EXPECT_EQ(line, "12345");
}

}  // namespace
}  // namespace sim::config
