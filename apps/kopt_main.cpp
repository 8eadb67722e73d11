// kopt: the command-line front end. Parses arguments and calls the libraries.
#include <CLI/CLI.hpp>
#include <cctype>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "agent/commands.h"
#include "agent/db_command.h"
#include "agent/export.h"
#include "agent/proposer.h"
#include "agent/run_command.h"
#include "problems/registry.h"

namespace {

// "NAME=VALUE" pairs for --param.
bool parse_params(const std::vector<std::string>& items, std::map<std::string, int64_t>* out,
                  std::string* error) {
  for (const auto& item : items)
    if (!kopt::parse_param_assignment(item, out, error)) {
      *error = "--param " + *error;
      return false;
    }
  return true;
}

// The argument parser's message said once, in kopt's words.
std::string explain_parse_error(const std::string& what, const std::string& commands) {
  auto after = [&](const std::string& marker, size_t from) {
    const size_t at = what.find(marker, from);
    return at == std::string::npos ? std::string::npos : at + marker.size();
  };
  // "--budget: Value -1 not in range 1 to 1000"
  if (size_t v = after(": Value ", 0); v != std::string::npos) {
    const size_t range = what.find(" not in range ", v), to = what.find(" to ", v);
    if (range != std::string::npos && to != std::string::npos)
      return what.substr(0, v - 8) + " must be between " +
             what.substr(range + 14, to - range - 14) + " and " + what.substr(to + 4) + "; got " +
             what.substr(v, range - v);
  }
  // "Could not convert: ids = abc"
  if (size_t c = after("Could not convert: ", 0); c != std::string::npos) {
    const size_t eq = what.find(" = ", c);
    if (eq != std::string::npos)
      return "'" + what.substr(eq + 3) + "' is not a number (" + what.substr(c, eq - c) + ")";
  }
  if (what.rfind("A subcommand is required", 0) == 0)
    return "a command is required: one of " + commands;
  // "The following argument was not expected: x" (or arguments ... were)
  if (size_t x = after(" not expected: ", 0); x != std::string::npos)
    return "unexpected argument '" + what.substr(x) + "'";
  std::string text = what;
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

}  // namespace

// One candidate file on shapes, with parameter values: `kopt eval` and
// `kopt profile` take the same.
void add_candidate_options(CLI::App* cmd, kopt::EvalCommand* c, std::vector<std::string>* params) {
  cmd->add_option("file", c->file, "candidate HIP source with its kopt: contract")->required();
  cmd->add_option("--shape", c->shapes, "a shape of the problem, e.g. KxN; repeatable")->required();
  cmd->add_option("--group", c->group, "group size G when the shape names none")->default_val(64);
  cmd->add_option("--param", *params, "NAME=VALUE for a declared tunable parameter; repeatable");
}

int main(int argc, char** argv) {
  kopt::register_builtin_problems();
  CLI::App app{"kopt: verified, timed GPU kernel optimisation (kopt problems lists the problems)"};
  int gpu_index = -1;
  std::string problem;  // --problem, on every command that takes shapes
  app.require_subcommand(1);
  app.set_version_flag("--version", "kopt " KOPT_VERSION);

  kopt::EvalCommand eval;
  std::vector<std::string> eval_params;
  uint64_t eval_seed = 0;
  auto* eval_cmd =
      app.add_subcommand("eval", "Verify and time one candidate file on one or more shapes");
  add_candidate_options(eval_cmd, &eval, &eval_params);
  eval_cmd->add_option("--trials", eval.trials, "rounds over all input sets")
      ->default_val(2)
      ->check(CLI::Range(1, 100));
  auto* eval_seed_opt =
      eval_cmd->add_option("--seed", eval_seed, "input seed (default: fresh each run)");
  eval_cmd->add_flag(
      "--no-time", [&](int64_t) { eval.time = false; }, "verify only");
  eval_cmd->add_flag("--json", eval.json, "print the full results as JSON");

  kopt::EvalCommand profile;
  std::vector<std::string> profile_params;
  double profile_time_limit_s = 180;
  auto* profile_cmd = app.add_subcommand(
      "profile",
      "Hardware counters of one candidate under Nsight Compute or rocprof (as runs profile bests)");
  add_candidate_options(profile_cmd, &profile, &profile_params);
  profile_cmd->add_option("--time-limit", profile_time_limit_s,
                          "seconds for the whole profiling run of one shape");
  profile_cmd->add_flag("--json", profile.json, "also print the counters as JSON");

  kopt::BenchCommand bench;
  uint64_t bench_seed = 0;
  auto* bench_cmd = app.add_subcommand("bench",
                                       "Verify and time every seed kernel (and optionally the "
                                       "exported kernels and the vendor BLAS peer) on every shape");
  bench_cmd->add_option("--suite", bench.suite, "named shape suite (kopt suites lists them)");
  bench_cmd->add_option("--shape", bench.shapes, "a shape, e.g. KxN; repeatable");
  bench_cmd->add_option("--group", bench.group, "group size G")->default_val(64);
  bench_cmd->add_option("--seeds", bench.seeds, "seed kernels to run (default: all)")
      ->delimiter(',');
  bench_cmd->add_option("--trials", bench.trials, "verification rounds per kernel")
      ->default_val(1)
      ->check(CLI::Range(1, 100));
  auto* bench_seed_opt =
      bench_cmd->add_option("--seed", bench_seed, "input seed (default: fresh each run)");
  bench_cmd->add_option("--param", bench.params,
                        "NAME=VALUE for the seeds that declare NAME: a number, or a shape "
                        "variable (MR=M: a batched shape's rows); repeatable");
  bench_cmd->add_option("--json", bench.json_out, "write all results to this JSON file");
  bench_cmd->add_option("--markdown", bench.markdown_out, "write the table to this Markdown file");
  bench_cmd->add_option(
      "--tuned", bench.manifest,
      "an export manifest (kernels/generated/MANIFEST.json): time its kernels as a 'tuned' column");
  bench_cmd->add_flag(
      "--baselines", bench.baselines,
      "time the vendor BLAS fp16 GEMV (cuBLAS) on dequantised weights as a peer column");
  bench_cmd->add_flag("--read-only", bench.read_only,
                      "add a column timing kopt's read-only kernel over each shape's bytes "
                      "(same protocol, nothing computed): how far each kernel is from the "
                      "hardware");

  auto* doctor_cmd = app.add_subcommand("doctor", "Report the GPU, platform and compilers found");
  auto* problems_cmd = app.add_subcommand(
      "problems", "List the kernel problems kopt optimises (shapes, seeds, suites, library)");

  std::string suites_name;
  int64_t suites_group = 64;
  auto* suites_cmd = app.add_subcommand(
      "suites", "List the named shape suites (contest, model projections), or one suite's shapes");
  suites_cmd->add_option("name", suites_name, "a suite: list its shapes");
  suites_cmd->add_option("--group", suites_group, "group size G")->default_val(64);

  kopt::RunCommand run;
  int64_t run_budget = 0, run_resume = 0;
  uint64_t run_seed = 0;
  int run_trials = 1;
  int run_transfers = 0;  // read only when --transfers is given
  auto* run_cmd =
      app.add_subcommand("run", "Optimise one shape: propose, verify, time, record, repeat");
  run_cmd->add_option("--shape", run.shape,
                      "a shape of the problem, e.g. KxN (W4A16: KxN or KxN/gG)");
  run_cmd->add_option("--gpus", run.gpus,
                      "one worker per GPU: all, or indices such as 0,1 (default: [workers] in "
                      "the config, else the first GPU)");
  run_cmd->add_option("--suite", run.suite,
                      "one run per shape of this suite, in turn (kopt suites lists them)");
  run_cmd->add_option("--group", run.group, "group size G when the shape names none")
      ->default_val(64);
  auto* run_budget_opt =
      run_cmd->add_option("--budget", run_budget, "candidates to evaluate (seeds included)");
  run_cmd->add_option("--time", run.time, "wall-time limit, e.g. 30m");
  run_cmd->add_option("--model", run.models, "use this model from the config (repeatable)");
  auto* run_resume_opt = run_cmd->add_option("--resume", run_resume,
                                             "continue run ID (--budget then sets its new total)");
  run_cmd->add_option("--db", run.db_path, "database file (default from config: kopt.db)");
  run_cmd->add_option("--config", run.config_path, "TOML config (default: ./kopt.toml if present)");
  auto* run_seed_opt = run_cmd->add_option("--seed", run_seed, "seed for every random choice");
  auto* run_trials_opt =
      run_cmd->add_option("--trials", run_trials, "verification rounds per candidate")
          ->check(CLI::Range(1, 100));
  run_cmd->add_flag("--no-mutator", run.no_mutator, "only the named models propose");
  auto* run_transfers_opt =
      run_cmd
          ->add_option("--transfers", run_transfers,
                       "also start from the fastest kernel of this many nearest other shapes "
                       "measured on the GPU, the shipped library's filling in (default from "
                       "config: 3; 0: none)")
          ->check(CLI::Range(0, 64));
  run_cmd->add_option("--start", run.starts,
                      "evaluate this first, after the seeds: SEED or SEED:NAME=V,NAME=V, or an "
                      "exported MANIFEST.json (its kernels for the shape); repeatable");
  run_cmd->add_option(
      "--prompts", run.prompts_dir,
      "folder with system.txt, user.txt, contract.txt to use instead of the built-in prompts");

  kopt::RunCommand demo;
  int64_t demo_budget = 12;
  auto* demo_cmd = app.add_subcommand("demo",
                                      "Without a GPU: a short run on the host fake (kernels "
                                      "simulated, times modelled), then browse it");
  demo_cmd->add_option("--shape", demo.shape,
                       "a shape (default: the smallest of the problem's first suite)");
  demo_cmd->add_option("--budget", demo_budget, "candidates (default 12)")
      ->check(CLI::Range(1, 1000));
  demo_cmd->add_option("--db", demo.db_path, "database file (default kopt-demo.db)");
  uint64_t demo_seed = 0;
  auto* demo_seed_opt =
      demo_cmd->add_option("--seed", demo_seed, "seed for every random choice (repeats the run)");

  kopt::DbCommand dbc;
  auto* db_cmd = app.add_subcommand("db", "Browse the candidate database");
  db_cmd
      ->add_option("action", dbc.action,
                   "runs | list | show ID | best | lineage ID | diff A B | failures | timeline RUN")
      ->required();
  db_cmd->add_option("ids", dbc.ids, "candidate id(s), or the run of timeline");
  db_cmd->add_option("--db", dbc.db_path, "database file")->default_val("kopt.db");
  db_cmd->add_option("--shape", dbc.shape, "best: only this shape");
  db_cmd->add_option("--run", dbc.run, "list, failures: only this run");
  db_cmd->add_option("--limit", dbc.limit, "rows per shape (best) or in all (failures)")
      ->default_val(20);
  db_cmd->add_flag("--full", dbc.full, "show: the whole prompt, answer and log");

  kopt::ReportCommand report;
  auto* report_cmd = app.add_subcommand(
      "report", "Write a self-contained HTML report of the database (plots, lineage, failures)");
  report_cmd->add_option("--db", report.db_path, "database file")->default_val("kopt.db");
  report_cmd->add_option("--run", report.run, "only this run");
  report_cmd->add_option("--shape", report.shapes, "only runs of this shape; repeatable");
  report_cmd->add_option("--out", report.out_dir, "output folder (index.html is written there)")
      ->required();

  kopt::ExportCommand exp;
  auto* export_cmd = app.add_subcommand(
      "export",
      "Re-verify each shape's best kernel per architecture and write the library sources");
  export_cmd->add_option("--db", exp.db_path, "database file")->default_val("kopt.db");
  export_cmd->add_option("--suite", exp.suite, "named shape suite (kopt suites lists them)");
  export_cmd->add_option("--shape", exp.shapes, "a shape, e.g. KxN; repeatable");
  export_cmd->add_option("--group", exp.group, "group size G")->default_val(64);
  export_cmd->add_option("--out", exp.out_dir, "output folder (e.g. kernels/generated)")
      ->required();
  export_cmd->add_flag("--fallbacks-only", exp.fallbacks_only,
                       "no database or GPU: rewrite the generic variants and rule, keep the tuned "
                       "entries already in --out");
  export_cmd->add_flag("--drop-tuned", exp.drop_tuned,
                       "with --fallbacks-only: leave out the tuned entries already in --out");
  export_cmd->add_flag("--measure-generic", exp.measure_generic,
                       "time the generic variants on the --suite/--shape shapes (default: every "
                       "suite's and edge shapes; GPU; adds to --out/GENERIC.json) and derive the "
                       "rule from the times");

  std::vector<std::string> amd_files;
  std::string amd_db;
  auto* amd_cmd =
      app.add_subcommand("check-amd", "Compile candidates for gfx906 and report resources");
  amd_cmd->add_option("files", amd_files, "candidate HIP sources");
  amd_cmd->add_option("--db", amd_db,
                      "check every candidate of this database recorded 'not checked'");

  for (CLI::App* sub : {eval_cmd, profile_cmd, bench_cmd, suites_cmd, run_cmd, demo_cmd, db_cmd,
                        report_cmd, export_cmd, amd_cmd})
    sub->add_option("--problem", problem,
                    "the kernel problem (kopt problems lists them; default: the first)");
  // An unknown command is named, with the ones there are.
  // --gpu N on the commands that use one GPU: the worker sees only that one.
  for (CLI::App* sub : {eval_cmd, profile_cmd, bench_cmd, run_cmd, export_cmd})
    sub->add_option("--gpu", gpu_index, "use this GPU (index) only")->check(CLI::Range(0, 1023));
  std::string names;  // the commands, for messages
  bool known = false;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
    known = known || (argc > 1 && sub->get_name() == argv[1]);
  }
  // The command being parsed, for the first words of its messages.
  std::string verb;
  if (argc > 1 && argv[1][0] != '-') {
    if (!known) {
      std::fprintf(stderr, "kopt: unknown command '%s'; the commands are %s (kopt --help)\n",
                   argv[1], names.c_str());
      return kopt::kExitUsage;
    }
    verb = argv[1];
  }
  try {
    app.parse(argc, argv);
    if (gpu_index >= 0) {
      if (!run.gpus.empty()) {
        std::fprintf(stderr, "kopt run: give --gpu or --gpus, not both\n");
        return kopt::kExitUsage;
      }
      const std::string index = std::to_string(gpu_index);
      setenv("CUDA_VISIBLE_DEVICES", index.c_str(), 1);
      setenv("HIP_VISIBLE_DEVICES", index.c_str(), 1);
    }
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    const std::string who = verb.empty() ? "kopt" : "kopt " + verb;
    std::fprintf(stderr, "%s: %s (%s --help)\n", who.c_str(),
                 explain_parse_error(e.what(), names).c_str(), who.c_str());
    return kopt::kExitUsage;
  }

