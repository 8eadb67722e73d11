// kopt run: optimise one shape (or each shape of a suite).
#include <cstdio>

#include "agent/commands.h"
#include "agent/run_command.h"
#include "apps/verbs/verb.h"

namespace kopt {

namespace {

// Options whose defaults come from the config: read only when given.
struct RunState {
  RunCommand command;
  int64_t budget = 0, resume = 0;
  uint64_t seed = 0;
  int trials = 1, transfers = 0;
};

}  // namespace

Verb add_run_verb(CLI::App& app, VerbContext& context) {
  auto s = std::make_shared<RunState>();
  RunCommand& run = s->command;
  auto* cmd =
      app.add_subcommand("run", "Optimise one shape: propose, verify, time, record, repeat");
  cmd->add_option("--shape", run.shape, "a shape of the problem, e.g. KxN (W4A16: KxN or KxN/gG)");
  cmd->add_option("--gpus", run.gpus,
                  "one worker per GPU: all, or indices such as 0,1 (default: [workers] in "
                  "the config, else the first GPU)");
  cmd->add_option("--suite", run.suite,
                  "one run per shape of this suite, in turn (kopt suites lists them)");
  cmd->add_option("--group", run.group, "group size G when the shape names none")->default_val(64);
  auto* budget = cmd->add_option("--budget", s->budget, "candidates to evaluate (seeds included)");
  cmd->add_option("--time", run.time, "wall-time limit, e.g. 30m");
  cmd->add_option("--model", run.models, "use this model from the config (repeatable)");
  auto* resume =
      cmd->add_option("--resume", s->resume, "continue run ID (--budget then sets its new total)");
  cmd->add_option("--db", run.db_path, "database file (default from config: kopt.db)");
  cmd->add_option("--config", run.config_path, "TOML config (default: ./kopt.toml if present)");
  auto* seed = cmd->add_option("--seed", s->seed, "seed for every random choice");
  auto* trials = cmd->add_option("--trials", s->trials, "verification rounds per candidate")
                     ->check(CLI::Range(1, 100));
  cmd->add_flag("--no-mutator", run.no_mutator, "only the named models propose");
  auto* transfers = cmd->add_option("--transfers", s->transfers,
                                    "also start from the fastest kernel of this many nearest "
                                    "other shapes measured on the GPU, the shipped library's "
                                    "filling in (default from config: 3; 0: none)")
                        ->check(CLI::Range(0, 64));
  cmd->add_option("--start", run.starts,
                  "evaluate this first, after the seeds: SEED or SEED:NAME=V,NAME=V, or an "
                  "exported MANIFEST.json (its kernels for the shape); repeatable");
  cmd->add_option("--prompts", run.prompts_dir,
                  "folder with system.txt, user.txt, contract.txt to use instead of the built-in "
                  "prompts");
  add_problem_option(cmd, context);
  add_gpu_option(cmd, context);
  return {cmd, [s, budget, resume, seed, trials, transfers, &context] {
            RunCommand& run = s->command;
            if (context.gpu_index >= 0 && !run.gpus.empty()) {
              std::fprintf(stderr, "kopt run: give --gpu or --gpus, not both\n");
              return int{kExitUsage};
            }
            run.problem = context.problem;
            if (*budget) run.budget = s->budget;
            if (*resume) run.resume = s->resume;
            if (*seed) run.seed = s->seed;
            if (*trials) run.trials = s->trials;
            if (*transfers) run.transfers = s->transfers;
            if (!run.suite.empty()) return run_optimize_suite(run);
            if (run.shape.empty() && !run.resume) {
              std::fprintf(stderr,
                           "kopt run: --shape KxN is required (or --suite NAME, or --resume ID)\n");
              return int{kExitUsage};
            }
            return run_optimize(run);
          }};
}

}  // namespace kopt
