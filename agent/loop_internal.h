// What the loop's files share (internal to the loop).
#pragma once

#include <string>

namespace kopt {

// Code and parameters, comments and white space aside: a child that
// differs from a candidate only there is not evaluated again.
std::string code_key(const std::string& source, const std::string& params_json);

}  // namespace kopt
