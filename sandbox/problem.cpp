#include "sandbox/problem.h"

#include <cmath>
#include <cstring>
#include <sstream>

namespace kopt {

namespace {
constexpr int64_t kMaxDim = int64_t{1} << 20;
size_t align256(size_t v) { return (v + 255) & ~size_t{255}; }
constexpr uint32_t kPoisonBits = 0xFFFFFFFFu;  // the NaN the harness writes into y
}  // namespace

std::string Shape::name() const {
  std::string s = std::to_string(K) + "x" + std::to_string(N);
  if (G != 64) s += "/g" + std::to_string(G);
  return s;
}

Status validate_shape(const Shape& s) {
  if (s.K < 1 || s.N < 1) return Status::error("shape " + s.name() + ": K and N must be >= 1");
  if (s.K > kMaxDim || s.N > kMaxDim)
    return Status::error("shape " + s.name() + ": K and N must be <= 1048576");
  if (s.G < 2 || s.G % 2 != 0) return Status::error("group size must be even and >= 2");
  if (s.K % s.G != 0)
    return Status::error("shape " + s.name() + ": group size " + std::to_string(s.G) +
                         " does not divide K");
  return Status();
}

Status parse_shape(const std::string& text, int64_t group, Shape* out) {
  Shape s;
  s.G = group;
  std::string body = text;
  size_t slash = text.find("/g");
  if (slash != std::string::npos) {
    body = text.substr(0, slash);
    std::string g = text.substr(slash + 2);
    if (g.empty() || g.find_first_not_of("0123456789") != std::string::npos || g.size() > 7)
      return Status::error("malformed shape '" + text + "': expected KxN or KxN/gG");
    s.G = std::stoll(g);
  }
  size_t x = body.find('x');
  if (x == std::string::npos || x == 0 || x + 1 == body.size())
    return Status::error("malformed shape '" + text + "': expected KxN, e.g. 7168x9216");
  std::string k = body.substr(0, x), n = body.substr(x + 1);
  for (const std::string& part : {k, n})
    if (part.find_first_not_of("0123456789") != std::string::npos || part.size() > 9)
      return Status::error("malformed shape '" + text + "': K and N must be positive integers");
  s.K = std::stoll(k);
  s.N = std::stoll(n);
  if (Status v = validate_shape(s); !v.ok())
    return Status::error("shape '" + text + "': " + v.message());
  *out = s;
  return Status();
}

std::vector<Shape> contest_suite() {
  const int64_t kn[14][2] = {{7168, 9216}, {7168, 1536}, {7168, 1024}, {5120, 6144}, {5120, 3584},
                             {5120, 3072}, {5120, 768},  {5120, 256},  {4608, 7168}, {4096, 7168},
                             {3072, 5120}, {1536, 6144}, {512, 7168},  {384, 5120}};
  std::vector<Shape> shapes;
  for (const auto& p : kn) shapes.push_back(Shape{p[0], p[1], 64});
  return shapes;
}

int64_t shape_bytes(const Shape& s) {
  return s.N * s.K / 2 + 4 * s.N * (s.K / s.G) + 2 * s.K + 4 * s.N;
}

CanonicalLayout CanonicalLayout::of(const Shape& s) {
  CanonicalLayout l;
  size_t groups = static_cast<size_t>(s.N) * static_cast<size_t>(s.K / s.G);
  l.qweight_offset = 0;
  l.scales_offset = align256(static_cast<size_t>(s.N) * static_cast<size_t>(s.K / 2));
  l.offsets_offset = l.scales_offset + align256(groups * 2);
  l.total_bytes = l.offsets_offset + align256(groups * 2);
  return l;
}

uint16_t float_to_half(float value) {
  uint32_t f;
  std::memcpy(&f, &value, 4);
  uint32_t sign = (f >> 16) & 0x8000u;
  uint32_t abs = f & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u)
    return static_cast<uint16_t>(sign | (abs > 0x7F800000u ? 0x7E00u : 0x7C00u));
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to inf
  if (abs < 0x38800000u) {                                               // subnormal or zero
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);
    uint32_t mant = (abs & 0x007FFFFFu) | 0x00800000u;
    int shift = 113 - static_cast<int>(abs >> 23) + 13;
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = ((abs - 0x38000000u) >> 13);
  uint32_t rem = abs & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;
  return static_cast<uint16_t>(sign | half);
}

float half_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu, f;
  if (exp == 0) {
    if (mant == 0) {
      f = sign;
    } else {  // subnormal: normalise
      exp = 127 - 15 + 1;
      while ((mant & 0x400u) == 0) {
        mant <<= 1;
        --exp;
      }
      f = sign | (exp << 23) | ((mant & 0x3FFu) << 13);
    }
  } else if (exp == 31) {
    f = sign | 0x7F800000u | (mant << 13);
  } else {
    f = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float out;
  std::memcpy(&out, &f, 4);
  return out;
}

