// The W4A16 GEMV problem: y = x · W, x fp16 (K), W int4 group-quantised
// (K×N, canonical "q4g64" format), y fp32 (N). See README "The problem".
// Registered with the sandbox core as "w4a16_gemv" (problems/registry.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sandbox/contract/problem.h"

namespace kopt::w4a16 {

inline constexpr const char* kId = "w4a16_gemv";

// A W4A16 shape: K inputs, N outputs, group size G.
Shape shape(int64_t K, int64_t N, int64_t G = 64);
struct Dims {
  int64_t K = 0, N = 0, G = 64;
};
Dims dims(const Shape& shape);

// The 14 shapes of the DatenLord contest (G = 64), in the contest's order.
std::vector<Shape> contest_suite();

// Where the three canonical arrays sit in the weights a candidate receives
// when it has no re-layout. Each section starts on a 256-byte boundary so
// 16-byte vector loads are always aligned.
struct CanonicalLayout {
  size_t qweight_offset = 0;  // uint8 [N][K/2], low nibble = even k
  size_t scales_offset = 0;   // fp16 [N][K/G]
  size_t offsets_offset = 0;  // fp16 [N][K/G]
  size_t total_bytes = 0;
  static CanonicalLayout of(const Shape& shape);
};

// The input sets, by their index in Problem::datasets().
enum Dataset : size_t {
  kRandom = 0,        // x ~ U(-1,1), typical |y| ≫ atol
  kOutliers = 1,      // kRandom plus 8 activation channels of magnitude 32..128
  kExactInteger = 2,  // integer x, power-of-two scales, integer offsets: exact y
  kOneHot = 3,        // one x is 1, the rest 0: y is one row of W, exposes indexing
};

// Deterministic in (shape, dataset, seed).
ProblemData generate_problem(const Shape& shape, Dataset dataset, uint64_t seed);
// y in fp64 from the exact fp16 values of x, scales and offsets.
std::vector<double> reference_gemv(const ProblemData& data);
// The same for `rows` rows of x (x_rows: rows × K fp16 bits, row-major):
// y rows × N, row-major. The batched problem (problems/w4a16_batch) uses it.
std::vector<double> reference_rows(const Shape& shape, const std::vector<uint8_t>& weights,
                                   const uint16_t* x_rows, int64_t rows);
// x of one input set for `data->shape` (K values), deterministic in the seed.
void fill_x(ProblemData* data, Dataset dataset, uint64_t seed);

// Elements of the canonical weights.
uint8_t q(const ProblemData& data, int64_t n, int64_t k);
uint16_t scale_bits(const ProblemData& data, int64_t n, int64_t g);
uint16_t offset_bits(const ProblemData& data, int64_t n, int64_t g);

// The AWQ/GPTQ form w = (q - z)·s with integer zero points, mapped onto the
// canonical scale+offset form as offset = -z·s. The product is rounded once to
// fp16, adding at most half an fp16 ulp of |z·s| per group.
struct IntegerZeroWeights {
  Shape shape;
  std::vector<uint8_t> q;        // [N][K], 0..15
  std::vector<uint8_t> zeros;    // [N][K/G], 0..15
  std::vector<uint16_t> scales;  // fp16 bits [N][K/G]
};
ProblemData from_integer_zero(const IntegerZeroWeights& w, const std::vector<uint16_t>& x);

std::unique_ptr<Problem> make_problem();

}  // namespace kopt::w4a16
