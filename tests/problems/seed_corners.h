// A check the batched problems' tests share: every seed of a problem, at its
// defaults and at the corners of its knobs, passes the source rules, plans,
// compiles for sm_90 and, where clang's gfx906 target is installed and the
// corner runs on a wavefront of 64, for gfx906 without scratch.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sandbox/contract/problem.h"

namespace kopt::test {

// Each seed's parameter settings to build, by seed name ({} for its
// defaults); every seed of the problem must be listed.
using KnobCorners = std::map<std::string, std::vector<std::map<std::string, int64_t>>>;

// Builds every listed setting for `shape` (whose M is within every
// setting's row capacity), failing the calling test where one does not pass.
void expect_seeds_compile_without_scratch(const Problem& problem, const KnobCorners& knobs,
                                          const Shape& shape);

}  // namespace kopt::test
