#include "problems/w4a16_batch/w4a16_batch.h"

#include <algorithm>
#include <set>

#include "problems/common/decode_projections.h"
#include "problems/w4a16_gemv/w4a16_gemv.h"

namespace kopt {
namespace embedded {
extern const char* const kW4a16BatchSeedRows;
extern const char* const kW4a16BatchSeedTile;
extern const char* const kW4a16BatchSeedKlanes;
extern const char* const kW4a16BatchSeedNcols;
extern const char* const kW4a16BatchSeedXrows;
extern const char* const kW4a16BatchTask;
extern const char* const kW4a16BatchDeviceReference;
}  // namespace embedded

namespace w4a16_batch {

namespace {

// The decode batches the suites hold: continuous batching and speculative
// decoding see 2 to 16 rows; the engines switch kernel by M.
constexpr int64_t kSuiteRows[] = {2, 4, 8, 16};

// The GEMV shape that has the same weights.
Shape gemv_shape(const Shape& s) { return w4a16::shape(s.var("K"), s.var("N"), s.var("G")); }

Status validate_dims(const Shape& s) {
  const int64_t M = s.var("M");
  if (M < 1 || M > kMaxRows)
    return Status::error("M must be between 1 and " + std::to_string(kMaxRows) + "; got " +
                         std::to_string(M));
  return find_problem(w4a16::kId)->validate(gemv_shape(s));
}

int64_t group_of(const ShapeDefaults& defaults) {
  auto it = defaults.find("G");
  return it == defaults.end() ? 64 : it->second;
}

class W4a16Batch : public Problem {
 public:
  std::string id() const override { return kId; }
  std::string summary() const override {
    return "W4A16 at decode batches: fp16 X (M rows of K) times the int4 weights of w4a16_gemv "
           "(N outputs) -> fp32 Y (M rows of N), the weights read once for all rows";
  }
  // K, N, G in w4a16_gemv's order, then M: a batch-1 kernel receives the
  // same first arguments (and computes only row 0, which verification sees).
  std::vector<std::string> variables() const override { return {"K", "N", "G", "M"}; }
  std::string shape_syntax() const override {
    return "MxKxN or MxKxN/gG (M rows, 1 to 64; G defaults to --group)";
  }

  Status parse_shape(const std::string& text, const ShapeDefaults& defaults,
                     Shape* out) const override {
    const size_t x = text.find('x');
    const std::string m = x == std::string::npos ? "" : text.substr(0, x);
    if (m.empty() || m.size() > 3 || m.find_first_not_of("0123456789") != std::string::npos)
      return Status::error("malformed shape '" + text +
                           "': expected MxKxN, e.g. 8x7168x9216 (M rows of x)");
    Shape gemv;
    if (Status s = find_problem(w4a16::kId)->parse_shape(text.substr(x + 1), defaults, &gemv);
        !s.ok())
      return Status::error("shape '" + text + "' (M = " + m + "): " + s.message());
    *out = shape(std::stoll(m), gemv.var("K"), gemv.var("N"), gemv.var("G"));
    if (Status v = validate_dims(*out); !v.ok())
      return Status::error("shape '" + text + "': " + v.message());
    return Status();
  }
  Status validate(const Shape& s) const override {
    if (s.problem != kId || s.vars.size() != 4 || !s.vars.count("M") || !s.vars.count("K") ||
        !s.vars.count("N") || !s.vars.count("G"))
      return Status::error("a " + std::string(kId) + " shape has exactly M, K, N and G");
    return validate_dims(s);
  }
  std::string shape_name(const Shape& s) const override {
    return std::to_string(s.var("M")) + "x" + find_problem(w4a16::kId)->shape_name(gemv_shape(s));
  }

  int64_t x_elements(const Shape& s) const override { return s.var("M") * s.var("K"); }
  int64_t y_elements(const Shape& s) const override { return s.var("M") * s.var("N"); }
  int64_t weight_bytes(const Shape& s) const override {
    return static_cast<int64_t>(w4a16::CanonicalLayout::of(gemv_shape(s)).total_bytes);
  }
  // The weights once, and every row of x and y.
  int64_t bytes_moved(const Shape& s) const override {
    const int64_t K = s.var("K"), N = s.var("N"), G = s.var("G"), M = s.var("M");
    return N * K / 2 + 4 * N * (K / G) + M * (2 * K + 4 * N);
  }

