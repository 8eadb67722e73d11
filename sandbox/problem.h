// The W4A16 GEMV problem: y = x · W, x fp16 (K), W int4 group-quantized
// (K×N, canonical "q4g64" format), y fp32 (N). See README "The problem".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sandbox/status.h"

namespace kopt {

struct Shape {
  int64_t K = 0;
  int64_t N = 0;
  int64_t G = 64;
  // "KxN", with "/gG" appended when G is not the default 64.
  std::string name() const;
  bool operator==(const Shape& o) const { return K == o.K && N == o.N && G == o.G; }
};

// Parses "KxN" (or "KxN/gG"); `group` is used when the text names none.
// Rejects K or N < 1, sizes past 2^20, odd K, and G not dividing K.
Status parse_shape(const std::string& text, int64_t group, Shape* out);
Status validate_shape(const Shape& shape);

// The 14 shapes of the DatenLord contest (G = 64), in the contest's order.
std::vector<Shape> contest_suite();

// Bytes a kernel must move: weights, scales and offsets, x and y.
int64_t shape_bytes(const Shape& shape);

// Where the three canonical arrays sit in the one "canonical blob" a
// candidate receives when it has no re-layout. Each section starts on a
// 256-byte boundary so 16-byte vector loads are always aligned.
struct CanonicalLayout {
  size_t qweight_offset = 0;  // uint8 [N][K/2], low nibble = even k
  size_t scales_offset = 0;   // fp16 [N][K/G]
  size_t offsets_offset = 0;  // fp16 [N][K/G]
  size_t total_bytes = 0;
  static CanonicalLayout of(const Shape& shape);
};

// fp16 <-> fp32 on the host, round to nearest even.
uint16_t float_to_half(float value);
float half_to_float(uint16_t bits);

// The input sets of the verification protocol (README, "What the sandbox guarantees").
enum class Dataset {
  kRandom,        // x ~ U(-1,1), typical |y| ≫ atol
  kOutliers,      // kRandom plus 8 activation channels of magnitude 32..128
  kExactInteger,  // integer x, power-of-two scales, integer offsets: exact y
  kOneHot,        // one x is 1, the rest 0: y is one row of W, exposes indexing
};
const char* dataset_name(Dataset d);
std::vector<Dataset> all_datasets();

// One problem instance: x and the canonical blob, both as raw bytes.
struct ProblemData {
  Shape shape;
  std::vector<uint16_t> x;    // fp16 bits, length K
  std::vector<uint8_t> blob;  // CanonicalLayout::of(shape).total_bytes
  uint8_t q(int64_t n, int64_t k) const;
  uint16_t scale_bits(int64_t n, int64_t g) const;
  uint16_t offset_bits(int64_t n, int64_t g) const;
};

// Deterministic in (shape, dataset, seed).
ProblemData generate_problem(const Shape& shape, Dataset dataset, uint64_t seed);
// The data seed of one verification input set. An evaluation request carries
// a fresh seed (drawn per evaluation unless the user fixes it), so no kernel
// can be fitted to inputs it saw before.
uint64_t verification_seed(uint64_t request_seed, int trial, Dataset dataset);
// Fills only x anew (the weights stay), as between timing batches.
void regenerate_x(ProblemData* data, Dataset dataset, uint64_t seed);

// y in fp64 from the exact fp16 values of x, scales and offsets.
std::vector<double> reference_gemv(const ProblemData& data);

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

// The accuracy rule: |got - ref| <= atol + rtol·|ref| for every element.
struct Tolerance {
  double atol = 1e-2;
  double rtol = 1e-2;
};
struct Comparison {
  bool ok = false;
  int64_t bad = 0;          // elements outside tolerance (NaN included)
  int64_t not_written = 0;  // elements still holding the NaN poison
  int64_t first_bad = -1;
  double expected = 0, got = 0;
  double max_abs_error = 0;
  std::string describe() const;
};
Comparison compare_output(const std::vector<double>& ref, const float* got, Tolerance tol);

// True when every element is the same value (a constant output cannot be a
// GEMV of random data).
bool zero_variance(const float* y, size_t n);

// A small, fast, seedable generator (splitmix64), so every run repeats.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next();
  double uniform(double lo, double hi);
  int64_t integer(int64_t lo, int64_t hi);  // inclusive
 private:
  uint64_t state_;
};

}  // namespace kopt
