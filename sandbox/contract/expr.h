// Integer expressions of a candidate's launch contract ("cdiv(N, ROWS)",
// "K % (32 * SPLIT) == 0"): + - * / %, comparisons, && ||, !, parentheses,
// cdiv(a,b), min(a,b), max(a,b), align(a,b) over named integer variables.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "sandbox/contract/status.h"

namespace kopt {

using Variables = std::map<std::string, int64_t>;

// Evaluates `text` with `vars`; division by zero, unknown names and syntax
// errors are errors with a message naming the expression.
Status evaluate_expression(const std::string& text, const Variables& vars, int64_t* out);

}  // namespace kopt
