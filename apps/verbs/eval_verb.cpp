// kopt eval, and the candidate options it shares with kopt profile.
#include "agent/commands.h"
#include "apps/verbs/verb.h"

namespace kopt {

namespace {

struct EvalState {
  EvalCommand command;
  std::vector<std::string> params;
  uint64_t seed = 0;
};

}  // namespace

void add_candidate_options(CLI::App* cmd, EvalCommand* c, std::vector<std::string>* params) {
  cmd->add_option("file", c->file, "candidate HIP source with its kopt: contract")->required();
  cmd->add_option("--shape", c->shapes, "a shape of the problem, e.g. KxN; repeatable")->required();
  cmd->add_option("--group", c->group, "group size G when the shape names none")->default_val(64);
  cmd->add_option("--param", *params, "NAME=VALUE for a declared tunable parameter; repeatable");
}

Verb add_eval_verb(CLI::App& app, VerbContext& context) {
  auto s = std::make_shared<EvalState>();
  auto* cmd =
      app.add_subcommand("eval", "Verify and time one candidate file on one or more shapes");
  add_candidate_options(cmd, &s->command, &s->params);
  cmd->add_option("--trials", s->command.trials, "rounds over all input sets")
      ->default_val(2)
      ->check(CLI::Range(1, 100));
  auto* seed = cmd->add_option("--seed", s->seed, "input seed (default: fresh each run)");
  cmd->add_flag(
      "--no-time", [s](int64_t) { s->command.time = false; }, "verify only");
  cmd->add_flag("--json", s->command.json, "print the full results as JSON");
  add_problem_option(cmd, context);
  add_gpu_option(cmd, context);
  return {cmd, [s, seed, &context] {
            if (*seed) s->command.seed = s->seed;
            s->command.problem = context.problem;
            return with_params("eval", s->params, &s->command.params,
                               [s] { return run_eval(s->command); });
          }};
}

}  // namespace kopt
