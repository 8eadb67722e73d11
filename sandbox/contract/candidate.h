// The candidate contract: what every proposer produces and the sandbox runs.
//
// A candidate is one HIP source file. Its first block comment, opening with
// "kopt:", holds a JSON object that declares how to launch it:
//
//   /* kopt:
//   { "name": "naive",
//     "launches": [{"kernel": "gemv", "grid": ["cdiv(N, ROWS)"], "block": ["ROWS * WARP"]}],
//     "relayout": {"kernel": "relayout", "grid": [...], "block": [...]},   (optional)
//     "packed_bytes": "N * K / 2",          (size of the relayout's output)
//     "workspace_bytes": "0",
//     "requires": ["K % 256 == 0"],         (shapes it supports; others are skipped)
//     "params": {"ROWS": {"values": [1, 2, 4, 8], "default": 4}},
//     "nondeterministic": false }
//   */
//
// Expressions (sandbox/contract/expr.h) see the shape's variables (K, N, G for
// W4A16), WARP (the device's warp size), SMS (multiprocessors) and every
// parameter; parameters also reach the source as macros (-DROWS=4). Kernel
// signatures are fixed by role (README "Candidate contract"), the shape's
// variables following as int in the problem's order:
//   call kernels:  (const __half* x, const kopt_u8* w, float* y, float* ws, int vars...)
//   relayout:      (const kopt_u8* canonical, kopt_u8* packed, int vars...)
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sandbox/contract/expr.h"
#include "sandbox/contract/problem.h"
#include "sandbox/contract/status.h"

