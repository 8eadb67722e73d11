// The device prelude (sandbox/contract/prelude.hip), the problem's own device helpers
// after it, and how a candidate's source is assembled around them.
#pragma once

#include <string>

namespace kopt {

class Problem;

// kopt's prelude alone (types, warp helpers, loads).
const char* device_prelude();
// kopt's prelude and the problem's helpers: what every candidate of the
// problem sees before its first line.
std::string problem_prelude(const Problem& problem);

// problem_prelude + a #line directive + the (checked) candidate source, so
// compiler messages point at the candidate's own lines.
std::string assemble_source(const Problem& problem, const std::string& candidate_source);

}  // namespace kopt