  std::vector<DatasetSpec> datasets() const override {
    return find_problem(w4a16::kId)->datasets();
  }
  // The weights of w4a16_gemv's input set; each row of x drawn from the same
  // set with its own seed (so rows differ, and one-hot rows are hot at
  // different k).
  ProblemData generate(const Shape& s, size_t dataset, uint64_t seed) const override {
    const w4a16::Dataset set = static_cast<w4a16::Dataset>(std::min<size_t>(dataset, 3));
    ProblemData d = w4a16::generate_problem(gemv_shape(s), set, seed);
    d.shape = s;
    const int64_t M = s.var("M");
    std::vector<uint16_t> rows;
    rows.reserve(static_cast<size_t>(M * s.var("K")));
    for (int64_t m = 0; m < M; ++m) {
      ProblemData row;
      row.shape = gemv_shape(s);
      w4a16::fill_x(&row, set, seed + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(m));
      rows.insert(rows.end(), row.x.begin(), row.x.end());
    }
    d.x = std::move(rows);
    return d;
  }
  std::vector<double> reference(const ProblemData& d) const override {
    return w4a16::reference_rows(gemv_shape(d.shape), d.weights, d.x.data(), d.shape.var("M"));
  }

  std::string device_prelude() const override { return find_problem(w4a16::kId)->device_prelude(); }
  std::string device_reference() const override { return embedded::kW4a16BatchDeviceReference; }

  // The W4A16 suites (contest and models) at each decode batch of
  // kSuiteRows, one suite per M ("contest-m8"), and all of them together
  // ("contest-batch").
  std::vector<Suite> suites(const ShapeDefaults& defaults) const override {
    std::vector<Suite> out;
    const int64_t G = group_of(defaults);
    ShapeDefaults gemv_defaults = defaults;
    gemv_defaults["G"] = G;
    Suite all{"contest-batch",
              "the 14 contest shapes at M = 2, 4, 8 and 16 rows (continuous batching, "
              "speculative decoding)",
              {}};
    for (const Suite& base : find_problem(w4a16::kId)->suites(gemv_defaults))
      for (int64_t M : kSuiteRows) {
        Suite s{base.name + "-m" + std::to_string(M),
                base.description + ", at M = " + std::to_string(M) + " rows",
                {}};
        for (const SuiteShape& e : base.shapes)
          s.shapes.push_back({shape(M, e.shape.var("K"), e.shape.var("N"), e.shape.var("G")),
                              e.role + ", M = " + std::to_string(M)});
        if (base.name == "contest")
          all.shapes.insert(all.shapes.end(), s.shapes.begin(), s.shapes.end());
        out.push_back(std::move(s));
      }
    out.insert(out.begin(), std::move(all));
    return out;
  }
  const std::vector<Seed>& seeds() const override {
    static const std::vector<Seed> seeds = {{"rows", embedded::kW4a16BatchSeedRows},
                                            {"tile", embedded::kW4a16BatchSeedTile},
                                            {"klanes", embedded::kW4a16BatchSeedKlanes},
                                            {"ncols", embedded::kW4a16BatchSeedNcols},
                                            {"xrows", embedded::kW4a16BatchSeedXrows}};
    return seeds;
  }
  std::string task_prompt() const override { return embedded::kW4a16BatchTask; }

  // Served today by kopt_w4a16_gemm, which builds the klanes and xrows seeds
  // themselves (kernels/w4a16_gemv/kopt_w4a16_batched.hip); `kopt export` of tuned
  // batched kernels per (M, K, N) into a library of their own is not built.
  LibrarySpec library() const override {
    LibrarySpec spec;
    spec.name = "kopt_w4a16_batch";
    spec.out_dir = "kernels/w4a16_batch/generated";
    spec.rule_variables = {"K", "N"};
    spec.generic_variants = {{"generic_tile", "tile", {}, "the tile seed's defaults"},
                             {"generic_rows", "rows", {}, "any shape"}};
    return spec;
  }
};

}  // namespace

Shape shape(int64_t M, int64_t K, int64_t N, int64_t G) {
  return Shape{kId, {{"K", K}, {"N", N}, {"G", G}, {"M", M}}};
}

std::unique_ptr<Problem> make_problem() { return std::make_unique<W4a16Batch>(); }

}  // namespace w4a16_batch
}  // namespace kopt
