#include "problems/w8a16_gemv/w8a16_gemv.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <string>

#include "problems/common/blob_layout.h"
#include "problems/common/decode_projections.h"
#include "problems/common/device_io_hooks.h"

namespace kopt {
namespace embedded {
extern const char* const kW8a16SeedNaive;
extern const char* const kW8a16SeedVec;
extern const char* const kW8a16SeedSplitK;
extern const char* const kW8a16Task;
extern const char* const kW8a16ShippedManifest;
extern const char* const kW8a16DevicePrelude;
extern const char* const kW8a16DeviceReference;
extern const char* const kW8a16DeviceDequantize;
}  // namespace embedded

namespace w8a16 {

namespace {

// The canonical arrays in the blob's order: the one description of the
// weights' layout (CanonicalLayout and the library's create read it).
const std::vector<LibrarySpec::WeightArray>& canonical_arrays() {
  static const std::vector<LibrarySpec::WeightArray> arrays = {
      {"qweight", "N * K", "int8 [N][K]"},
      {"scales", "N * 2", "fp16 [N]"},
  };
  return arrays;
}

constexpr int64_t kMaxDim = int64_t{1} << 20;

int64_t K_of(const Shape& s) { return s.var("K"); }
int64_t N_of(const Shape& s) { return s.var("N"); }

Status validate_dims(const Shape& s) {
  const int64_t K = K_of(s), N = N_of(s);
  if (K < 1 || N < 1) return Status::error("shape " + s.name() + ": K and N must be >= 1");
  if (K > kMaxDim || N > kMaxDim)
    return Status::error("shape " + s.name() + ": K and N must be <= 1048576");
  return Status();
}

Suite to_suite(std::string name, std::string description, const std::vector<Projection>& ps) {
  Suite s{std::move(name), std::move(description), {}};
  std::set<std::string> seen;
  for (const Projection& p : ps) {
    const Shape sh = shape(p.K, p.N);
    if (seen.insert(sh.name()).second) s.shapes.push_back({sh, p.role});
  }
  return s;
}

class W8a16Gemv : public Problem {
 public:
  std::string id() const override { return kId; }
  std::string summary() const override {
    return "W8A16 GEMV of LLM decoding: fp16 x (K) times int8 weights with one fp16 scale per "
           "output channel (N outputs) -> fp32 y";
  }
  std::vector<std::string> variables() const override { return {"K", "N"}; }
  std::string shape_syntax() const override { return "KxN"; }

  Status parse_shape(const std::string& text, const ShapeDefaults&, Shape* out) const override {
    const size_t x = text.find('x');
    if (x == std::string::npos || x == 0 || x + 1 == text.size())
      return Status::error("malformed shape '" + text + "': expected KxN, e.g. 4096x14336");
    const std::string k = text.substr(0, x), n = text.substr(x + 1);
    for (const std::string& part : {k, n})
      if (part.find_first_not_of("0123456789") != std::string::npos || part.size() > 9)
        return Status::error("malformed shape '" + text + "': K and N must be positive integers");
    const Shape s = shape(std::stoll(k), std::stoll(n));
    if (Status v = validate_dims(s); !v.ok())
      return Status::error("shape '" + text + "': " + v.message());
    *out = s;
    return Status();
  }
  Status validate(const Shape& s) const override {
    if (s.problem != kId || s.vars.size() != 2 || !s.vars.count("K") || !s.vars.count("N"))
      return Status::error("a " + std::string(kId) + " shape has exactly K and N");
    return validate_dims(s);
  }
  std::string shape_name(const Shape& s) const override {
    return std::to_string(K_of(s)) + "x" + std::to_string(N_of(s));
  }

  int64_t x_elements(const Shape& s) const override { return K_of(s); }
  int64_t y_elements(const Shape& s) const override { return N_of(s); }
  int64_t weight_bytes(const Shape& s) const override {
    return static_cast<int64_t>(CanonicalLayout::of(s).total_bytes);
  }
  int64_t bytes_moved(const Shape& s) const override {
    const int64_t K = K_of(s), N = N_of(s);
    return N * K + 2 * N + 2 * K + 4 * N;
  }

