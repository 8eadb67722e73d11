// The W8A16 GEMV problem: y = x · W, x fp16 (K), W int8 with one fp16 scale
// per output channel (N channels), y fp32 (N). Weight-only int8 is what
// inference engines use where int4 loses too much accuracy; at decode it is
// the same memory-bound GEMV at twice the weight bytes. Registered with the
// sandbox core as "w8a16_gemv" (problems/registry.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "sandbox/contract/problem.h"

namespace kopt::w8a16 {

inline constexpr const char* kId = "w8a16_gemv";

Shape shape(int64_t K, int64_t N);

// The canonical weights: int8 q [N][K] at 0, fp16 scales [N] after a 256-byte
// boundary.
struct CanonicalLayout {
  size_t scales_offset = 0;
  size_t total_bytes = 0;
  static CanonicalLayout of(const Shape& shape);
};

// The input sets, by their index in Problem::datasets().
enum Dataset : size_t {
  kRandom = 0,        // x ~ U(-1,1), q uniform over -128..127
  kOutliers = 1,      // kRandom plus 8 activation channels of magnitude 32..128
  kExactInteger = 2,  // integer x, power-of-two scales: exact y
  kOneHot = 3,        // one x is 1, the rest 0: y is one column of W, exposes indexing
  kExtremes = 4,      // q only -128 or 127, x all 1, power-of-two scales: y exact; a
                      // byte read unsigned or clamped to -127 is off by a whole scale
                      // per weight, far outside the tolerance
};

ProblemData generate_problem(const Shape& shape, Dataset dataset, uint64_t seed);
std::vector<double> reference_gemv(const ProblemData& data);
// The same for `rows` rows of x (x_rows: rows × K fp16 bits, row-major):
// y rows × N, row-major. The batched problem (problems/w8a16_batch) uses it.
std::vector<double> reference_rows(const Shape& shape, const std::vector<uint8_t>& weights,
                                   const uint16_t* x_rows, int64_t rows);
// x of one input set for `data->shape` (K values), deterministic in the seed.
void fill_x(ProblemData* data, Dataset dataset, uint64_t seed);
int8_t q(const ProblemData& data, int64_t n, int64_t k);

std::unique_ptr<Problem> make_problem();

}  // namespace kopt::w8a16
