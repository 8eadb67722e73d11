// kopt check-amd: compile candidates for gfx906 and report their resources.
#include <cstdio>

#include "agent/commands.h"
#include "apps/verbs/verb.h"

namespace kopt {

namespace {

struct CheckAmdState {
  std::vector<std::string> files;
  std::string db;
};

}  // namespace

Verb add_check_amd_verb(CLI::App& app, VerbContext& context) {
  auto s = std::make_shared<CheckAmdState>();
  auto* cmd = app.add_subcommand("check-amd", "Compile candidates for gfx906 and report resources");
  cmd->add_option("files", s->files, "candidate HIP sources");
  cmd->add_option("--db", s->db, "check every candidate of this database recorded 'not checked'");
  add_problem_option(cmd, context);
  return {cmd, [s, &context] {
            if (s->files.empty() == s->db.empty()) {
              std::fprintf(stderr, "kopt check-amd: give candidate files or --db PATH\n");
              return int{kExitUsage};
            }
            return run_check_amd(context.problem, s->files, s->db);
          }};
}

}  // namespace kopt
