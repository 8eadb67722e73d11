// kopt profile: hardware counters of one candidate.
#include "agent/commands.h"
#include "apps/verbs/verb.h"

namespace kopt {

namespace {

struct ProfileState {
  EvalCommand command;
  std::vector<std::string> params;
  double time_limit_s = 180;
};

}  // namespace

Verb add_profile_verb(CLI::App& app, VerbContext& context) {
  auto s = std::make_shared<ProfileState>();
  auto* cmd = app.add_subcommand(
      "profile",
      "Hardware counters of one candidate under Nsight Compute or rocprof (as runs profile bests)");
  add_candidate_options(cmd, &s->command, &s->params);
  cmd->add_option("--time-limit", s->time_limit_s,
                  "seconds for the whole profiling run of one shape");
  cmd->add_flag("--json", s->command.json, "also print the counters as JSON");
  add_problem_option(cmd, context);
  add_gpu_option(cmd, context);
  return {cmd, [s, &context] {
            s->command.problem = context.problem;
            return with_params("profile", s->params, &s->command.params,
                               [s] { return run_profile(s->command, s->time_limit_s); });
          }};
}

}  // namespace kopt
