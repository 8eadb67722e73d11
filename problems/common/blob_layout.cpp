#include "problems/common/blob_layout.h"

#include "sandbox/contract/expr.h"

namespace kopt {

std::vector<size_t> blob_offsets(const std::vector<LibrarySpec::WeightArray>& arrays,
                                 const Shape& shape) {
  std::vector<size_t> offsets = {0};
  for (const auto& array : arrays) {
    int64_t bytes = 0;
    if (!evaluate_expression(array.bytes, shape.vars, &bytes).ok() || bytes < 0) bytes = 0;
    offsets.push_back(offsets.back() + align256(static_cast<size_t>(bytes)));
  }
  return offsets;
}

}  // namespace kopt
