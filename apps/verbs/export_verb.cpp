// kopt export: re-verify each shape's best kernel and write the library sources.
#include "agent/export.h"
#include "apps/verbs/verb.h"

namespace kopt {

Verb add_export_verb(CLI::App& app, VerbContext& context) {
  auto c = std::make_shared<ExportCommand>();
  auto* cmd = app.add_subcommand(
      "export",
      "Re-verify each shape's best kernel per architecture and write the library sources");
  cmd->add_option("--db", c->db_path, "database file")->default_val("kopt.db");
  cmd->add_option("--suite", c->suite, "named shape suite (kopt suites lists them)");
  cmd->add_option("--shape", c->shapes, "a shape, e.g. KxN; repeatable");
  cmd->add_option("--group", c->group, "group size G")->default_val(64);
  cmd->add_option("--out", c->out_dir, "output folder (e.g. kernels/w4a16_gemv/generated)")
      ->required();
  cmd->add_flag("--fallbacks-only", c->fallbacks_only,
                "no database or GPU: rewrite the generic variants and rule, keep the tuned "
                "entries already in --out");
  cmd->add_flag("--drop-tuned", c->drop_tuned,
                "with --fallbacks-only: leave out the tuned entries already in --out");
  cmd->add_flag("--measure-generic", c->measure_generic,
                "time the generic variants on the --suite/--shape shapes (default: every "
                "suite's and edge shapes; GPU; adds to --out/GENERIC.json) and derive the "
                "rule from the times");
  add_problem_option(cmd, context);
  add_gpu_option(cmd, context);
  return {cmd, [c, &context] {
            c->problem = context.problem;
            return run_export(*c);
          }};
}

}  // namespace kopt
