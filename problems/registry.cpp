#include "problems/registry.h"

#include "problems/w4a16_batch/w4a16_batch.h"
#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "problems/w8a16_batch/w8a16_batch.h"
#include "problems/w8a16_gemv/w8a16_gemv.h"
#include "sandbox/contract/problem.h"

namespace kopt {

void register_builtin_problems() {
  register_problem(w4a16::make_problem());  // the first: the default problem
  register_problem(w8a16::make_problem());
  register_problem(w4a16_batch::make_problem());
  register_problem(w8a16_batch::make_problem());
}

}  // namespace kopt