  std::vector<DatasetSpec> datasets() const override {
    // A peer's fp16-rounded weights times an outlier of x can miss the bound.
    return {{"random", false},
            {"outliers", true},
            {"exact-integer", false},
            {"one-hot", false},
            {"extremes", false}};
  }
  ProblemData generate(const Shape& s, size_t dataset, uint64_t seed) const override {
    return generate_problem(s, static_cast<Dataset>(std::min<size_t>(dataset, kExtremes)), seed);
  }
  std::vector<double> reference(const ProblemData& data) const override {
    return reference_gemv(data);
  }

  std::string device_prelude() const override {
    return std::string(embedded::kDeviceIoHooks) + embedded::kW8a16DevicePrelude;
  }
  std::string device_reference() const override { return embedded::kW8a16DeviceReference; }
  std::string device_dequantize() const override { return embedded::kW8a16DeviceDequantize; }

  std::vector<Suite> suites(const ShapeDefaults&) const override {
    std::vector<Suite> out;
    out.push_back(to_suite("contest",
                           "the DatenLord contest's 14 projection shapes with int8 weights "
                           "(the W4A16 contest's K x N)",
                           contest_projections()));
    for (const ProjectionSuite& m : model_projection_suites())
      out.push_back(to_suite(m.name, m.description, m.projections));
    return out;
  }
  const std::vector<Seed>& seeds() const override {
    static const std::vector<Seed> seeds = {{"naive", embedded::kW8a16SeedNaive},
                                            {"vec", embedded::kW8a16SeedVec},
                                            {"splitk", embedded::kW8a16SeedSplitK}};
    return seeds;
  }
  std::string task_prompt() const override { return embedded::kW8a16Task; }

