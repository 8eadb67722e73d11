// kopt problems: the kernel problems kopt optimises.
#include "agent/commands.h"
#include "apps/verbs/verb.h"

namespace kopt {

Verb add_problems_verb(CLI::App& app, VerbContext&) {
  auto* cmd = app.add_subcommand(
      "problems", "List the kernel problems kopt optimises (shapes, seeds, suites, library)");
  return {cmd, [] { return run_problems(); }};
}

}  // namespace kopt
