#include "problems/common/row_batch.h"

namespace kopt {

namespace {

// The decode batches the suites hold: continuous batching and speculative
// decoding see 2 to 16 rows; the engines switch kernel by M.
constexpr int64_t kSuiteRows[] = {2, 4, 8, 16};

}  // namespace

const Problem& RowBatchProblem::gemv() const { return *find_problem(gemv_id_); }

Shape RowBatchProblem::batch_shape(int64_t M, const Shape& gemv) const {
  Shape s{id(), gemv.vars};
  s.vars["M"] = M;
  return s;
}

Shape RowBatchProblem::gemv_shape(const Shape& s) const {
  Shape g{gemv_id_, s.vars};
  g.vars.erase("M");
  return g;
}

// The GEMV's variables in its order, then M: a batch-1 kernel receives the
// same first arguments (and computes only row 0, which verification sees).
std::vector<std::string> RowBatchProblem::variables() const {
  std::vector<std::string> v = gemv().variables();
  v.push_back("M");
  return v;
}

Status RowBatchProblem::validate_dims(const Shape& s) const {
  const int64_t M = s.var("M");
  if (M < 1 || M > kMaxRows)
    return Status::error("M must be between 1 and " + std::to_string(kMaxRows) + "; got " +
                         std::to_string(M));
  return gemv().validate(gemv_shape(s));
}

Status RowBatchProblem::parse_shape(const std::string& text, const ShapeDefaults& defaults,
                                    Shape* out) const {
  const size_t x = text.find('x');
  const std::string m = x == std::string::npos ? "" : text.substr(0, x);
  if (m.empty() || m.size() > 3 || m.find_first_not_of("0123456789") != std::string::npos)
    return Status::error("malformed shape '" + text +
                         "': expected MxKxN, e.g. 8x7168x9216 (M rows of x)");
  Shape g;
  if (Status s = gemv().parse_shape(text.substr(x + 1), defaults, &g); !s.ok())
    return Status::error("shape '" + text + "' (M = " + m + "): " + s.message());
  *out = batch_shape(std::stoll(m), g);
  if (Status v = validate_dims(*out); !v.ok())
    return Status::error("shape '" + text + "': " + v.message());
  return Status();
}

Status RowBatchProblem::validate(const Shape& s) const {
  const std::vector<std::string> names = variables();
  bool complete = s.problem == id() && s.vars.size() == names.size();
  std::string listed;
  for (const std::string& v : names) {
    complete = complete && s.vars.count(v);
    listed += (listed.empty() ? "" : ", ") + v;
  }
  if (!complete) return Status::error("a " + id() + " shape has exactly the variables " + listed);
  return validate_dims(s);
}

std::string RowBatchProblem::shape_name(const Shape& s) const {
  return std::to_string(s.var("M")) + "x" + gemv().shape_name(gemv_shape(s));
}

int64_t RowBatchProblem::x_elements(const Shape& s) const {
  return s.var("M") * gemv().x_elements(gemv_shape(s));
}
int64_t RowBatchProblem::y_elements(const Shape& s) const {
  return s.var("M") * gemv().y_elements(gemv_shape(s));
}
int64_t RowBatchProblem::weight_bytes(const Shape& s) const {
  return gemv().weight_bytes(gemv_shape(s));
}
int64_t RowBatchProblem::bytes_moved(const Shape& s) const {
  const Shape g = gemv_shape(s);
  const int64_t more_rows = s.var("M") - 1;
  return gemv().bytes_moved(g) + more_rows * (2 * gemv().x_elements(g) + 4 * gemv().y_elements(g));
}

std::vector<DatasetSpec> RowBatchProblem::datasets() const { return gemv().datasets(); }

ProblemData RowBatchProblem::generate(const Shape& s, size_t dataset, uint64_t seed) const {
  const Shape g = gemv_shape(s);
  ProblemData d = gemv().generate(g, dataset, seed);
  d.shape = s;
  const int64_t M = s.var("M");
  std::vector<uint16_t> rows;
  rows.reserve(static_cast<size_t>(M * gemv().x_elements(g)));
  for (int64_t m = 0; m < M; ++m) {
    ProblemData row;
    row.shape = g;
    fill_row(&row, dataset, seed + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(m));
    rows.insert(rows.end(), row.x.begin(), row.x.end());
  }
  d.x = std::move(rows);
  return d;
}

std::vector<double> RowBatchProblem::reference(const ProblemData& d) const {
  return reference_rows(gemv_shape(d.shape), d.weights, d.x.data(), d.shape.var("M"));
}

std::string RowBatchProblem::device_prelude() const { return gemv().device_prelude(); }

std::vector<Suite> RowBatchProblem::suites(const ShapeDefaults& defaults) const {
  std::vector<Suite> out;
  Suite all{"contest-batch",
            "the 14 contest shapes at M = 2, 4, 8 and 16 rows (continuous batching, "
            "speculative decoding)",
            {}};
  for (const Suite& base : gemv().suites(defaults))
    for (int64_t M : kSuiteRows) {
      Suite s{base.name + "-m" + std::to_string(M),
              base.description + ", at M = " + std::to_string(M) + " rows",
              {}};
      for (const SuiteShape& e : base.shapes)
        s.shapes.push_back({batch_shape(M, e.shape), e.role + ", M = " + std::to_string(M)});
      if (base.name == "contest")
        all.shapes.insert(all.shapes.end(), s.shapes.begin(), s.shapes.end());
      out.push_back(std::move(s));
    }
  out.insert(out.begin(), std::move(all));
  return out;
}

}  // namespace kopt
