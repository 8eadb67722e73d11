// `kopt run`, `kopt demo` and `kopt report`: the optimisation run, its
// demonstration without a GPU, and the report over a database.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kopt {

struct RunCommand {
  std::string problem;  // empty: the default problem
  std::string shape;
  std::string suite;  // instead of shape: one run per shape of this suite, in turn
  int64_t group = 64;
  std::optional<int64_t> budget;
  std::string time;                 // "30m"
  std::vector<std::string> models;  // names from the config (or the environment)
  std::optional<int64_t> resume;
  std::string db_path;      // overrides the config
  std::string config_path;  // default: kopt.toml if present
  std::optional<uint64_t> seed;
  std::optional<int> trials;
  std::optional<int> transfers;  // overrides [run] transfers
  // A new run also starts from the shipped library's kernels where the
  // database has too few (LoopOptions::shipped); off in the demo, whose
  // kernels run simulated on the CPU.
  bool library_starts = true;
  bool no_mutator = false;
  std::string prompts_dir;  // prompt templates to use instead of the built-in ones
  std::string gpus;         // "all" or "0,1": one worker per GPU (overrides [workers])
  // Candidates a new run evaluates after the seeds: "SEED" or
  // "SEED:NAME=V,NAME=V", or a MANIFEST.json (its entries for the shape).
  std::vector<std::string> starts;
  std::vector<std::string> worker_command;  // tests: a fake worker
  std::string verb = "run";                 // the command its messages name (run, demo)
};
int run_optimize(const RunCommand& cmd);
// `kopt run --suite NAME`: run_optimize for each of the suite's shapes in
// turn (each its own run, with the whole budget); stops at the first shape
// whose run cannot start, and exits with the first failure's code.
int run_optimize_suite(const RunCommand& cmd);

// `kopt demo`: a short run on the host fake, for a machine without a GPU,
// then the browser over it (best, lineage). Labelled everywhere: kernels are
// simulated and times modelled, so it shows the workflow, not results.
int run_demo(RunCommand cmd);

struct ReportCommand {
  std::string db_path = "kopt.db";
  int64_t run = 0;                  // 0: every run
  std::string problem;              // of the shapes (empty: the default problem)
  std::vector<std::string> shapes;  // empty: every shape
  std::string out_dir;              // index.html is written there
};
// `kopt report`: agent/report.h.
int run_report(const ReportCommand& cmd);

}  // namespace kopt
