// kopt report: a self-contained HTML report of the database.
#include "agent/run_command.h"
#include "apps/verbs/verb.h"

namespace kopt {

Verb add_report_verb(CLI::App& app, VerbContext& context) {
  auto c = std::make_shared<ReportCommand>();
  auto* cmd = app.add_subcommand(
      "report", "Write a self-contained HTML report of the database (plots, lineage, failures)");
  cmd->add_option("--db", c->db_path, "database file")->default_val("kopt.db");
  cmd->add_option("--run", c->run, "only this run");
  cmd->add_option("--shape", c->shapes, "only runs of this shape; repeatable");
  cmd->add_option("--out", c->out_dir, "output folder (index.html is written there)")->required();
  add_problem_option(cmd, context);
  return {cmd, [c, &context] {
            c->problem = context.problem;
            return run_report(*c);
          }};
}

}  // namespace kopt
