#include "sandbox/contract/prelude.h"

#include "sandbox/contract/problem.h"

namespace kopt {
namespace embedded {
extern const char* const kPrelude;
}

const char* device_prelude() { return embedded::kPrelude; }

std::string problem_prelude(const Problem& problem) {
  return std::string(device_prelude()) + "\n// Helpers of the problem " + problem.id() + ".\n" +
         problem.device_prelude();
}

std::string assemble_source(const Problem& problem, const std::string& candidate_source) {
  return problem_prelude(problem) + "\n#line 1 \"candidate.hip\"\n" + candidate_source;
}

}  // namespace kopt
