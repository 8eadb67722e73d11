// The canonical weight blob of a problem: its arrays one after another, each
// starting on a 256-byte boundary (the device helpers' kopt_align256 and the
// shipped libraries' kopt_align256_host compute the same offsets).
#pragma once

#include <cstddef>
#include <vector>

#include "sandbox/contract/problem.h"

namespace kopt {

inline size_t align256(size_t v) { return (v + 255) & ~size_t{255}; }

// Where each of a problem's canonical arrays (LibrarySpec::weight_arrays,
// whose sizes are contract expressions over the shape's variables) starts in
// the blob for `shape`, in their order, and the blob's size last: one more
// offset than arrays. The arrays are the one description of the layout: the
// problems' CanonicalLayout reads it here, `kopt export` prints the sizes
// into each library. A size that does not evaluate for the shape counts 0.
std::vector<size_t> blob_offsets(const std::vector<LibrarySpec::WeightArray>& arrays,
                                 const Shape& shape);

}  // namespace kopt
