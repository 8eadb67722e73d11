// The hand-written baseline kernels kopt starts from. Each is a complete
// candidate (sandbox/candidate.h): HIP source with its launch contract and
// tunable parameters.
#pragma once

#include <string>
#include <vector>

namespace kopt {

struct Seed {
  std::string name;  // "naive", "vec", "splitk", "dot", "gen"
  std::string source;
};

const std::vector<Seed>& builtin_seeds();
// nullptr when there is no seed of that name.
const Seed* find_seed(const std::string& name);

}  // namespace kopt
