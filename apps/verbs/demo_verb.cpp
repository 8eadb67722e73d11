// kopt demo: a short run on the host fake, without a GPU.
#include "agent/run_command.h"
#include "apps/verbs/verb.h"

namespace kopt {

namespace {

struct DemoState {
  RunCommand command;
  int64_t budget = 12;
  uint64_t seed = 0;
};

}  // namespace

Verb add_demo_verb(CLI::App& app, VerbContext& context) {
  auto s = std::make_shared<DemoState>();
  auto* cmd = app.add_subcommand("demo",
                                 "Without a GPU: a short run on the host fake (kernels "
                                 "simulated, times modelled), then browse it");
  cmd->add_option("--shape", s->command.shape,
                  "a shape (default: the smallest of the problem's first suite)");
  cmd->add_option("--budget", s->budget, "candidates (default 12)")->check(CLI::Range(1, 1000));
  cmd->add_option("--db", s->command.db_path, "database file (default kopt-demo.db)");
  auto* seed = cmd->add_option("--seed", s->seed, "seed for every random choice (repeats the run)");
  add_problem_option(cmd, context);
  return {cmd, [s, seed, &context] {
            s->command.problem = context.problem;
            s->command.budget = s->budget;
            if (*seed) s->command.seed = s->seed;
            return run_demo(s->command);
          }};
}

}  // namespace kopt
