// A kernel problem as the sandbox core sees it: a plug-in (ARCHITECTURE.md,
// "A problem is a plug-in"). The core knows shapes as named variables, the
// four buffers of a call by role (x: the fp16 activations, the weights, y:
// the fp32 outputs, a workspace) and their sizes, input sets by name, a
// reference, a tolerance and the bytes a call must move. Everything else of a
// problem (its shape grammar, data, reference, device helpers, suites, seeds,
// task text, library) lives in the problem's own folder under problems/,
// registered at start by the executables (problems/registry.h).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sandbox/contract/status.h"

namespace kopt {

// Values of a shape's variables ("K" -> 7168), as contract expressions and
// kernel arguments see them.
using ShapeVars = std::map<std::string, int64_t>;

struct Shape {
  std::string problem;  // the id of the problem it belongs to
  ShapeVars vars;
  // A variable's value; 0 when the shape has no such variable.
  int64_t var(const std::string& name) const;
  // The problem's text form ("7168x9216"); "name=value,..." when the problem
  // is not registered.
  std::string name() const;
  // "problem:name", e.g. "w4a16_gemv:7168x9216": unique across problems,
  // the form the database and results store.
  std::string key() const;
  bool operator==(const Shape& o) const { return problem == o.problem && vars == o.vars; }
};

// Values a shape text may leave out, e.g. {"G": 64} from `--group 64`.
using ShapeDefaults = std::map<std::string, int64_t>;

// One input set of the verification protocol, e.g. "random" or "outliers".
struct DatasetSpec {
  std::string name;
  // A built-in peer (baseline) is measured, not judged: it may miss the
  // tolerance on this set (a stress set for fp16 arithmetic) and still be
  // timed; the miss is recorded. No candidate is ever exempt.
  bool baseline_may_miss = false;
};

// One instance of a problem: the activations and the canonical weights.
struct ProblemData {
  Shape shape;
  std::vector<uint16_t> x;       // fp16 bits, x_elements
  std::vector<uint8_t> weights;  // the canonical weights, weight_bytes
};

// A named list of shapes, e.g. a model's projections.
struct SuiteShape {
  Shape shape;
  std::string role;  // what the shape is, e.g. "tp2 qkv_proj"
};
struct Suite {
  std::string name;         // e.g. "llama3-8b"
  std::string description;  // one line
  std::vector<SuiteShape> shapes;
};

// A hand-written kernel the search starts from: a complete candidate
// (sandbox/contract/candidate.h).
struct Seed {
  std::string name;
  std::string source;
};

// The accuracy rule: |got - ref| <= atol + rtol·|ref| for every element.
struct Tolerance {
  double atol = 1e-2;
  double rtol = 1e-2;
};

// A variant the shipped library carries for shapes no tuned entry serves:
// a seed with parameter values.
struct GenericVariant {
  std::string symbol;  // generic_<label>
  std::string seed;
  std::map<std::string, int64_t> params;
  std::string purpose;
};

// What `kopt export` needs to write a problem's library.
struct LibrarySpec {
  std::string name;     // "kopt_w4a16": the C API prefix and the generated folder's owner
  std::string out_dir;  // default export folder, relative to the source tree
  // The generic variants, in the order tried where the rule has no data.
  std::vector<GenericVariant> generic_variants;
  // Shapes where `kopt export --measure-generic` times the generic variants
  // by default.
  std::vector<Shape> probe_shapes;
  // Adds `shape` to probe_shapes unless it is there already (suites share
  // shapes, and edges may repeat a suite's).
  void add_probe_shape(const Shape& shape) {
    if (std::find(probe_shapes.begin(), probe_shapes.end(), shape) == probe_shapes.end())
      probe_shapes.push_back(shape);
  }
  // The two variables the generic rule measures distance in (log scale):
  // what sets a shape's cost, e.g. K and N of a GEMV.
  std::array<std::string, 2> rule_variables;
  // The shipped library's export manifest (MANIFEST.json, embedded at build
  // time; "" where the problem ships none): runs start from its kernels.
  std::string shipped_manifest;

  // The library's C API, generated from these at build time
  // (kernels/common/template; `kopt export` writes them to generated/):
  // what it computes, for its header; the canonical weight arrays its create
  // takes, in the blob's order (each on a 256-byte boundary), with their
  // sizes as contract expressions over the shape variables; and the shapes
  // create accepts (a contract expression, and the same in words). Empty
  // arrays: the problem ships no library of its own.
  struct WeightArray {
    std::string name;   // the create parameter: "qweight"
    std::string bytes;  // "N * (K / 2)"
    std::string doc;    // "uint8 [N][K/2], low nibble = even k"
  };
  std::string summary;
  std::vector<WeightArray> weight_arrays;
  std::string valid_shape;       // "K >= 2 && K % 2 == 0 && N >= 1"
  std::string valid_shape_text;  // "K >= 2 even, N >= 1"
};

class Problem {
 public:
  virtual ~Problem() = default;

  virtual std::string id() const = 0;       // "w4a16_gemv"
  virtual std::string summary() const = 0;  // one line for `kopt problems`

  // Shapes. The variables in the order kernels receive them as int
  // arguments after the four pointers (x, weights, y, workspace).
  virtual std::vector<std::string> variables() const = 0;
  virtual std::string shape_syntax() const = 0;  // e.g. "KxN or KxN/gG"
  // Parses and validates a shape text; `defaults` fill what the text leaves out.
  virtual Status parse_shape(const std::string& text, const ShapeDefaults& defaults,
                             Shape* out) const = 0;
  // Whether the variables make a shape of this problem (sizes, divisibility).
  virtual Status validate(const Shape& shape) const = 0;
  virtual std::string shape_name(const Shape& shape) const = 0;

