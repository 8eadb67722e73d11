// kopt doctor: the GPU, platform and compilers found.
#include "agent/commands.h"
#include "apps/verbs/verb.h"

namespace kopt {

Verb add_doctor_verb(CLI::App& app, VerbContext&) {
  auto* cmd = app.add_subcommand("doctor", "Report the GPU, platform and compilers found");
  return {cmd, [] { return run_doctor(); }};
}

}  // namespace kopt
