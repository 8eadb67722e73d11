#include "sandbox/contract/expr.h"

#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

namespace kopt {

namespace {

// The binary operators, described once for the parser, the evaluator and
// the C++ printer: each with how tightly it binds, the same in the contract
// language and in C++ (1 loosest; 7 is a unary operator, a call, a name or
// a number). Within a level a longer spelling comes before its prefix (<=
// before <), as the parser tries them in this order.
enum class BinaryOp { kOr, kAnd, kEq, kNe, kLe, kGe, kLt, kGt, kAdd, kSub, kMul, kDiv, kMod };
struct BinarySpelling {
  BinaryOp op;
  const char* text;
  int level;
};
constexpr BinarySpelling kBinaryOps[] = {
    {BinaryOp::kOr, "||", 1}, {BinaryOp::kAnd, "&&", 2}, {BinaryOp::kEq, "==", 3},
    {BinaryOp::kNe, "!=", 3}, {BinaryOp::kLe, "<=", 4},  {BinaryOp::kGe, ">=", 4},
    {BinaryOp::kLt, "<", 4},  {BinaryOp::kGt, ">", 4},   {BinaryOp::kAdd, "+", 5},
    {BinaryOp::kSub, "-", 5}, {BinaryOp::kMul, "*", 6},  {BinaryOp::kDiv, "/", 6},
    {BinaryOp::kMod, "%", 6}};
constexpr int kTightestBinary = 6, kUnaryLevel = 7;

}  // namespace

struct Expression::Node {
  enum Kind { kNumber, kName, kNegate, kNot, kBinary, kCall } kind = kNumber;
  int64_t number = 0;
  std::string name;                    // the variable or the function
  const BinarySpelling* op = nullptr;  // kBinary
  std::vector<std::unique_ptr<Node>> args;
};

namespace {

using Node = Expression::Node;
using NodePtr = std::unique_ptr<Node>;

NodePtr make_node(Node::Kind kind, std::string name = {}) {
  auto n = std::make_unique<Node>();
  n->kind = kind;
  n->name = std::move(name);
  return n;
}

NodePtr binary(const BinarySpelling* op, NodePtr a, NodePtr b) {
  NodePtr n = make_node(Node::kBinary);
  n->op = op;
  n->args.push_back(std::move(a));
  n->args.push_back(std::move(b));
  return n;
}

// Recursive descent over kBinaryOps's levels, then unary operators.
class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}

  Status parse(NodePtr* out) {
    NodePtr root = parse_binary(1);
    skip_space();
    if (error_.empty() && pos_ != s_.size()) fail("unexpected '" + s_.substr(pos_, 1) + "'");
    if (!error_.empty()) return Status::error("expression '" + s_ + "': " + error_);
    *out = std::move(root);
    return Status();
  }

 private:
  void fail(const std::string& why) {
    if (error_.empty()) error_ = why;
  }
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool accept(const char* token) {
    skip_space();
    size_t n = std::char_traits<char>::length(token);
    if (s_.compare(pos_, n, token) == 0) {
      pos_ += n;
      return true;
    }
    return false;
  }
  // Operators of `level` (left-associative) over operands of the levels
  // that bind more tightly.
  NodePtr parse_binary(int level) {
    if (level > kTightestBinary) return parse_unary();
    NodePtr v = parse_binary(level + 1);
    while (error_.empty()) {
      const BinarySpelling* found = nullptr;
      for (const BinarySpelling& o : kBinaryOps)
        if (o.level == level && accept(o.text)) {
          found = &o;
          break;
        }
      if (!found) return v;
      v = binary(found, std::move(v), parse_binary(level + 1));
    }
    return v;
  }
  NodePtr parse_unary() {
    if (++depth_ > 64) {
      fail("nested too deeply");
      return make_node(Node::kNumber);
    }
    NodePtr v;
    if (accept("-")) {
      v = make_node(Node::kNegate);
      v->args.push_back(parse_unary());
    } else if (accept("!")) {
      v = make_node(Node::kNot);
      v->args.push_back(parse_unary());
    } else {
      v = parse_primary();
    }
    --depth_;
    return v;
  }
  NodePtr parse_primary() {
    skip_space();
    if (++depth_ > 64) {
      fail("nested too deeply");
      return make_node(Node::kNumber);
    }
    NodePtr v = parse_primary_inner();
    --depth_;
    return v;
  }
  NodePtr parse_primary_inner() {
    if (pos_ >= s_.size()) {
      fail("unexpected end");
      return make_node(Node::kNumber);
    }
    if (accept("(")) {
      NodePtr v = parse_binary(1);
      if (!accept(")")) fail("missing ')'");
      return v;
    }
    char c = s_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      NodePtr v = make_node(Node::kNumber);
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
        if (v->number > (int64_t{1} << 50)) {
          fail("number too large");
          return v;
        }
        v->number = v->number * 10 + (s_[pos_++] - '0');
      }
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = pos_;
      while (pos_ < s_.size() &&
             (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
        ++pos_;
      std::string name = s_.substr(start, pos_ - start);
      if (accept("(")) return call(name);
      return make_node(Node::kName, name);
    }
    fail("unexpected '" + std::string(1, c) + "'");
    return make_node(Node::kNumber);
  }
  NodePtr call(const std::string& name) {
    NodePtr v = make_node(Node::kCall, name);
    if (!accept(")")) {
      do v->args.push_back(parse_binary(1));
      while (error_.empty() && accept(","));
      if (!accept(")")) fail("missing ')' after arguments of " + name);
    }
    if (!error_.empty()) return v;
    if (name != "min" && name != "max" && name != "cdiv" && name != "align")
      fail("unknown function '" + name + "'");
    else if (v->args.size() != 2)
      fail(name + " takes two arguments");
    return v;
  }

