// The CLI's commands as library functions, one file per verb (eval_command,
// bench_command, check_amd_command, run_command, db_command, export; the small
// ones in commands.cpp): apps/kopt_main.cpp parses arguments and calls these,
// nothing more. Each returns the process exit code.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sandbox/contract/problem.h"
#include "sandbox/contract/status.h"
#include "sandbox/contract/target_resources.h"

namespace kopt {

// Exit codes (docs/commands.md, "Exit codes").
enum ExitCode : int {
  kExitOk = 0,
  kExitRejected = 1,  // the candidate failed (eval), or a seed failed (bench)
  kExitUsage = 2,     // bad arguments or input files
  kExitNoDevice = 3,  // a GPU was needed and there is none
  kExitInternal = 4,
  kExitProposers =
      5,  // a run stopped early: its proposers kept failing (e.g. model endpoint unreachable)
};

// The values shape texts may leave out: --group is the group size G of the
// problems that have one (a problem ignores defaults it has no variable for).
ShapeDefaults shape_defaults(int64_t group);

struct EvalCommand {
  std::string problem;  // empty: the default problem
  std::string file;
  std::vector<std::string> shapes;
  int64_t group = 64;
  std::map<std::string, int64_t> params;
  int trials = 2;
  bool time = true;
  std::optional<uint64_t> seed;
  bool json = false;
};
int run_eval(const EvalCommand& cmd);
// `kopt profile FILE --shape S [--param N=V]`: the candidate under the
// vendor profiler, as the search profiles new bests (roofline line + counters).
int run_profile(const EvalCommand& cmd, double time_limit_s);

struct BenchCommand {
  std::string problem;  // empty: the default problem
  std::string suite;    // "contest" or empty
  std::vector<std::string> shapes;
  int64_t group = 64;
  std::vector<std::string> seeds;  // empty: all built-in seeds
  int trials = 1;
  std::optional<uint64_t> seed;
  std::string json_out;      // full results as JSON
  std::string markdown_out;  // the table as Markdown
  std::string manifest;      // an export MANIFEST.json: a "tuned" column
  bool baselines = false;    // add the vendor BLAS fp16 baseline column
  // Add the read-only yardstick column (kReadOnlyBaseline): what reading the
  // shape's bytes costs under the same protocol, with launch and ramp.
  bool read_only = false;
  // Parameter values for the seeds that declare them: a number, or the name
  // of a shape variable ("MR=M": each batched shape's rows), "NAME=VALUE".
  std::vector<std::string> params;
};
int run_bench(const BenchCommand& cmd);

int run_doctor();

// The shapes a command names (--shape texts, or a --suite) of a problem
// (empty: the default); an error when there are none. Eval, profile, bench.
Status parse_shapes(const std::string& problem_id, const std::vector<std::string>& texts,
                    const std::string& suite, int64_t group, std::vector<Shape>* out);

// A gfx906 check's resources in one line (or why it was not compiled).
std::string describe_amd(const TargetResources& a);

// Prints "kopt <verb>: <message>" on stderr and returns `code`: how a
// command says what went wrong.
int command_error(const std::string& verb, const std::string& message, int code);

// A whole file; "cannot read PATH" when it cannot be opened.
Status read_text_file(const std::string& path, std::string* out);

// The user's seed, or a fresh one from the OS and the clock.
uint64_t fresh_seed(const std::optional<uint64_t>& seed);

// `kopt suites [NAME]`: every suite of the problem with its shape count and
// description, or one suite's shapes with what each is and the bytes a call
// moves.
int run_suites(const std::string& problem, const std::string& name, int64_t group);

// `kopt problems`: the registered problems, their shape syntax, variables,
// seeds and suites.
int run_problems();

// Compiles candidate files for gfx906 and prints their resources; with a
// database, checks every candidate recorded "not checked" there (runs made
// on a machine without the AMD toolchain) and writes the results back.
// Files are candidates of `problem` (empty: the default problem).
int run_check_amd(const std::string& problem, const std::vector<std::string>& files,
                  const std::string& db_path);

}  // namespace kopt
