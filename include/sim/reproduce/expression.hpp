#pragma once
/// Arithmetic over one run's summary: the value of a claim's term (claims.hpp).
///
/// A paper's metric is often not a summary field but a combination of several: INFless's
/// throughput per resource is the throughput over a weighted sum of CPU-thread and SM-share
/// seconds (INFless §3.4's unified resource). An expression states such a combination in the
/// claim file, next to the paper value it is checked against, instead of in a script.
///
/// Grammar (whitespace is free between tokens):
///
///     expr    := product (('+' | '-') product)*
///     product := unary (('*' | '/') unary)*
///     unary   := '-' unary | primary
///     primary := NUMBER | PATH | '[' ANY-PATH ']' | '$' NAME | '(' expr ')'
///              | ('mean' | 'sum') '(' PATH ':' expr ')'
///
/// PATH is a dotted path into the summary (`operator_instances.cpu_thread_seconds`: letters,
/// digits, '_' and '.'); `[...]` takes any other path (`[per_function.resnet-50.slo.met]`, or a
/// JSON pointer `[/a/b]`). `$NAME` is a named quantity of the claim file, defined before.
/// `mean(per_function: waits_s.cold_start_affected / requests.recorded)` evaluates the inner
/// expression on every member of the object at the path (as its root) and averages; `sum`
/// adds. Numbers are decimal (`0.45`, `1e-3`).

#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace sim::reproduce {

/// A syntax error: where (0-based offset into the text) and what was expected.
class ExpressionError : public std::runtime_error {
 public:
  ExpressionError(std::size_t offset, const std::string& message)
      : std::runtime_error(message), offset_(offset) {}
  [[nodiscard]] std::size_t offset() const { return offset_; }

 private:
  std::size_t offset_;
};

class Expression {
 public:
  struct Node;
  using Quantities = std::map<std::string, Expression, std::less<>>;

  Expression() = default;

  /// Parses `text`; `$NAME` must name one of `quantities`. Throws ExpressionError.
  static Expression parse(std::string_view text, const Quantities& quantities = {});

  /// The value on `summary`; none, with the reason, when a path is missing or not a number,
  /// a divisor is 0, or a mean has no members.
  [[nodiscard]] std::optional<double> evaluate(const nlohmann::json& summary,
                                               std::string& reason) const;

  [[nodiscard]] const std::string& text() const { return text_; }
  [[nodiscard]] bool empty() const { return root_ == nullptr; }
  /// The parsed tree (a quantity's tree is shared by the expressions that name it).
  [[nodiscard]] const std::shared_ptr<const Node>& root() const { return root_; }

 private:
  std::shared_ptr<const Node> root_;
  std::string text_;
};

}  // namespace sim::reproduce