  const std::string& s_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::string error_;
};

// The tree's value; the first error (in the order the text reads) is kept.
class Evaluator {
 public:
  explicit Evaluator(const Variables& vars) : vars_(vars) {}

  const std::string& error() const { return error_; }

  int64_t value(const Node& n) {
    if (!error_.empty()) return 0;
    switch (n.kind) {
      case Node::kNumber:
        return n.number;
      case Node::kName: {
        auto it = vars_.find(n.name);
        if (it == vars_.end()) {
          fail("unknown name '" + n.name + "'");
          return 0;
        }
        return it->second;
      }
      case Node::kNegate:
        return subtract(0, value(*n.args[0]));
      case Node::kNot:
        return value(*n.args[0]) == 0;
      case Node::kBinary:
        return binary(n.op->op, value(*n.args[0]), value(*n.args[1]));
      case Node::kCall:
        return call(n.name, value(*n.args[0]), value(*n.args[1]));
    }
    return 0;
  }

 private:
  void fail(const std::string& why) {
    if (error_.empty()) error_ = why;
  }
  // Checked arithmetic: a contract is untrusted input, so an overflow is an
  // error naming the operation, never undefined behaviour or a trap.
  int64_t checked(bool overflow, int64_t value, const char* op) {
    if (overflow) {
      fail(std::string("integer overflow in '") + op + "'");
      return 0;
    }
    return value;
  }
  int64_t add(int64_t a, int64_t b) {
    int64_t r = 0;
    const bool overflow = __builtin_add_overflow(a, b, &r);
    return checked(overflow, r, "+");
  }
  int64_t subtract(int64_t a, int64_t b) {
    int64_t r = 0;
    const bool overflow = __builtin_sub_overflow(a, b, &r);
    return checked(overflow, r, "-");
  }
  int64_t multiply(int64_t a, int64_t b) {
    int64_t r = 0;
    const bool overflow = __builtin_mul_overflow(a, b, &r);
    return checked(overflow, r, "*");
  }
  int64_t divide(int64_t a, int64_t b, bool remainder) {
    if (b == 0) {
      fail("division by zero");
      return 0;
    }
    // INT64_MIN / -1 traps on x86 (SIGFPE); its remainder is 0.
    if (a == INT64_MIN && b == -1) return remainder ? 0 : checked(true, 0, "/");
    return remainder ? a % b : a / b;
  }
  int64_t binary(BinaryOp op, int64_t a, int64_t b) {
    if (!error_.empty()) return 0;
    switch (op) {
      case BinaryOp::kOr:
        return a != 0 || b != 0;
      case BinaryOp::kAnd:
        return a != 0 && b != 0;
      case BinaryOp::kEq:
        return a == b;
      case BinaryOp::kNe:
        return a != b;
      case BinaryOp::kLe:
        return a <= b;
      case BinaryOp::kGe:
        return a >= b;
      case BinaryOp::kLt:
        return a < b;
      case BinaryOp::kGt:
        return a > b;
      case BinaryOp::kAdd:
        return add(a, b);
      case BinaryOp::kSub:
        return subtract(a, b);
      case BinaryOp::kMul:
        return multiply(a, b);
      case BinaryOp::kDiv:
        return divide(a, b, false);
      case BinaryOp::kMod:
        return divide(a, b, true);
    }
    return 0;
  }
  int64_t call(const std::string& name, int64_t a, int64_t b) {
    if (!error_.empty()) return 0;
    if (name == "min") return a < b ? a : b;
    if (name == "max") return a > b ? a : b;
    if (b <= 0) {  // cdiv, align
      fail(name + " needs a positive second argument");
      return 0;
    }
    const int64_t q = divide(subtract(add(a, b), 1), b, false);
    return name == "cdiv" ? q : multiply(q, b);
  }

