#include "sim/config/utf8.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sim::config {
namespace {

constexpr auto npos = std::string_view::npos;

TEST(Utf8, AcceptsAsciiAndWellFormedSequences) {
  EXPECT_EQ(first_invalid_utf8(""), npos);
  EXPECT_EQ(first_invalid_utf8("resnet-50,0.1"), npos);
  EXPECT_EQ(first_invalid_utf8("\xC2\xA7 5.1"), npos);      // U+00A7 section sign
  EXPECT_EQ(first_invalid_utf8("\xE2\x80\x93"), npos);      // U+2013 en dash
  EXPECT_EQ(first_invalid_utf8("\xF0\x9F\x98\x80"), npos);  // U+1F600
  EXPECT_EQ(first_invalid_utf8("\xF4\x8F\xBF\xBF"), npos);  // U+10FFFF, the last
}

TEST(Utf8, FindsTheFirstBadByte) {
  EXPECT_EQ(first_invalid_utf8("a\x91"), 1U);             // a lone continuation
  EXPECT_EQ(first_invalid_utf8("ab\xC2"), 2U);            // cut short
  EXPECT_EQ(first_invalid_utf8("\xC0\xAF"), 0U);          // overlong '/'
  EXPECT_EQ(first_invalid_utf8("\xE0\x80\xAF"), 0U);      // overlong, 3 bytes
  EXPECT_EQ(first_invalid_utf8("x\xED\xA0\x80"), 1U);     // a UTF-16 surrogate
  EXPECT_EQ(first_invalid_utf8("\xF4\x90\x80\x80"), 0U);  // above U+10FFFF
  EXPECT_EQ(first_invalid_utf8("\xE2\x28\xA1"), 0U);      // bad second byte
  EXPECT_EQ(first_invalid_utf8("\xC2\xA7\xFF"), 2U);      // after a good one
}

}  // namespace
}  // namespace sim::config