namespace kopt {

// The contract's expressions are parsed once, with the contract; each keeps
// its text (Expression::text) for messages and the contract's JSON.
struct LaunchSpec {
  std::string kernel;
  std::array<Expression, 3> grid{Expression::constant(1), Expression::constant(1),
                                 Expression::constant(1)};
  std::array<Expression, 3> block{Expression::constant(1), Expression::constant(1),
                                  Expression::constant(1)};
  Expression shared_bytes = Expression::constant(0);
};

struct TunableParam {
  std::string name;
  std::vector<int64_t> values;
  int64_t default_value = 0;
};

// A named value of the contract ("let"): an expression over the shape's
// variables, WARP, SMS, the parameters and the named values before it, which
// the contract's other expressions use by name, so that a quantity several
// of them share (a kernel's slices of K: its grid, shared memory and
// workspace) is written once. The requirements that name no named value are
// checked first: the named values must be defined (no division by zero)
// wherever those hold, as the launch code `kopt export` writes computes them
// there.
struct NamedValue {
  std::string name;
  Expression value;
};

struct CandidateSpec {
  std::string name;
  std::string description;
  std::vector<NamedValue> lets;      // in order: each may use those before it
  std::vector<LaunchSpec> launches;  // per call, in order; all are timed
  std::optional<LaunchSpec> relayout;
  Expression packed_bytes = Expression::constant(0);
  Expression workspace_bytes = Expression::constant(0);
  // As written, but those that name no named value first (stable): the first
  // `requires_before_lets` are checked before the named values are evaluated,
  // the others after them (CandidateSpec::lets).
  std::vector<Expression> requires_;
  size_t requires_before_lets = 0;
  std::vector<TunableParam> params;
  bool nondeterministic = false;
};

struct Candidate {
  std::string source;
  CandidateSpec spec;
  std::map<std::string, int64_t> params;  // the chosen value of every declared parameter
};

// Parses the contract block of `source`; `overrides` set parameter values
// (each must be declared and among its values). Missing values take defaults.
// Called by enter_candidate only (and tests): everything else carries the
// parsed value.
Status parse_candidate(const std::string& source, const std::map<std::string, int64_t>& overrides,
                       Candidate* out);

// A candidate as kopt carries it, from where its text enters to the shipped
// library. Its text is parsed once, by enter_candidate, where it enters: a
// problem's seed (seed_candidate), a model's answer, a row read from the
// database, a file a user names, a request the worker reads. Proposals,
// candidate records and evaluation requests hold the value, and what follows
// reads it (with_values for other parameter values) instead of parsing again.
struct CandidateValue {
  // The source always; the parsed contract when `contract` is ok; every
  // declared parameter's value when `status` is ok.
  Candidate candidate;
  std::map<std::string, int64_t> asked;  // the parameter values as given (what is stored)
  Status contract;                       // the contract block: ok, or why it does not parse
  Status status;                         // the contract and the values together
  // candidate_key of the candidate; of the source alone when `status` is not
  // ok (a stable key for a candidate the sandbox will reject).
  std::string key;
  bool ok() const { return status.ok(); }
  const std::string& source() const { return candidate.source; }
};
using CandidateRef = std::shared_ptr<const CandidateValue>;

// The one place a candidate's text is parsed. A source's contract is parsed
// once and kept (up to 256 sources; past that the kept ones are dropped and
// parsed again when they come back), so entering the same source with other
// values, or reading many rows of one kernel, parses it once.
CandidateRef enter_candidate(const std::string& source,
                             const std::map<std::string, int64_t>& values);
// A seed as a candidate with `values` over its defaults.
CandidateRef seed_candidate(const Seed& seed, const std::map<std::string, int64_t>& values = {});
// The same candidate with other parameter values (as parse_candidate takes
// them), its contract not parsed again.
CandidateRef with_values(const CandidateValue& from, const std::map<std::string, int64_t>& values);

// Parameter values as stored and sent ({"ROWS": 4}) and back; text that is not
// a JSON object of integers gives what it has of them.
std::map<std::string, int64_t> params_from_json(const std::string& json_text);
std::string params_to_json(const std::map<std::string, int64_t>& params);

// The parsed candidate with other parameter values: its defaults, then
// `overrides` (as parse_candidate), without parsing the contract again; for
// a proposer that weighs many values of one source.
Status with_params(const Candidate& parsed, const std::map<std::string, int64_t>& overrides,
                   Candidate* out);

// The contract block as JSON text, for prompts and error messages.
std::string contract_json(const CandidateSpec& spec);

struct DeviceLimits {
  int64_t warp = 32;
  int64_t sms = 1;
  int64_t max_threads_per_block = 1024;
  int64_t max_shared_bytes = 48 * 1024;
};

struct ResolvedLaunch {
  std::string kernel;
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t shared_bytes = 0;
};

struct LaunchPlan {
  bool supported = true;  // false: the shape fails a "requires" clause
  std::string unsupported_reason;
  std::vector<ResolvedLaunch> launches;
  std::optional<ResolvedLaunch> relayout;
  int64_t packed_bytes = 0;
  int64_t workspace_bytes = 0;
};

// Evaluates every expression for one shape and device. Errors are contract
// errors (bad expression, zero-size grid, too many threads...).
Status plan_launches(const Candidate& candidate, const Shape& shape, const DeviceLimits& limits,
                     LaunchPlan* plan);

// Compile-time macros for the chosen parameters ("-DROWS=4" ...), sorted by name.
std::vector<std::string> parameter_defines(const Candidate& candidate);

// Compile-time macros for the shape a kernel is built for ("-DKOPT_SHAPE_K=7168"
// ...), sorted by variable name; none for a shape without variables. Every
// per-shape build (evaluation, gfx906 check, exported entry) defines them, so
// a kernel may fold the sizes into constants; a build for any shape (the
// library's generic variants) defines none, and the kernel must then read
// its arguments.
std::vector<std::string> shape_defines(const Shape& shape);
// Every macro of a per-shape build as (name, value): the parameter values,
// then the shape's sizes ("KOPT_SHAPE_K", 7168). The one list of a build's
// definitions: the GPU evaluation and the gfx906 check pass it as options
// (build_defines), an exported entry writes it into its source as #defines,
// so each builds the kernel that was timed.
std::vector<std::pair<std::string, int64_t>> build_macros(const Candidate& candidate,
                                                          const Shape& shape);
// build_macros as compiler options: parameter_defines, then shape_defines.
std::vector<std::string> build_defines(const Candidate& candidate, const Shape& shape);

// A short stable identity of source + parameter values (hex of a 64-bit hash).
std::string candidate_key(const Candidate& candidate);

// The source as code only: comments removed (the /* kopt: */ contract kept,
// since it decides how the kernel runs), string literals kept, every run of
// white space one space. Two sources equal here compile to the same kernel,
// so a child equal to an evaluated one needs no evaluation of its own.
std::string normalized_source(const std::string& source);

}  // namespace kopt
