// kopt db: browse the candidate database.
#include "agent/db_command.h"
#include "apps/verbs/verb.h"

namespace kopt {

Verb add_db_verb(CLI::App& app, VerbContext& context) {
  auto c = std::make_shared<DbCommand>();
  auto* cmd = app.add_subcommand("db", "Browse the candidate database");
  cmd->add_option("action", c->action,
                  "runs | list | show ID | best | lineage ID | diff A B | failures | timeline RUN")
      ->required();
  cmd->add_option("ids", c->ids, "candidate id(s), or the run of timeline");
  cmd->add_option("--db", c->db_path, "database file")->default_val("kopt.db");
  cmd->add_option("--shape", c->shape, "best: only this shape");
  cmd->add_option("--run", c->run, "list, failures: only this run");
  cmd->add_option("--limit", c->limit, "rows per shape (best) or in all (failures)")
      ->default_val(20);
  cmd->add_flag("--full", c->full, "show: the whole prompt, answer and log");
  add_problem_option(cmd, context);
  return {cmd, [c, &context] {
            c->problem = context.problem;
            return run_db(*c);
          }};
}

}  // namespace kopt