  eval.problem = profile.problem = bench.problem = run.problem = demo.problem = dbc.problem =
      report.problem = exp.problem = problem;
  // Each verb with what it runs, in one table: the argument values above
  // become the verb's command, and the verb's library function takes it.
  auto with_params = [](const char* verb, const std::vector<std::string>& items,
                        std::map<std::string, int64_t>* out, const std::function<int()>& run) {
    std::string error;
    if (!parse_params(items, out, &error)) {
      std::fprintf(stderr, "kopt %s: %s\n", verb, error.c_str());
      return int{kopt::kExitUsage};
    }
    return run();
  };
  const std::vector<std::pair<const CLI::App*, std::function<int()>>> verbs = {
      {problems_cmd, [] { return kopt::run_problems(); }},
      {eval_cmd,
       [&] {
         if (*eval_seed_opt) eval.seed = eval_seed;
         return with_params("eval", eval_params, &eval.params,
                            [&] { return kopt::run_eval(eval); });
       }},
      {profile_cmd,
       [&] {
         return with_params("profile", profile_params, &profile.params,
                            [&] { return kopt::run_profile(profile, profile_time_limit_s); });
       }},
      {bench_cmd,
       [&] {
         if (*bench_seed_opt) bench.seed = bench_seed;
         return kopt::run_bench(bench);
       }},
      {amd_cmd,
       [&] {
         if (amd_files.empty() == amd_db.empty()) {
           std::fprintf(stderr, "kopt check-amd: give candidate files or --db PATH\n");
           return int{kopt::kExitUsage};
         }
         return kopt::run_check_amd(problem, amd_files, amd_db);
       }},
      {run_cmd,
       [&] {
         if (*run_budget_opt) run.budget = run_budget;
         if (*run_resume_opt) run.resume = run_resume;
         if (*run_seed_opt) run.seed = run_seed;
         if (*run_trials_opt) run.trials = run_trials;
         if (*run_transfers_opt) run.transfers = run_transfers;
         if (!run.suite.empty()) return kopt::run_optimize_suite(run);
         if (run.shape.empty() && !run.resume) {
           std::fprintf(stderr,
                        "kopt run: --shape KxN is required (or --suite NAME, or --resume ID)\n");
           return int{kopt::kExitUsage};
         }
         return kopt::run_optimize(run);
       }},
      {db_cmd, [&] { return kopt::run_db(dbc); }},
      {report_cmd, [&] { return kopt::run_report(report); }},
      {demo_cmd,
       [&] {
         demo.budget = demo_budget;
         if (*demo_seed_opt) demo.seed = demo_seed;
         return kopt::run_demo(demo);
       }},
      {export_cmd, [&] { return kopt::run_export(exp); }},
      {suites_cmd, [&] { return kopt::run_suites(problem, suites_name, suites_group); }},
      {doctor_cmd, [] { return kopt::run_doctor(); }}};
  for (const auto& [cmd, run_verb] : verbs)
    if (*cmd) return run_verb();
  return kopt::kExitUsage;  // (require_subcommand: not reached)
}
