// The device prelude (sandbox/prelude.hip) and how a candidate's source is
// assembled around it.
#pragma once

#include <string>

namespace kopt {

const char* device_prelude();

// prelude + a #line directive + the (checked) candidate source, so compiler
// messages point at the candidate's own lines.
std::string assemble_source(const std::string& candidate_source);

}  // namespace kopt
