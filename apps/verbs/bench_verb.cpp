// kopt bench: every seed (and optionally the exported kernels and peers) on
// every shape.
#include "agent/commands.h"
#include "apps/verbs/verb.h"

namespace kopt {

namespace {

struct BenchState {
  BenchCommand command;
  uint64_t seed = 0;
};

}  // namespace

Verb add_bench_verb(CLI::App& app, VerbContext& context) {
  auto s = std::make_shared<BenchState>();
  BenchCommand& b = s->command;
  auto* cmd = app.add_subcommand("bench",
                                 "Verify and time every seed kernel (and optionally the "
                                 "exported kernels and the vendor BLAS peer) on every shape");
  cmd->add_option("--suite", b.suite, "named shape suite (kopt suites lists them)");
  cmd->add_option("--shape", b.shapes, "a shape, e.g. KxN; repeatable");
  cmd->add_option("--group", b.group, "group size G")->default_val(64);
  cmd->add_option("--seeds", b.seeds, "seed kernels to run (default: all)")->delimiter(',');
  cmd->add_option("--trials", b.trials, "verification rounds per kernel")
      ->default_val(1)
      ->check(CLI::Range(1, 100));
  auto* seed = cmd->add_option("--seed", s->seed, "input seed (default: fresh each run)");
  cmd->add_option("--param", b.params,
                  "NAME=VALUE for the seeds that declare NAME: a number, or a shape "
                  "variable (MR=M: a batched shape's rows); repeatable");
  cmd->add_option("--json", b.json_out, "write all results to this JSON file");
  cmd->add_option("--markdown", b.markdown_out, "write the table to this Markdown file");
  cmd->add_option("--tuned", b.manifest,
                  "an export manifest (kernels/w4a16_gemv/generated/MANIFEST.json): time its "
                  "kernels as a 'tuned' column");
  cmd->add_flag("--baselines", b.baselines,
                "time the vendor BLAS fp16 GEMV (cuBLAS) on dequantised weights as a peer column");
  cmd->add_flag("--read-only", b.read_only,
                "add a column timing kopt's read-only kernel over each shape's bytes "
                "(same protocol, nothing computed): how far each kernel is from the "
                "hardware");
  add_problem_option(cmd, context);
  add_gpu_option(cmd, context);
  return {cmd, [s, seed, &context] {
            if (*seed) s->command.seed = s->seed;
            s->command.problem = context.problem;
            return run_bench(s->command);
          }};
}

}  // namespace kopt
