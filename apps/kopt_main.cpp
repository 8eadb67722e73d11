// kopt: the command-line front end. The verbs (apps/verbs/, one a file) in
// one table; main only parses the arguments and runs the verb given.
#include <CLI/CLI.hpp>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "agent/commands.h"
#include "apps/verbs/verb.h"
#include "problems/registry.h"

namespace {

// The verbs, in the order `kopt --help` lists them.
constexpr kopt::AddVerb kVerbs[] = {
    kopt::add_eval_verb,   kopt::add_profile_verb,  kopt::add_bench_verb,
    kopt::add_doctor_verb, kopt::add_problems_verb, kopt::add_suites_verb,
    kopt::add_run_verb,    kopt::add_demo_verb,     kopt::add_db_verb,
    kopt::add_report_verb, kopt::add_export_verb,   kopt::add_check_amd_verb};

// The argument parser's message said once, in kopt's words.
std::string explain_parse_error(const std::string& what, const std::string& commands) {
  auto after = [&](const std::string& marker, size_t from) {
    const size_t at = what.find(marker, from);
    return at == std::string::npos ? std::string::npos : at + marker.size();
  };
  // "--budget: Value -1 not in range 1 to 1000"
  if (size_t v = after(": Value ", 0); v != std::string::npos) {
    const size_t range = what.find(" not in range ", v), to = what.find(" to ", v);
    if (range != std::string::npos && to != std::string::npos)
      return what.substr(0, v - 8) + " must be between " +
             what.substr(range + 14, to - range - 14) + " and " + what.substr(to + 4) + "; got " +
             what.substr(v, range - v);
  }
  // "Could not convert: ids = abc"
  if (size_t c = after("Could not convert: ", 0); c != std::string::npos) {
    const size_t eq = what.find(" = ", c);
    if (eq != std::string::npos)
      return "'" + what.substr(eq + 3) + "' is not a number (" + what.substr(c, eq - c) + ")";
  }
  if (what.rfind("A subcommand is required", 0) == 0)
    return "a command is required: one of " + commands;
  // "The following argument was not expected: x" (or arguments ... were)
  if (size_t x = after(" not expected: ", 0); x != std::string::npos)
    return "unexpected argument '" + what.substr(x) + "'";
  std::string text = what;
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  kopt::register_builtin_problems();
  CLI::App app{"kopt: verified, timed GPU kernel optimisation (kopt problems lists the problems)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "kopt " KOPT_VERSION);
  kopt::VerbContext context;
  std::vector<kopt::Verb> verbs;
  for (kopt::AddVerb add : kVerbs) verbs.push_back(add(app, context));

  // An unknown command is named, with the ones there are.
  std::string names;  // the commands, for messages
  bool known = false;
  for (const kopt::Verb& verb : verbs) {
    names += (names.empty() ? "" : ", ") + verb.command->get_name();
    known = known || (argc > 1 && verb.command->get_name() == argv[1]);
  }
  // The command being parsed, for the first words of its messages.
  std::string verb;
  if (argc > 1 && argv[1][0] != '-') {
    if (!known) {
      std::fprintf(stderr, "kopt: unknown command '%s'; the commands are %s (kopt --help)\n",
                   argv[1], names.c_str());
      return kopt::kExitUsage;
    }
    verb = argv[1];
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    const std::string who = verb.empty() ? "kopt" : "kopt " + verb;
    std::fprintf(stderr, "%s: %s (%s --help)\n", who.c_str(),
                 explain_parse_error(e.what(), names).c_str(), who.c_str());
    return kopt::kExitUsage;
  }
  // --gpu N: the worker sees only that GPU.
  if (context.gpu_index >= 0) {
    const std::string index = std::to_string(context.gpu_index);
    setenv("CUDA_VISIBLE_DEVICES", index.c_str(), 1);
    setenv("HIP_VISIBLE_DEVICES", index.c_str(), 1);
  }
  for (const kopt::Verb& v : verbs)
    if (*v.command) return v.run();
  return kopt::kExitUsage;  // (require_subcommand: not reached)
}
