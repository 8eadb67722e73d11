#include "sandbox/prelude.h"

namespace kopt {
namespace embedded {
extern const char* const kPrelude;
}

const char* device_prelude() { return embedded::kPrelude; }

std::string assemble_source(const std::string& candidate_source) {
  return std::string(device_prelude()) + "\n#line 1 \"candidate.hip\"\n" + candidate_source;
}

}  // namespace kopt