const char* dataset_name(Dataset d) {
  switch (d) {
    case Dataset::kRandom:
      return "random";
    case Dataset::kOutliers:
      return "outliers";
    case Dataset::kExactInteger:
      return "exact-integer";
    case Dataset::kOneHot:
      return "one-hot";
  }
  return "?";
}

std::vector<Dataset> all_datasets() {
  return {Dataset::kRandom, Dataset::kOutliers, Dataset::kExactInteger, Dataset::kOneHot};
}

uint64_t Rng::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
double Rng::uniform(double lo, double hi) {
  return lo + (hi - lo) * (static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0));
}
int64_t Rng::integer(int64_t lo, int64_t hi) {
  return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
}

uint8_t ProblemData::q(int64_t n, int64_t k) const {
  uint8_t b = blob[static_cast<size_t>(n * (shape.K / 2) + k / 2)];
  return (k & 1) ? (b >> 4) : (b & 15);
}
uint16_t ProblemData::scale_bits(int64_t n, int64_t g) const {
  uint16_t v;
  std::memcpy(&v,
              blob.data() + CanonicalLayout::of(shape).scales_offset +
                  2 * static_cast<size_t>(n * (shape.K / shape.G) + g),
              2);
  return v;
}
uint16_t ProblemData::offset_bits(int64_t n, int64_t g) const {
  uint16_t v;
  std::memcpy(&v,
              blob.data() + CanonicalLayout::of(shape).offsets_offset +
                  2 * static_cast<size_t>(n * (shape.K / shape.G) + g),
              2);
  return v;
}

uint64_t verification_seed(uint64_t request_seed, int trial, Dataset dataset) {
  return request_seed * 1000003ull + static_cast<uint64_t>(trial) * 17 +
         static_cast<uint64_t>(dataset);
}

void regenerate_x(ProblemData* data, Dataset dataset, uint64_t seed) {
  Rng rng(seed ^ 0x5851F42D4C957F2Dull);
  const int64_t K = data->shape.K;
  data->x.assign(static_cast<size_t>(K), 0);
  switch (dataset) {
    case Dataset::kRandom:
    case Dataset::kOutliers:
      for (auto& v : data->x) v = float_to_half(static_cast<float>(rng.uniform(-1.0, 1.0)));
      if (dataset == Dataset::kOutliers) {
        // Outlier channels as in real LLM activations. Their size is bounded so
        // that a kernel with fp16 dequantisation and fp32 accumulation stays
        // well inside atol where y is near zero, while fp16 accumulation fails.
        for (int i = 0; i < 8 && i < K; ++i) {
          double mag = rng.uniform(32.0, 128.0) * (rng.next() & 1 ? 1.0 : -1.0);
          data->x[static_cast<size_t>(rng.integer(0, K - 1))] =
              float_to_half(static_cast<float>(mag));
        }
      }
      break;
    case Dataset::kExactInteger:
      for (auto& v : data->x) v = float_to_half(static_cast<float>(rng.integer(-4, 4)));
      break;
    case Dataset::kOneHot:
      data->x[static_cast<size_t>(rng.integer(0, K - 1))] = float_to_half(1.0f);
      break;
  }
}

ProblemData generate_problem(const Shape& shape, Dataset dataset, uint64_t seed) {
  ProblemData d;
  d.shape = shape;
  CanonicalLayout layout = CanonicalLayout::of(shape);
  d.blob.assign(layout.total_bytes, 0);
  Rng rng(seed);
  // Nibbles: uniform 0..15, eight bytes per draw.
  const size_t qbytes = static_cast<size_t>(shape.N * (shape.K / 2));
  for (size_t i = 0; i < qbytes; i += 8) {
    uint64_t r = rng.next();
    std::memcpy(d.blob.data() + i, &r, std::min<size_t>(8, qbytes - i));
  }
  const size_t groups = static_cast<size_t>(shape.N * (shape.K / shape.G));
  auto* scales = reinterpret_cast<uint16_t*>(d.blob.data() + layout.scales_offset);
  auto* offsets = reinterpret_cast<uint16_t*>(d.blob.data() + layout.offsets_offset);
  for (size_t i = 0; i < groups; ++i) {
    float s, o;
    switch (dataset) {
      case Dataset::kExactInteger:
        s = std::ldexp(1.0f, -static_cast<int>(rng.integer(2, 4)));  // 1/4, 1/8, 1/16
        o = static_cast<float>(rng.integer(-4, 0));
        break;
      case Dataset::kOneHot:
        s = static_cast<float>(rng.uniform(0.05, 0.1));
        o = -8.0f * s + static_cast<float>(rng.uniform(-0.1, 0.1));
        break;
      default:
        s = static_cast<float>(rng.uniform(0.005, 0.02));
        o = -8.0f * s + static_cast<float>(rng.uniform(-0.01, 0.01));
        break;
    }
    scales[i] = float_to_half(s);
    offsets[i] = float_to_half(o);
  }
  regenerate_x(&d, dataset, seed);
  return d;
}

