// Expressions over a run summary: a recursive-descent parser into a small tree, and its
// evaluation (expression.hpp has the grammar).

#include "sim/reproduce/expression.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <vector>

#include "sim/scenario/golden.hpp"

namespace sim::reproduce {

using nlohmann::json;

struct Expression::Node {
  enum class Kind { kNumber, kPath, kNegate, kAdd, kSubtract, kMultiply, kDivide, kMean, kSum };
  Kind kind = Kind::kNumber;
  double number = 0.0;
  std::string path;  ///< kPath; kMean and kSum: the object whose members are averaged or added
  std::shared_ptr<const Node> left;   ///< kNegate, the binary operators; kMean/kSum: the body
  std::shared_ptr<const Node> right;  ///< the binary operators
};

namespace {

using Node = Expression::Node;
using NodePtr = std::shared_ptr<const Node>;

NodePtr make(Node::Kind kind, NodePtr left = nullptr, NodePtr right = nullptr) {
  auto n = std::make_shared<Node>();
  n->kind = kind;
  n->left = std::move(left);
  n->right = std::move(right);
  return n;
}

bool path_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.';
}

class Parser {
 public:
  Parser(std::string_view text, const Expression::Quantities& quantities)
      : text_(text), quantities_(quantities) {}

  NodePtr parse() {
    NodePtr e = expr();
    skip();
    if (pos_ < text_.size())
      fail(fmt::format("expected an operator or the end, found '{}'", rest()));
    return e;
  }

 private:
  [[noreturn]] void fail(const std::string& message) const { throw ExpressionError(pos_, message); }

  std::string rest() const {
    return std::string(text_.substr(pos_, std::min<std::size_t>(12, text_.size() - pos_)));
  }

  void skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])) != 0)
      ++pos_;
  }

  bool accept(char c) {
    skip();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void expect(char c) {
    if (!accept(c)) {
      fail(fmt::format("expected '{}', found {}", c,
                       pos_ < text_.size() ? fmt::format("'{}'", rest()) : "the end"));
    }
  }

  NodePtr expr() {
    NodePtr e = product();
    for (;;) {
      if (accept('+')) {
        e = make(Node::Kind::kAdd, e, product());
      } else if (accept('-')) {
        e = make(Node::Kind::kSubtract, e, product());
      } else {
        return e;
      }
    }
  }

  NodePtr product() {
    NodePtr e = unary();
    for (;;) {
      if (accept('*')) {
        e = make(Node::Kind::kMultiply, e, unary());
      } else if (accept('/')) {
        e = make(Node::Kind::kDivide, e, unary());
      } else {
        return e;
      }
    }
  }

  NodePtr unary() {
    if (accept('-')) return make(Node::Kind::kNegate, unary());
    return primary();
  }

  std::string word() {
    const std::size_t begin = pos_;
    while (pos_ < text_.size() && path_char(text_[pos_]))
      ++pos_;
    return std::string(text_.substr(begin, pos_ - begin));
  }

  NodePtr primary() {
    skip();
    if (pos_ >= text_.size()) fail("expected a number, a path, '$NAME' or '(', found the end");
    const char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      NodePtr e = expr();
      expect(')');
      return e;
    }
    if (c == '$') {
      ++pos_;
      const std::size_t at = pos_;
      const std::string name = word();
      const auto it = quantities_.find(name);
      if (it == quantities_.end()) {
        pos_ = at;
        fail(fmt::format("expected the name of a quantity defined before, found \"{}\"", name));
      }
      return it->second.root();
    }
    if (c == '[') {
      ++pos_;
      const auto end = text_.find(']', pos_);
      if (end == std::string_view::npos || end == pos_) fail("expected a path and ']'");
      auto n = std::make_shared<Node>();
      n->kind = Node::Kind::kPath;
      n->path = std::string(text_.substr(pos_, end - pos_));
      pos_ = end + 1;
      return n;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.') {
      const std::string s(text_.substr(pos_));
      char* end = nullptr;
      const double v = std::strtod(s.c_str(), &end);
      if (end == s.c_str()) fail("expected a number");
      pos_ += static_cast<std::size_t>(end - s.c_str());
      auto n = std::make_shared<Node>();
      n->number = v;
      return n;
    }
    if (!path_char(c)) {
      fail(fmt::format("expected a number, a path, '$NAME' or '(', found '{}'", rest()));
    }
    const std::string w = word();
    if ((w == "mean" || w == "sum") && accept('(')) {
      auto n = std::make_shared<Node>();
      n->kind = w == "mean" ? Node::Kind::kMean : Node::Kind::kSum;
      skip();
      if (pos_ < text_.size() && text_[pos_] == '[') {
        const auto end = text_.find(']', pos_ + 1);
        if (end == std::string_view::npos) fail("expected ']'");
        n->path = std::string(text_.substr(pos_ + 1, end - pos_ - 1));
        pos_ = end + 1;
      } else {
        n->path = word();
      }
      if (n->path.empty()) fail(fmt::format("expected the path of an object for {}()", w));
      expect(':');
      n->left = expr();
      expect(')');
      return n;
    }
    auto n = std::make_shared<Node>();
    n->kind = Node::Kind::kPath;
    n->path = w;
    return n;
  }

  std::string_view text_;
  const Expression::Quantities& quantities_;
  std::size_t pos_ = 0;
};

