// Integer expressions of a candidate's launch contract ("cdiv(N, ROWS)",
// "K % (32 * SPLIT) == 0"): + - * / %, comparisons, && ||, !, parentheses,
// cdiv(a,b), min(a,b), max(a,b), align(a,b) over named integer variables.
// One parsed tree serves the sandbox, which evaluates it, and `kopt export`,
// which prints it as the library's C++: the library computes what the
// sandbox checked.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "sandbox/contract/status.h"

namespace kopt {

using Variables = std::map<std::string, int64_t>;

class Expression {
 public:
  // Syntax errors (and unknown functions, wrong argument counts) are errors
  // with a message naming the expression.
  static Status parse(const std::string& text, Expression* out);
  // The integer `value` (its text is its decimal digits).
  static Expression constant(int64_t value);

  // The text it was parsed from.
  const std::string& text() const { return text_; }

  // Division by zero, unknown names and overflow are errors naming the
  // expression. Both sides of && and || are evaluated (an error on either
  // side is an error), so where this succeeds C++'s short-circuit gives the
  // same value.
  Status evaluate(const Variables& vars, int64_t* out) const;

  // The variables it names (a function's name is not one).
  std::set<std::string> names() const;

  // C++ that computes the same value over long long: literals get LL (a
  // leading zero is dropped: C would read octal), a name not in `wide` (a
  // parameter's macro, an int) is cast to long long, parentheses where the
  // tree needs them and around the whole, `-(-x)` never `--x`, and the
  // helpers are kopt_cdiv, kopt_min, kopt_max, kopt_align
  // (kernels/common/kopt_contract_ops.h).
  std::string to_cpp(const std::set<std::string>& wide) const;

  struct Node;

 private:
  std::shared_ptr<const Node> root_;
  std::string text_;
};

// Parses and evaluates `text` with `vars`.
Status evaluate_expression(const std::string& text, const Variables& vars, int64_t* out);

}  // namespace kopt
