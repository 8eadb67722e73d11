// The canonical weight blob of a problem: its arrays one after another, each
// starting on a 256-byte boundary (the device helpers' kopt_align256 and the
// shipped libraries' kopt_align256_host compute the same offsets).
#pragma once

#include <cstddef>

namespace kopt {

inline size_t align256(size_t v) { return (v + 255) & ~size_t{255}; }

}  // namespace kopt