  // Buffers of one call, by role.
  virtual int64_t x_elements(const Shape& shape) const = 0;    // fp16 activations
  virtual int64_t y_elements(const Shape& shape) const = 0;    // fp32 outputs
  virtual int64_t weight_bytes(const Shape& shape) const = 0;  // the canonical weights
  // Bytes a call must move at least (the physics floor and GB/s use it).
  virtual int64_t bytes_moved(const Shape& shape) const = 0;

  // Verification. datasets()[0] is the plain random set; the timing screen
  // draws its weight copies from it.
  virtual std::vector<DatasetSpec> datasets() const = 0;
  virtual ProblemData generate(const Shape& shape, size_t dataset, uint64_t seed) const = 0;
  // The exact result in fp64 from the fp16 values of x and the weights.
  virtual std::vector<double> reference(const ProblemData& data) const = 0;
  virtual Tolerance tolerance() const { return Tolerance{}; }

  // Device code. `device_prelude` is appended to kopt's prelude for every
  // candidate (helpers for the canonical weight layout). `device_reference`
  // defines kopt's trusted reference, used to check every timed call:
  //   KOPT_KERNEL void kopt_reference(const __half* const* xs,
  //       const kopt_u8* const* weights, double* refs, <int per variable>)
  // launched with grid (y_elements, calls) and 128 threads; block (i, c)
  // writes refs[c * y_elements + i] from xs[c] and weights[c].
  virtual std::string device_prelude() const = 0;
  virtual std::string device_reference() const = 0;
  // The vendor-BLAS baseline (empty when the problem has none): a kernel
  //   KOPT_KERNEL void kopt_dequantize_fp16(const kopt_u8* canonical,
  //       __half* dense, <int per variable>)
  // run over cdiv(dense_rows·dense_cols, 256) blocks of 256 threads, writing
  // dense [rows][cols] with y = dense · x; the vendor's GEMV is then timed.
  virtual std::string device_dequantize() const { return ""; }
  virtual void dense_dims(const Shape& shape, int64_t* rows, int64_t* cols) const {
    *rows = y_elements(shape);
    *cols = x_elements(shape);
  }

  // The search: named shape suites, seeds, and the task text of the prompt
  // ({{shape}}, {{bytes}} and {{<variable>}} are filled in).
  virtual std::vector<Suite> suites(const ShapeDefaults& defaults) const = 0;
  virtual const std::vector<Seed>& seeds() const = 0;
  virtual std::string task_prompt() const = 0;

  virtual LibrarySpec library() const = 0;
};

// The problems the executables registered, in registration order (the first
// is the default). Registering an id twice keeps the first.
void register_problem(std::unique_ptr<Problem> problem);
const std::vector<const Problem*>& registered_problems();
const Problem* find_problem(const std::string& id);
// Like find_problem, with an error naming the registered ids; an empty id
// names the default problem.
Status problem_by_id(const std::string& id, const Problem** out);

// A shape of `problem_id` (empty: the default problem) from its text.
Status parse_shape(const std::string& problem_id, const std::string& text,
                   const ShapeDefaults& defaults, Shape* out);
// The shape a key names (Shape::key); an error for a malformed key or an
// unregistered problem.
Status parse_shape_key(const std::string& key, Shape* out);
// The registered problem of the shape, and its validation.
Status validate_shape(const Shape& shape);
// The problem's bytes_moved; 0 for a shape of no registered problem.
int64_t shape_bytes(const Shape& shape);

// A seed of the problem by name; nullptr when there is none.
const Seed* find_seed(const Problem& problem, const std::string& name);
// The problem's seed names, comma-separated (for messages).
std::string seed_names(const Problem& problem);

// Named suites of a problem; an unknown name is an error listing the known ones.
Status find_suite(const Problem& problem, const std::string& name, const ShapeDefaults& defaults,
                  Suite* out);
// The shapes a command names: a suite (empty for none) followed by each text.
Status resolve_shapes(const Problem& problem, const std::string& suite,
                      const std::vector<std::string>& texts, const ShapeDefaults& defaults,
                      std::vector<Shape>* out);

// fp16 <-> fp32 on the host, round to nearest even.
uint16_t float_to_half(float value);
float half_to_float(uint16_t bits);

// The data seed of one verification input set. An evaluation request carries
// a fresh seed (drawn per evaluation unless the user fixes it), so no kernel
// can be fitted to inputs it saw before.
uint64_t verification_seed(uint64_t request_seed, int trial, size_t dataset);

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

// True when every element is the same value (a constant output cannot be the
// result of random data).
bool zero_variance(const float* y, size_t n);

// A small, fast, seedable generator (splitmix64), so every run repeats.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next();
  double uniform(double lo, double hi);
  int64_t integer(int64_t lo, int64_t hi);  // inclusive
  // x ~ U(-1, 1) on the grid the timed calls' x come from (random_x_value in
  // sandbox/worker/device.h: r / 2048, |r| <= 2047), so a kernel cannot tell the
  // verification inputs from the timed ones by their values.
  float random_x() { return static_cast<float>(integer(-2047, 2047)) / 2048.0f; }

 private:
  uint64_t state_;
};

}  // namespace kopt