std::vector<double> reference_gemv(const ProblemData& d) {
  const int64_t K = d.shape.K, N = d.shape.N, G = d.shape.G, groups = K / G;
  std::vector<double> x(static_cast<size_t>(K));
  for (int64_t k = 0; k < K; ++k)
    x[static_cast<size_t>(k)] = half_to_float(d.x[static_cast<size_t>(k)]);
  // Σx per group is shared by every column: w = s·q + o gives
  // y[n] = Σ_g (s·Σ_k x·q + o·Σ_k x).
  std::vector<double> xsum(static_cast<size_t>(groups), 0.0);
  for (int64_t k = 0; k < K; ++k) xsum[static_cast<size_t>(k / G)] += x[static_cast<size_t>(k)];
  CanonicalLayout layout = CanonicalLayout::of(d.shape);
  const auto* scales = reinterpret_cast<const uint16_t*>(d.blob.data() + layout.scales_offset);
  const auto* offsets = reinterpret_cast<const uint16_t*>(d.blob.data() + layout.offsets_offset);
  std::vector<double> y(static_cast<size_t>(N));
  for (int64_t n = 0; n < N; ++n) {
    const uint8_t* row = d.blob.data() + n * (K / 2);
    double acc = 0;
    for (int64_t g = 0; g < groups; ++g) {
      double xq = 0;
      for (int64_t j = g * G / 2; j < (g + 1) * G / 2; ++j) {
        uint8_t b = row[j];
        xq +=
            x[static_cast<size_t>(2 * j)] * (b & 15) + x[static_cast<size_t>(2 * j + 1)] * (b >> 4);
      }
      size_t gi = static_cast<size_t>(n * groups + g);
      acc += half_to_float(scales[gi]) * xq +
             half_to_float(offsets[gi]) * xsum[static_cast<size_t>(g)];
    }
    y[static_cast<size_t>(n)] = acc;
  }
  return y;
}

ProblemData from_integer_zero(const IntegerZeroWeights& w, const std::vector<uint16_t>& x) {
  ProblemData d;
  d.shape = w.shape;
  d.x = x;
  const int64_t K = w.shape.K, N = w.shape.N, groups = K / w.shape.G;
  CanonicalLayout layout = CanonicalLayout::of(w.shape);
  d.blob.assign(layout.total_bytes, 0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; k += 2) {
      uint8_t lo = w.q[static_cast<size_t>(n * K + k)] & 15,
              hi = w.q[static_cast<size_t>(n * K + k + 1)] & 15;
      d.blob[static_cast<size_t>(n * (K / 2) + k / 2)] = static_cast<uint8_t>(lo | (hi << 4));
    }
  auto* scales = reinterpret_cast<uint16_t*>(d.blob.data() + layout.scales_offset);
  auto* offsets = reinterpret_cast<uint16_t*>(d.blob.data() + layout.offsets_offset);
  for (int64_t i = 0; i < N * groups; ++i) {
    scales[i] = w.scales[static_cast<size_t>(i)];
    // -z·s in fp32 is exact (4-bit z times an 11-bit mantissa); one rounding to fp16.
    offsets[i] = float_to_half(-static_cast<float>(w.zeros[static_cast<size_t>(i)]) *
                               half_to_float(w.scales[static_cast<size_t>(i)]));
  }
  return d;
}

std::string Comparison::describe() const {
  std::ostringstream out;
  if (ok) {
    out << "all elements within tolerance (max abs error " << max_abs_error << ")";
    return out.str();
  }
  out << bad << " element(s) outside tolerance";
  if (not_written > 0) out << ", " << not_written << " never written";
  out << "; first wrong index " << first_bad << ": expected " << expected << ", got " << got;
  return out.str();
}

Comparison compare_output(const std::vector<double>& ref, const float* got, Tolerance tol) {
  Comparison c;
  for (size_t i = 0; i < ref.size(); ++i) {
    double g = got[i];
    uint32_t bits;
    std::memcpy(&bits, &got[i], 4);
    double err = std::fabs(g - ref[i]);
    bool within = std::isfinite(g) && err <= tol.atol + tol.rtol * std::fabs(ref[i]);
    if (std::isfinite(g) && err > c.max_abs_error) c.max_abs_error = err;
    if (!within) {
      if (bits == kPoisonBits) ++c.not_written;
      if (c.bad == 0) {
        c.first_bad = static_cast<int64_t>(i);
        c.expected = ref[i];
        c.got = g;
      }
      ++c.bad;
    }
  }
  c.ok = c.bad == 0;
  return c;
}

bool zero_variance(const float* y, size_t n) {
  for (size_t i = 1; i < n; ++i)
    if (std::memcmp(&y[i], &y[0], 4) != 0) return false;
  return true;
}

}  // namespace kopt
