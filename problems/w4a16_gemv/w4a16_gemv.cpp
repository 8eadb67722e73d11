#include "problems/w4a16_gemv/w4a16_gemv.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "problems/common/blob_layout.h"
#include "problems/common/decode_projections.h"
#include "problems/common/device_io_hooks.h"

namespace kopt {
namespace embedded {
extern const char* const kW4a16SeedNaive;
extern const char* const kW4a16SeedVec;
extern const char* const kW4a16SeedSplitK;
extern const char* const kW4a16SeedDot;
extern const char* const kW4a16SeedGen;
extern const char* const kW4a16Task;
extern const char* const kW4a16ShippedManifest;
extern const char* const kW4a16DevicePrelude;
extern const char* const kW4a16DeviceReference;
extern const char* const kW4a16DeviceDequantize;
}  // namespace embedded

namespace w4a16 {

namespace {

constexpr int64_t kMaxDim = int64_t{1} << 20;

}  // namespace

void fill_x(ProblemData* data, Dataset dataset, uint64_t seed) {
  Rng rng(seed ^ 0x5851F42D4C957F2Dull);
  const int64_t K = dims(data->shape).K;
  data->x.assign(static_cast<size_t>(K), 0);
  switch (dataset) {
    case Dataset::kRandom:
    case Dataset::kOutliers:
      for (auto& v : data->x) v = float_to_half(rng.random_x());
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

Shape shape(int64_t K, int64_t N, int64_t G) { return Shape{kId, {{"K", K}, {"N", N}, {"G", G}}}; }

Dims dims(const Shape& s) { return Dims{s.var("K"), s.var("N"), s.var("G")}; }

std::vector<Shape> contest_suite() {
  std::vector<Shape> shapes;
  for (const Projection& p : contest_projections()) shapes.push_back(shape(p.K, p.N, 64));
  return shapes;
}

namespace {
// The canonical arrays in the blob's order: the one description of the
// weights' layout (CanonicalLayout and the library's create read it).
const std::vector<LibrarySpec::WeightArray>& canonical_arrays() {
  static const std::vector<LibrarySpec::WeightArray> arrays = {
      {"qweight", "N * (K / 2)", "uint8 [N][K/2], low nibble = even k"},
      {"scales", "N * (K / G) * 2", "fp16 [N][K/G]"},
      {"offsets", "N * (K / G) * 2", "fp16 [N][K/G]"},
  };
  return arrays;
}
}  // namespace

CanonicalLayout CanonicalLayout::of(const Shape& s) {
  const Dims d = dims(s);
  const std::vector<size_t> at =
      blob_offsets(canonical_arrays(), Shape{kId, {{"K", d.K}, {"N", d.N}, {"G", d.G}}});
  CanonicalLayout l;
  l.qweight_offset = at[0];
  l.scales_offset = at[1];
  l.offsets_offset = at[2];
  l.total_bytes = at[3];
  return l;
}

uint8_t q(const ProblemData& data, int64_t n, int64_t k) {
  uint8_t b = data.weights[static_cast<size_t>(n * (dims(data.shape).K / 2) + k / 2)];
  return (k & 1) ? (b >> 4) : (b & 15);
}
uint16_t scale_bits(const ProblemData& data, int64_t n, int64_t g) {
  const Dims d = dims(data.shape);
  uint16_t v;
  std::memcpy(&v,
              data.weights.data() + CanonicalLayout::of(data.shape).scales_offset +
                  2 * static_cast<size_t>(n * (d.K / d.G) + g),
              2);
  return v;
}
uint16_t offset_bits(const ProblemData& data, int64_t n, int64_t g) {
  const Dims d = dims(data.shape);
  uint16_t v;
  std::memcpy(&v,
              data.weights.data() + CanonicalLayout::of(data.shape).offsets_offset +
                  2 * static_cast<size_t>(n * (d.K / d.G) + g),
              2);
  return v;
}

ProblemData generate_problem(const Shape& shape, Dataset dataset, uint64_t seed) {
  ProblemData d;
  d.shape = shape;
  const Dims dm = dims(shape);
  CanonicalLayout layout = CanonicalLayout::of(shape);
  d.weights.assign(layout.total_bytes, 0);
  Rng rng(seed);
  // Nibbles: uniform 0..15, eight bytes per draw.
  const size_t qbytes = static_cast<size_t>(dm.N * (dm.K / 2));
  for (size_t i = 0; i < qbytes; i += 8) {
    uint64_t r = rng.next();
    std::memcpy(d.weights.data() + i, &r, std::min<size_t>(8, qbytes - i));
  }
  const size_t groups = static_cast<size_t>(dm.N * (dm.K / dm.G));
  auto* scales = reinterpret_cast<uint16_t*>(d.weights.data() + layout.scales_offset);
  auto* offsets = reinterpret_cast<uint16_t*>(d.weights.data() + layout.offsets_offset);
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
  fill_x(&d, dataset, seed);
  return d;
}

std::vector<double> reference_gemv(const ProblemData& d) {
  return reference_rows(d.shape, d.weights, d.x.data(), 1);
}

std::vector<double> reference_rows(const Shape& shape, const std::vector<uint8_t>& weights,
                                   const uint16_t* x_rows, int64_t rows) {
  const Dims dm = dims(shape);
  const int64_t K = dm.K, N = dm.N, G = dm.G, groups = K / G;
  CanonicalLayout layout = CanonicalLayout::of(shape);
  const auto* scales = reinterpret_cast<const uint16_t*>(weights.data() + layout.scales_offset);
  const auto* offsets = reinterpret_cast<const uint16_t*>(weights.data() + layout.offsets_offset);
  std::vector<double> y(static_cast<size_t>(rows * N));
  std::vector<double> x(static_cast<size_t>(K)), xsum(static_cast<size_t>(groups));
  for (int64_t m = 0; m < rows; ++m) {
    for (int64_t k = 0; k < K; ++k)
      x[static_cast<size_t>(k)] = half_to_float(x_rows[static_cast<size_t>(m * K + k)]);
    // Σx per group is shared by every column: w = s·q + o gives
    // y[n] = Σ_g (s·Σ_k x·q + o·Σ_k x).
    std::fill(xsum.begin(), xsum.end(), 0.0);
    for (int64_t k = 0; k < K; ++k) xsum[static_cast<size_t>(k / G)] += x[static_cast<size_t>(k)];
    for (int64_t n = 0; n < N; ++n) {
      const uint8_t* row = weights.data() + n * (K / 2);
      double acc = 0;
      for (int64_t g = 0; g < groups; ++g) {
        double xq = 0;
        for (int64_t j = g * G / 2; j < (g + 1) * G / 2; ++j) {
          uint8_t b = row[j];
          xq += x[static_cast<size_t>(2 * j)] * (b & 15) +
                x[static_cast<size_t>(2 * j + 1)] * (b >> 4);
        }
        size_t gi = static_cast<size_t>(n * groups + g);
        acc += half_to_float(scales[gi]) * xq +
               half_to_float(offsets[gi]) * xsum[static_cast<size_t>(g)];
      }
      y[static_cast<size_t>(m * N + n)] = acc;
    }
  }
  return y;
}

ProblemData from_integer_zero(const IntegerZeroWeights& w, const std::vector<uint16_t>& x) {
  ProblemData d;
  d.shape = w.shape;
  d.x = x;
  const Dims dm = dims(w.shape);
  const int64_t K = dm.K, N = dm.N, groups = K / dm.G;
  CanonicalLayout layout = CanonicalLayout::of(w.shape);
  d.weights.assign(layout.total_bytes, 0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; k += 2) {
      uint8_t lo = w.q[static_cast<size_t>(n * K + k)] & 15,
              hi = w.q[static_cast<size_t>(n * K + k + 1)] & 15;
      d.weights[static_cast<size_t>(n * (K / 2) + k / 2)] = static_cast<uint8_t>(lo | (hi << 4));
    }
  auto* scales = reinterpret_cast<uint16_t*>(d.weights.data() + layout.scales_offset);
  auto* offsets = reinterpret_cast<uint16_t*>(d.weights.data() + layout.offsets_offset);
  for (int64_t i = 0; i < N * groups; ++i) {
    scales[i] = w.scales[static_cast<size_t>(i)];
    // -z·s in fp32 is exact (4-bit z times an 11-bit mantissa); one rounding to fp16.
    offsets[i] = float_to_half(-static_cast<float>(w.zeros[static_cast<size_t>(i)]) *
                               half_to_float(w.scales[static_cast<size_t>(i)]));
  }
  return d;
}

namespace {

Status validate_dims(const Shape& s) {
  const Dims d = dims(s);
  if (d.K < 1 || d.N < 1) return Status::error("shape " + s.name() + ": K and N must be >= 1");
  if (d.K > kMaxDim || d.N > kMaxDim)
    return Status::error("shape " + s.name() + ": K and N must be <= 1048576");
  if (d.G < 2 || d.G % 2 != 0)
    return Status::error("shape " + s.name() + ": the group size must be even and >= 2");
  if (d.K % d.G != 0) {
    // Suggest the largest even group size up to 128 that divides K.
    int64_t g = 0;
    for (int64_t c = 2; c <= 128 && c <= d.K; c += 2)
      if (d.K % c == 0) g = c;
    std::string hint = g ? "; name one that does with /gG, e.g. " + std::to_string(d.K) + "x" +
                               std::to_string(d.N) + "/g" + std::to_string(g)
                         : "; K must be even";
    return Status::error("shape " + s.name() + ": group size " + std::to_string(d.G) +
                         " does not divide K = " + std::to_string(d.K) + hint);
  }
  return Status();
}

// The suites' shapes at group size G; a projection G does not divide is left
// out (and counted in the description), repeats once.
Suite to_suite(std::string name, std::string description, const std::vector<Projection>& ps,
               int64_t G) {
  Suite s{std::move(name), std::move(description), {}};
  std::set<std::string> seen;
  int dropped = 0;
  for (const Projection& p : ps) {
    const Shape sh = shape(p.K, p.N, G);
    if (!validate_dims(sh).ok()) {
      ++dropped;
      continue;
    }
    if (seen.insert(sh.name()).second) s.shapes.push_back({sh, p.role});
  }
  if (dropped)
    s.description +=
        " (" + std::to_string(dropped) + " shapes left out: group size does not divide K)";
  return s;
}

int64_t group_of(const ShapeDefaults& defaults) {
  auto it = defaults.find("G");
  return it == defaults.end() ? 64 : it->second;
}

class W4a16Gemv : public Problem {
 public:
  std::string id() const override { return kId; }
  std::string summary() const override {
    return "W4A16 GEMV of LLM decoding: fp16 x (K) times int4 weights with fp16 scale and "
           "offset per group of G along K (N outputs) -> fp32 y";
  }
  std::vector<std::string> variables() const override { return {"K", "N", "G"}; }
  std::string shape_syntax() const override { return "KxN or KxN/gG (G defaults to --group)"; }

  Status parse_shape(const std::string& text, const ShapeDefaults& defaults,
                     Shape* out) const override {
    int64_t G = group_of(defaults);
    std::string body = text;
    size_t slash = text.find("/g");
    if (slash != std::string::npos) {
      body = text.substr(0, slash);
      std::string g = text.substr(slash + 2);
      if (g.empty() || g.find_first_not_of("0123456789") != std::string::npos || g.size() > 7)
        return Status::error("malformed shape '" + text + "': expected KxN or KxN/gG");
      G = std::stoll(g);
    }
    size_t x = body.find('x');
    if (x == std::string::npos || x == 0 || x + 1 == body.size())
      return Status::error("malformed shape '" + text + "': expected KxN, e.g. 7168x9216");
    std::string k = body.substr(0, x), n = body.substr(x + 1);
    for (const std::string& part : {k, n})
      if (part.find_first_not_of("0123456789") != std::string::npos || part.size() > 9)
        return Status::error("malformed shape '" + text + "': K and N must be positive integers");
    const Shape s = shape(std::stoll(k), std::stoll(n), G);
    if (Status v = validate_dims(s); !v.ok()) return v;  // it names the shape
    *out = s;
    return Status();
  }
  Status validate(const Shape& s) const override {
    if (s.problem != kId || s.vars.size() != 3 || !s.vars.count("K") || !s.vars.count("N") ||
        !s.vars.count("G"))
      return Status::error("a " + std::string(kId) + " shape has exactly K, N and G");
    return validate_dims(s);
  }
  std::string shape_name(const Shape& s) const override {
    const Dims d = dims(s);
    std::string name = std::to_string(d.K) + "x" + std::to_string(d.N);
    if (d.G != 64) name += "/g" + std::to_string(d.G);
    return name;
  }

  int64_t x_elements(const Shape& s) const override { return dims(s).K; }
  int64_t y_elements(const Shape& s) const override { return dims(s).N; }
  int64_t weight_bytes(const Shape& s) const override {
    return static_cast<int64_t>(CanonicalLayout::of(s).total_bytes);
  }
  int64_t bytes_moved(const Shape& s) const override {
    const Dims d = dims(s);
    return d.N * d.K / 2 + 4 * d.N * (d.K / d.G) + 2 * d.K + 4 * d.N;
  }

  std::vector<DatasetSpec> datasets() const override {
    // A peer's fp16-rounded weights (2^-11 relative) times an outlier of x
    // (up to 128) can miss the bound by a little on "outliers".
    return {{"random", false}, {"outliers", true}, {"exact-integer", false}, {"one-hot", false}};
  }
  ProblemData generate(const Shape& s, size_t dataset, uint64_t seed) const override {
    return generate_problem(s, static_cast<Dataset>(std::min<size_t>(dataset, kOneHot)), seed);
  }
  std::vector<double> reference(const ProblemData& data) const override {
    return reference_gemv(data);
  }

  std::string device_prelude() const override {
    return std::string(embedded::kDeviceIoHooks) + embedded::kW4a16DevicePrelude;
  }
  std::string device_reference() const override { return embedded::kW4a16DeviceReference; }
  std::string device_dequantize() const override { return embedded::kW4a16DeviceDequantize; }

  std::vector<Suite> suites(const ShapeDefaults& defaults) const override {
    const int64_t G = group_of(defaults);
    std::vector<Suite> out;
    out.push_back(to_suite(
        "contest",
        "DatenLord W4A16 GEMV contest (November 2025): 14 shapes, scored by the sum of kernel "
        "times",
        contest_projections(), G));
    for (const ProjectionSuite& m : model_projection_suites())
      out.push_back(to_suite(m.name, m.description, m.projections, G));
    return out;
  }
  const std::vector<Seed>& seeds() const override {
    static const std::vector<Seed> seeds = {
        {"naive", embedded::kW4a16SeedNaive},   {"vec", embedded::kW4a16SeedVec},
        {"splitk", embedded::kW4a16SeedSplitK}, {"dot", embedded::kW4a16SeedDot},
        {"gen", embedded::kW4a16SeedGen},
    };
    return seeds;
  }
  std::string task_prompt() const override { return embedded::kW4a16Task; }

  LibrarySpec library() const override {
    LibrarySpec spec;
    spec.name = "kopt_w4a16";
    spec.out_dir = "kernels/w4a16_gemv/generated";
    spec.rule_variables = {"K", "N"};
    spec.shipped_manifest = embedded::kW4a16ShippedManifest;
    const std::map<std::string, int64_t> x16 = {{"XREG", 0},  {"XBITS", 16}, {"XMAX", 1},
                                                {"WARPS", 8}, {"ROWS", 2},   {"DEPTH", 2},
                                                {"OCC", 4},   {"MINB", 3},   {"HINT", 1}};
    auto x16_with = [&](std::map<std::string, int64_t> changed) {
      changed.insert(x16.begin(), x16.end());  // keeps the changed values
      return changed;
    };
    // The first supported one serves a shape the rule has no data near, so
    // the order runs from the usually fastest to the one that runs anything.
    spec.generic_variants = {
        {"generic_gen", "gen", {}, "generator seed's defaults: x in shared memory, K up to ~14k"},
        // x at 16 bits in shared memory, 8 warps a block, two columns a lane
        // group, four blocks an SM: the structure of the tuned 5120x6144
        // entry that keeps x in shared memory, and of the settings of gen
        // probed on long-K shapes at batch 1 the fastest (PERFORMANCE.md)
        // but for two weight loads in flight instead of three, which spill on
        // gfx906 (3-7% slower on the H200). 16-bit x takes 80 bytes of shared
        // memory a chunk of 32 (24-bit, 112), so one slice holds K up to ~19k, and
        // slices of K across the grid serve longer rows, where the split-K
        // seed ran at half the read bandwidth or less.
        {"generic_gen_x16", "gen", x16, "x at 16 bits in shared memory: K up to ~19k"},
        {"generic_gen_x16_split2", "gen", x16_with({{"SPLIT", 2}, {"OCC", 3}}),
         "the same, K split in two across the grid: K up to ~39k"},
        {"generic_gen_x16_split4", "gen", x16_with({{"SPLIT", 4}, {"OCC", 3}}),
         "the same, K split in four across the grid: K up to ~78k"},
        // The same in lane groups of 16 and of 8 lanes instead of a warp: a
        // lane reads 32 weights a step, so where K has fewer chunks of 32 than
        // a warp has lanes (K < 1024) a whole warp over one column group
        // leaves lanes idle; and where N is wide they measured faster too (a
        // warp then works more columns at once). On the H200's 92 probes
        // they were the fastest on 28 (16 lanes) and 11 (8 lanes), all of them
        // of N 5120 and more or K 512 and less: 256x65536 13.79 -> 6.05 us,
        // 8192x8192 14.07 -> 12.04 (PERFORMANCE.md).
        {"generic_gen_x16_lpr16", "gen", x16_with({{"LPR", 16}}),
         "the same in lane groups of 16: short K or wide N"},
        {"generic_gen_x16_lpr8", "gen", x16_with({{"LPR", 8}}),
         "the same in lane groups of 8: K of a few hundred or N in the tens of thousands"},
        {"generic_splitk", "splitk", {}, "split-K seed's defaults: few columns, and any K"},
        {"generic_dot", "dot", {}, "dot seed's defaults"},
        {"generic_vec", "vec", {}, "vec seed's defaults"},
        {"generic_naive", "naive", {}, "any even K with G dividing K"},
    };
    // Every suite, and shapes at the edges of what the suites cover (long
    // K, very few columns, very short K).
    for (const Suite& s : suites({}))
      for (const auto& e : s.shapes) spec.add_probe_shape(e.shape);
    const int64_t edges[][2] = {{65536, 256},  {65536, 4096}, {32768, 64}, {16384, 16},
                                {4096, 32},    {1024, 16},    {256, 4096}, {256, 65536},
                                {49152, 1024}, {1024, 1024},  {8192, 128}, {2048, 64},
                                {16384, 512}};
    for (const auto& e : edges) spec.add_probe_shape(shape(e[0], e[1], 64));
    spec.summary =
        "y = x · W with x fp16 (length K), W int4 group-quantized in kopt's canonical format "
        "(w = scale · q + offset, one fp16 scale and offset per group of G consecutive k "
        "of a channel), y fp32 (length N).";
    spec.weight_arrays = canonical_arrays();
    spec.valid_shape = "K >= 2 && K % 2 == 0 && N >= 1 && G >= 2 && G % 2 == 0 && K % G == 0";
    spec.valid_shape_text = "K >= 2 even, N >= 1, G even and dividing K";
    return spec;
  }
};

}  // namespace

std::unique_ptr<Problem> make_problem() { return std::make_unique<W4a16Gemv>(); }

}  // namespace w4a16
}  // namespace kopt
