#include "problems/registry.h"

#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "sandbox/problem.h"

namespace kopt {

void register_builtin_problems() { register_problem(w4a16::make_problem()); }

}  // namespace kopt