  const Variables& vars_;
  std::string error_;
};

// How tightly a node binds (kBinaryOps's levels).
int binding(const Node& n) { return n.kind == Node::kBinary ? n.op->level : kUnaryLevel; }

std::string print_cpp(const Node& n, const std::set<std::string>& wide);

// An operand, in parentheses where it binds more loosely than its place needs.
std::string operand(const Node& n, int needs, const std::set<std::string>& wide) {
  const std::string text = print_cpp(n, wide);
  return binding(n) < needs ? "(" + text + ")" : text;
}

std::string print_cpp(const Node& n, const std::set<std::string>& wide) {
  switch (n.kind) {
    case Node::kNumber:
      return std::to_string(n.number) + "LL";
    case Node::kName:
      return wide.count(n.name) ? n.name : "(long long)" + n.name;
    case Node::kNegate: {
      // -(-x), never --x (C's decrement).
      const Node& x = *n.args[0];
      const bool wrap = x.kind == Node::kBinary || x.kind == Node::kNegate;
      return wrap ? "-(" + print_cpp(x, wide) + ")" : "-" + print_cpp(x, wide);
    }
    case Node::kNot:
      // As a long long, so that arithmetic on it sees 0 or 1 as evaluated.
      return "(long long)!" + operand(*n.args[0], kUnaryLevel, wide);
    case Node::kBinary: {
      // Left-associative: the right operand of an operator of the same level
      // keeps its parentheses (a - (b - c)).
      // && inside || keeps its parentheses too, as compilers ask.
      const bool is_or = n.op->op == BinaryOp::kOr;
      const int level = n.op->level, left = is_or ? level + 2 : level;
      return operand(*n.args[0], left, wide) + " " + n.op->text + " " +
             operand(*n.args[1], level + 1 + is_or, wide);
    }
    case Node::kCall:
      return "kopt_" + n.name + "(" + print_cpp(*n.args[0], wide) + ", " +
             print_cpp(*n.args[1], wide) + ")";
  }
  return "0LL";
}

}  // namespace

Status Expression::parse(const std::string& text, Expression* out) {
  if (text.size() > 1000) return Status::error("expression longer than 1000 characters");
  NodePtr root;
  KOPT_RETURN_IF_ERROR(Parser(text).parse(&root));
  out->root_ = std::shared_ptr<const Node>(std::move(root));
  out->text_ = text;
  return Status();
}

Expression Expression::constant(int64_t value) {
  Expression e;
  NodePtr n = make_node(Node::kNumber);
  n->number = value;
  e.root_ = std::shared_ptr<const Node>(std::move(n));
  e.text_ = std::to_string(value);
  return e;
}

Status Expression::evaluate(const Variables& vars, int64_t* out) const {
  if (!root_) return Status::error("expression not parsed");
  Evaluator e(vars);
  const int64_t v = e.value(*root_);
  if (!e.error().empty()) return Status::error("expression '" + text_ + "': " + e.error());
  *out = v;
  return Status();
}

std::set<std::string> Expression::names() const {
  std::set<std::string> out;
  std::vector<const Node*> unvisited;
  if (root_) unvisited.push_back(root_.get());
  while (!unvisited.empty()) {
    const Node* n = unvisited.back();
    unvisited.pop_back();
    if (n->kind == Node::kName) out.insert(n->name);
    for (const auto& a : n->args) unvisited.push_back(a.get());
  }
  return out;
}

std::string Expression::to_cpp(const std::set<std::string>& wide) const {
  if (!root_) return "0LL";
  // Whole, so that it can stand beside any operator where it is used.
  return binding(*root_) < kUnaryLevel ? "(" + print_cpp(*root_, wide) + ")"
                                       : print_cpp(*root_, wide);
}

Status evaluate_expression(const std::string& text, const Variables& vars, int64_t* out) {
  Expression e;
  KOPT_RETURN_IF_ERROR(Expression::parse(text, &e));
  return e.evaluate(vars, out);
}

}  // namespace kopt
