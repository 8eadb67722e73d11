// `kopt check-amd`: candidate files or a database's candidates for gfx906.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "agent/commands.h"
#include "agent/export.h"
#include "agent/profiler.h"
#include "agent/proposer.h"
#include "db/database.h"
#include "sandbox/client/sandbox.h"
#include "sandbox/contract/candidate.h"
#include "sandbox/contract/problem.h"

namespace kopt {

namespace {

int check_amd_database(Sandbox& sandbox, const std::string& db_path) {
  std::unique_ptr<Database> db;
  Status s = Database::open_existing(db_path, &db);
  if (!s.ok()) {
    fmt::print(stderr, "kopt check-amd: {}\n", s.message());
    return kExitUsage;
  }
  std::vector<RunRecord> runs;
  db->list_runs(&runs);
  int checked = 0, not_portable = 0;
  for (const auto& run : runs) {
    std::vector<CandidateRecord> candidates;
    db->candidates_of_run(run.id, &candidates);
    for (const auto& c : candidates) {
      std::vector<EvaluationRecord> evals;
      db->evaluations_of(c.id, &evals);
      // One line per candidate and shape (the build depends on both).
      std::set<std::string> reported;
      for (const auto& e : evals) {
        EvalResult record =
            eval_result_from_json(nlohmann::json::parse(e.record_json, nullptr, false));
        if (record.targets[kOfflineTarget].checked) continue;
        // Built as it was evaluated: for the evaluation's shape (of the
        // run's problem, whose device helpers it compiles with).
        Shape shape;
        if (Status ps = parse_shape_key(record.shape, &shape); !ps.ok()) {
          fmt::print(stderr, "kopt check-amd: evaluation {}: {}\n", e.id, ps.message());
          continue;
        }
        TargetResources a = sandbox.check_amd(*c.parsed, shape);
        if (!a.checked) continue;
        record.targets[kOfflineTarget] = a;
        if (!(s = db->update_evaluation_record(e.id, to_json(record).dump())).ok()) {
          fmt::print(stderr, "kopt check-amd: {}\n", s.message());
          return kExitInternal;
        }
        if (reported.insert(record.shape).second) {
          fmt::print("candidate {} ({} {}) on {}: {}\n", c.id, c.name, c.params_json, shape.name(),
                     describe_amd(a));
          ++checked;
          not_portable += a.compiled ? 0 : 1;
        }
      }
    }
  }
  fmt::print("{} build(s) (candidate and shape) checked for gfx906, {} not portable\n", checked,
             not_portable);
  return not_portable ? kExitRejected : kExitOk;
}

}  // namespace

int run_check_amd(const std::string& problem, const std::vector<std::string>& files,
                  const std::string& db_path) {
  Sandbox sandbox;
  if (!sandbox.amd_toolchain().available()) {
    fmt::print(stderr,
               "kopt check-amd: no clang++-15 with ROCm device libraries on this machine (install: "
               "see README)\n");
    return kExitNoDevice;
  }
  if (!db_path.empty()) return check_amd_database(sandbox, db_path);
  int exit_code = kExitOk;
  for (const auto& file : files) {
    std::string source;
    Status s = read_text_file(file, &source);
    if (!s.ok()) {
      fmt::print(stderr, "kopt check-amd: {}\n", s.message());
      return kExitUsage;
    }
    // The file's problem: the one asked for, else the problem whose folder
    // (problems/<id>/ or seeds/<id>/) holds it or whose seed it is, else the default (said, since
    // its device helpers are the ones the file is built with).
    std::string file_problem = problem;
    std::string assumed;
    if (file_problem.empty()) {
      for (const Problem* p : registered_problems()) {
        const bool in_folder = file.find("problems/" + p->id() + "/") != std::string::npos ||
                               file.find("seeds/" + p->id() + "/") != std::string::npos;
        const bool is_seed = std::any_of(p->seeds().begin(), p->seeds().end(),
                                         [&](const Seed& seed) { return seed.source == source; });
        if (in_folder || is_seed) {
          file_problem = p->id();
          break;
        }
      }
      if (file_problem.empty())
        assumed = " (checked as " + registered_problems().front()->id() +
                  ", the default problem: give --problem ID for another)";
    }
    // A file has no shape: built as for any shape (no size macros).
    // The user's file enters as a candidate here.
    TargetResources a = sandbox.check_amd(*enter_candidate(source, {}), Shape{file_problem, {}});
    fmt::print("{}: {}{}\n", file, describe_amd(a), assumed);
    if (!a.compiled) {
      exit_code = kExitRejected;
      if (!a.log.empty()) fmt::print("{}\n", a.log.substr(0, 4000));
    }
  }
  return exit_code;
}

}  // namespace kopt