std::optional<double> eval(const Node& n, const json& root, std::string& reason) {
  switch (n.kind) {
    case Node::Kind::kNumber:
      return n.number;
    case Node::Kind::kPath: {
      const auto v = scenario::find_metric(root, n.path);
      if (!v) {
        reason = fmt::format("no metric {} in its summary", n.path);
        return std::nullopt;
      }
      if (!v->is_number()) {
        reason = fmt::format("metric {} is {}, not a number", n.path, v->dump());
        return std::nullopt;
      }
      return v->get<double>();
    }
    case Node::Kind::kNegate: {
      const auto a = eval(*n.left, root, reason);
      return a ? std::optional<double>(-*a) : std::nullopt;
    }
    case Node::Kind::kMean:
    case Node::Kind::kSum: {
      const auto object = scenario::find_metric(root, n.path);
      if (!object || !object->is_object()) {
        reason = fmt::format("no object {} in its summary", n.path);
        return std::nullopt;
      }
      double total = 0.0;
      std::size_t members = 0;
      for (const auto& [key, member] : object->items()) {
        std::string why;
        const auto v = eval(*n.left, member, why);
        if (!v) {
          reason = fmt::format("{}.{}: {}", n.path, key, why);
          return std::nullopt;
        }
        total += *v;
        ++members;
      }
      if (n.kind == Node::Kind::kSum) return total;
      if (members == 0) {
        reason = fmt::format("mean over {}, which has no members", n.path);
        return std::nullopt;
      }
      return total / static_cast<double>(members);
    }
    default:
      break;
  }
  const auto a = eval(*n.left, root, reason);
  if (!a) return std::nullopt;
  const auto b = eval(*n.right, root, reason);
  if (!b) return std::nullopt;
  switch (n.kind) {
    case Node::Kind::kAdd:
      return *a + *b;
    case Node::Kind::kSubtract:
      return *a - *b;
    case Node::Kind::kMultiply:
      return *a * *b;
    case Node::Kind::kDivide:
      if (*b == 0.0) {
        reason = "a divisor is 0";
        return std::nullopt;
      }
      return *a / *b;
    default:
      return std::nullopt;
  }
}

}  // namespace

Expression Expression::parse(std::string_view text, const Quantities& quantities) {
  Expression e;
  e.text_ = std::string(text);
  e.root_ = Parser(text, quantities).parse();
  return e;
}

std::optional<double> Expression::evaluate(const json& summary, std::string& reason) const {
  if (!root_) {
    reason = "an empty expression";
    return std::nullopt;
  }
  return eval(*root_, summary, reason);
}

}  // namespace sim::reproduce
