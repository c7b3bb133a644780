// Expressions over a run summary: precedence, paths, quantities, mean/sum over members, and
// the errors (hand-computed values).

#include <gtest/gtest.h>

#include "sim/reproduce/expression.hpp"

namespace sim::reproduce {
namespace {

using nlohmann::json;

const json kSummary = {
    {"duration_s", 10.0},
    {"throughput_rps", 50.0},
    {"operator_instances", {{"cpu_thread_seconds", 200.0}, {"gpu_share_seconds", 3.0}}},
    {"per_function",
     {{"ssd-1", {{"cold", 2.0}, {"requests", 100.0}}},
      {"resnet-50", {{"cold", 1.0}, {"requests", 400.0}}}}},
    {"empty", json::object()},
    {"label", "x"}};

double value(const std::string& text, const Expression::Quantities& q = {}) {
  std::string reason;
  const auto v = Expression::parse(text, q).evaluate(kSummary, reason);
  EXPECT_TRUE(v.has_value()) << text << ": " << reason;
  return v.value_or(-1.0);
}

std::string failure(const std::string& text) {
  std::string reason;
  const auto v = Expression::parse(text).evaluate(kSummary, reason);
  EXPECT_FALSE(v.has_value()) << text;
  return reason;
}

TEST(Expression, APathIsItsValue) {
  EXPECT_DOUBLE_EQ(value("throughput_rps"), 50.0);
  EXPECT_DOUBLE_EQ(value("operator_instances.gpu_share_seconds"), 3.0);
  EXPECT_DOUBLE_EQ(value("[/operator_instances/cpu_thread_seconds]"), 200.0);
  EXPECT_DOUBLE_EQ(value("[per_function.ssd-1.cold]"), 2.0);
}

TEST(Expression, PrecedenceAndParentheses) {
  // 2 + 3 * 4 = 14; (2 + 3) * 4 = 20; 10 - 4 - 3 = 3 (left to right); 8 / 4 / 2 = 1.
  EXPECT_DOUBLE_EQ(value("2 + 3 * 4"), 14.0);
  EXPECT_DOUBLE_EQ(value("(2 + 3) * 4"), 20.0);
  EXPECT_DOUBLE_EQ(value("10 - 4 - 3"), 3.0);
  EXPECT_DOUBLE_EQ(value("8 / 4 / 2"), 1.0);
  EXPECT_DOUBLE_EQ(value("-2 * -3"), 6.0);
  EXPECT_DOUBLE_EQ(value("1e-3 * 2000 + .5"), 2.5);
}

TEST(Expression, AWeightedSumOverTheSummary) {
  // INFless's unified resource per second: (0.5 * 200 + 100 * 3) / 10 = 40; 50 req/s / 40 =
  // 1.25 req/s per unit.
  Expression::Quantities q;
  q.emplace("unified", Expression::parse("(0.5 * operator_instances.cpu_thread_seconds + 100 * "
                                         "operator_instances.gpu_share_seconds) / duration_s"));
  EXPECT_DOUBLE_EQ(value("$unified", q), 40.0);
  EXPECT_DOUBLE_EQ(value("throughput_rps / $unified", q), 1.25);
}

TEST(Expression, MeanAndSumOverTheMembersOfAnObject) {
  // Per-function rates 2/100 = 0.02 and 1/400 = 0.0025: mean 0.01125, sum 0.0225.
  EXPECT_DOUBLE_EQ(value("mean(per_function: cold / requests)"), 0.01125);
  EXPECT_DOUBLE_EQ(value("sum(per_function: cold / requests)"), 0.0225);
  EXPECT_DOUBLE_EQ(value("100 * mean([per_function]: cold)"), 150.0);
  EXPECT_DOUBLE_EQ(value("sum(empty: cold)"), 0.0);
}

TEST(Expression, EvaluationFailuresSayWhy) {
  EXPECT_EQ(failure("nope.x"), "no metric nope.x in its summary");
  EXPECT_EQ(failure("label"), "metric label is \"x\", not a number");
  EXPECT_EQ(failure("throughput_rps / (duration_s - 10)"), "a divisor is 0");
  EXPECT_EQ(failure("mean(empty: cold)"), "mean over empty, which has no members");
  EXPECT_EQ(failure("mean(per_function: hot)"),
            "per_function.resnet-50: no metric hot in its summary");
}

TEST(Expression, SyntaxErrorsNameTheOffset) {
  const auto offset = [](const std::string& text) -> std::size_t {
    try {
      Expression::parse(text);
    } catch (const ExpressionError& e) {
      return e.offset();
    }
    return 999;
  };
  EXPECT_EQ(offset("2 +"), 3U);
  EXPECT_EQ(offset("(2 + 3"), 6U);
  EXPECT_EQ(offset("2 3"), 2U);
  EXPECT_EQ(offset("$missing + 1"), 1U);
  EXPECT_EQ(offset("a # b"), 2U);
  EXPECT_EQ(offset("mean(per_function cold)"), 18U);
}

}  // namespace
}  // namespace sim::reproduce