  LibrarySpec library() const override {
    LibrarySpec spec;
    spec.name = "kopt_w8a16";
    spec.out_dir = "kernels/w8a16_gemv/generated";
    spec.rule_variables = {"K", "N"};
    spec.shipped_manifest = embedded::kW8a16ShippedManifest;
    spec.generic_variants = {
        {"generic_vec", "vec", {}, "vec seed's defaults: 16-byte int8 loads, K a multiple of 16"},
        {"generic_splitk", "splitk", {}, "split-K seed's defaults: few channels, long rows"},
        {"generic_naive", "naive", {}, "any K and N"},
    };
    for (const Suite& s : suites({}))
      for (const auto& e : s.shapes) spec.add_probe_shape(e.shape);
    const int64_t edges[][2] = {{65536, 256}, {32768, 64}, {16384, 16},  {4096, 32},
                                {1024, 16},   {256, 4096}, {256, 65536}, {1024, 1024},
                                {8192, 128},  {2048, 64},  {16384, 512}, {1000, 1000}};
    for (const auto& e : edges) spec.add_probe_shape(shape(e[0], e[1]));
    spec.summary =
        "y = x · W with x fp16 (length K), W int8 (N output channels of K signed weights "
        "each, row n holding channel n) with one fp16 scale per channel, y fp32 (length N): "
        "y[n] = scale[n] * sum_k x[k] * q[n][k].";
    spec.weight_arrays = canonical_arrays();
    spec.valid_shape = "K >= 1 && N >= 1";
    spec.valid_shape_text = "K >= 1, N >= 1";
    return spec;
  }
};

}  // namespace

Shape shape(int64_t K, int64_t N) { return Shape{kId, {{"K", K}, {"N", N}}}; }

CanonicalLayout CanonicalLayout::of(const Shape& s) {
  const std::vector<size_t> at =
      blob_offsets(canonical_arrays(), Shape{kId, {{"K", K_of(s)}, {"N", N_of(s)}}});
  CanonicalLayout l;
  l.scales_offset = at[1];
  l.total_bytes = at[2];
  return l;
}

int8_t q(const ProblemData& data, int64_t n, int64_t k) {
  return static_cast<int8_t>(data.weights[static_cast<size_t>(n * K_of(data.shape) + k)]);
}

void fill_x(ProblemData* d, Dataset dataset, uint64_t seed) {
  Rng rng(seed ^ 0x5851F42D4C957F2Dull);
  const int64_t K = K_of(d->shape);
  d->x.assign(static_cast<size_t>(K), 0);
  switch (dataset) {
    case kExactInteger:
      for (auto& v : d->x) v = float_to_half(static_cast<float>(rng.integer(-4, 4)));
      break;
    case kOneHot:
      d->x[static_cast<size_t>(rng.integer(0, K - 1))] = float_to_half(1.0f);
      break;
    case kExtremes:
      // Every weight's error adds up with the same sign (see Dataset).
      for (auto& v : d->x) v = float_to_half(1.0f);
      break;
    default:
      for (auto& v : d->x) v = float_to_half(rng.random_x());
      if (dataset == kOutliers)
        // Outlier channels as in real LLM activations; fp16 accumulation of
        // their products fails the tolerance, fp32 accumulation passes.
        for (int i = 0; i < 8 && i < K; ++i) {
          const double mag = rng.uniform(32.0, 128.0) * (rng.next() & 1 ? 1.0 : -1.0);
          d->x[static_cast<size_t>(rng.integer(0, K - 1))] = float_to_half(static_cast<float>(mag));
        }
      break;
  }
}

ProblemData generate_problem(const Shape& shape, Dataset dataset, uint64_t seed) {
  ProblemData d;
  d.shape = shape;
  const CanonicalLayout layout = CanonicalLayout::of(shape);
  const int64_t K = K_of(shape), N = N_of(shape);
  d.weights.assign(layout.total_bytes, 0);
  Rng rng(seed);
  const size_t qbytes = static_cast<size_t>(N * K);
  if (dataset == kExtremes) {
    for (size_t i = 0; i < qbytes; ++i) d.weights[i] = (rng.next() & 1) ? 0x80 : 0x7F;
  } else {
    for (size_t i = 0; i < qbytes; i += 8) {  // uniform bytes: -128..127
      const uint64_t r = rng.next();
      std::memcpy(d.weights.data() + i, &r, std::min<size_t>(8, qbytes - i));
    }
  }
  auto* scales = reinterpret_cast<uint16_t*>(d.weights.data() + layout.scales_offset);
  for (int64_t n = 0; n < N; ++n) {
    // Per-channel scales as a symmetric int8 quantiser gives them for LLM
    // weights: max|w| / 127 with max|w| of 0.06..0.25. (At 8x larger scales,
    // |w| up to 1, the rounding of fp16-dequantised weights alone exceeds
    // the 1e-2 bound over K = 7168.) Powers of two for exact results.
    const float s = dataset == kExactInteger || dataset == kExtremes
                        ? std::ldexp(1.0f, -static_cast<int>(rng.integer(4, 7)))
                        : static_cast<float>(rng.uniform(0.0005, 0.002));
    scales[n] = float_to_half(s);
  }
  fill_x(&d, dataset, seed);
  return d;
}

std::vector<double> reference_gemv(const ProblemData& d) {
  return reference_rows(d.shape, d.weights, d.x.data(), 1);
}

std::vector<double> reference_rows(const Shape& shape, const std::vector<uint8_t>& weights,
                                   const uint16_t* x_rows, int64_t rows) {
  const int64_t K = K_of(shape), N = N_of(shape);
  const auto* scales =
      reinterpret_cast<const uint16_t*>(weights.data() + CanonicalLayout::of(shape).scales_offset);
  std::vector<double> x(static_cast<size_t>(K));
  std::vector<double> y(static_cast<size_t>(rows * N));
  for (int64_t m = 0; m < rows; ++m) {
    for (int64_t k = 0; k < K; ++k) x[static_cast<size_t>(k)] = half_to_float(x_rows[m * K + k]);
    for (int64_t n = 0; n < N; ++n) {
      const auto* row = reinterpret_cast<const int8_t*>(weights.data()) + n * K;
      double acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += x[static_cast<size_t>(k)] * row[k];
      y[static_cast<size_t>(m * N + n)] = half_to_float(scales[n]) * acc;
    }
  }
  return y;
}

std::unique_ptr<Problem> make_problem() { return std::make_unique<W8a16Gemv>(); }

}  // namespace w8a16
}  // namespace kopt
