#include "sandbox/contract/expr.h"

#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

namespace kopt {

namespace {

// Recursive descent; precedence from loosest: || && (== !=) (< <= > >=) (+ -) (* / %) unary.
class Parser {
 public:
  Parser(const std::string& text, const Variables& vars) : s_(text), vars_(vars) {}

  Status parse(int64_t* out) {
    int64_t v = parse_or();
    skip_space();
    if (error_.empty() && pos_ != s_.size()) fail("unexpected '" + s_.substr(pos_, 1) + "'");
    if (!error_.empty()) return Status::error("expression '" + s_ + "': " + error_);
    *out = v;
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
  int64_t parse_or() {
    int64_t v = parse_and();
    while (error_.empty() && accept("||")) v = (parse_and() != 0) || v != 0;
    return v;
  }
  int64_t parse_and() {
    int64_t v = parse_equality();
    while (error_.empty() && accept("&&")) v = (parse_equality() != 0) && v != 0;
    return v;
  }
  int64_t parse_equality() {
    int64_t v = parse_relational();
    for (;;) {
      if (accept("=="))
        v = v == parse_relational();
      else if (accept("!="))
        v = v != parse_relational();
      else
        return v;
    }
  }
  int64_t parse_relational() {
    int64_t v = parse_additive();
    for (;;) {
      if (accept("<="))
        v = v <= parse_additive();
      else if (accept(">="))
        v = v >= parse_additive();
      else if (accept("<"))
        v = v < parse_additive();
      else if (accept(">"))
        v = v > parse_additive();
      else
        return v;
    }
  }
  int64_t parse_additive() {
    int64_t v = parse_multiplicative();
    for (;;) {
      if (accept("+"))
        v = add(v, parse_multiplicative());
      else if (accept("-"))
        v = subtract(v, parse_multiplicative());
      else
        return v;
    }
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
  int64_t parse_multiplicative() {
    int64_t v = parse_unary();
    for (;;) {
      if (accept("*"))
        v = multiply(v, parse_unary());
      else if (accept("/"))
        v = divide(v, parse_unary(), false);
      else if (accept("%"))
        v = divide(v, parse_unary(), true);
      else
        return v;
    }
  }
  int64_t parse_unary() {
    if (++depth_ > 64) {
      fail("nested too deeply");
      return 0;
    }
    int64_t v;
    if (accept("-"))
      v = subtract(0, parse_unary());
    else if (accept("!"))
      v = parse_unary() == 0;
    else
      v = parse_primary();
    --depth_;
    return v;
  }
  int64_t parse_primary() {
    skip_space();
    if (++depth_ > 64) {
      fail("nested too deeply");
      return 0;
    }
    int64_t v = parse_primary_inner();
    --depth_;
    return v;
  }
  int64_t parse_primary_inner() {
    if (pos_ >= s_.size()) {
      fail("unexpected end");
      return 0;
    }
    if (accept("(")) {
      int64_t v = parse_or();
      if (!accept(")")) fail("missing ')'");
      return v;
    }
    char c = s_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      int64_t v = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
        if (v > (int64_t{1} << 50)) {
          fail("number too large");
          return 0;
        }
        v = v * 10 + (s_[pos_++] - '0');
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
      auto it = vars_.find(name);
      if (it == vars_.end()) {
        fail("unknown name '" + name + "'");
        return 0;
      }
      return it->second;
    }
    fail("unexpected '" + std::string(1, c) + "'");
    return 0;
  }
  int64_t call(const std::string& name) {
    std::vector<int64_t> args;
    if (!accept(")")) {
      do args.push_back(parse_or());
      while (error_.empty() && accept(","));
      if (!accept(")")) fail("missing ')' after arguments of " + name);
    }
    if (!error_.empty()) return 0;
    if (args.size() != 2) {
      fail(name + " takes two arguments");
      return 0;
    }
    int64_t a = args[0], b = args[1];
    if (name == "min") return a < b ? a : b;
    if (name == "max") return a > b ? a : b;
    if (name == "cdiv" || name == "align") {
      if (b <= 0) {
        fail(name + " needs a positive second argument");
        return 0;
      }
      const int64_t q = divide(subtract(add(a, b), 1), b, false);
      return name == "cdiv" ? q : multiply(q, b);
    }
    fail("unknown function '" + name + "'");
    return 0;
  }

  const std::string& s_;
  const Variables& vars_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::string error_;
};

}  // namespace

Status evaluate_expression(const std::string& text, const Variables& vars, int64_t* out) {
  if (text.size() > 1000) return Status::error("expression longer than 1000 characters");
  return Parser(text, vars).parse(out);
}

}  // namespace kopt
