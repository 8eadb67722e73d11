// kopt suites: the named shape suites, or one suite's shapes.
#include "agent/commands.h"
#include "apps/verbs/verb.h"

namespace kopt {

namespace {

struct SuitesState {
  std::string name;
  int64_t group = 64;
};

}  // namespace

Verb add_suites_verb(CLI::App& app, VerbContext& context) {
  auto s = std::make_shared<SuitesState>();
  auto* cmd = app.add_subcommand(
      "suites", "List the named shape suites (contest, model projections), or one suite's shapes");
  cmd->add_option("name", s->name, "a suite: list its shapes");
  cmd->add_option("--group", s->group, "group size G")->default_val(64);
  add_problem_option(cmd, context);
  return {cmd, [s, &context] { return run_suites(context.problem, s->name, s->group); }};
}

}  // namespace kopt
