// One kopt command (verb): its options registered on the parser, and what
// runs it once they are parsed. Each verb lives in its own file; kopt_main.cpp
// lists them in one table, parses and dispatches.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "agent/commands.h"

namespace kopt {

// What several verbs share: the problem (--problem) and the GPU (--gpu).
struct VerbContext {
  std::string problem;  // empty: the first registered problem
  int gpu_index = -1;   // -1: not given
};

struct Verb {
  CLI::App* command = nullptr;
  std::function<int()> run;  // called after parsing when `command` was given
};

// Adds a verb's command and options to `app`; its state lives in `run`.
using AddVerb = Verb (*)(CLI::App& app, VerbContext& context);

// --problem NAME and --gpu N, for the verbs that take them.
void add_problem_option(CLI::App* command, VerbContext& context);
void add_gpu_option(CLI::App* command, VerbContext& context);

// The candidate file, --shape, --group and --param of `kopt eval` and `kopt
// profile` (eval_verb.cpp).
void add_candidate_options(CLI::App* command, EvalCommand* c, std::vector<std::string>* params);

// --param NAME=VALUE items into `out`, or a one-line usage error naming the
// verb (returns kExitUsage); then `run`.
int with_params(const char* verb, const std::vector<std::string>& items,
                std::map<std::string, int64_t>* out, const std::function<int()>& run);

Verb add_eval_verb(CLI::App& app, VerbContext& context);
Verb add_profile_verb(CLI::App& app, VerbContext& context);
Verb add_bench_verb(CLI::App& app, VerbContext& context);
Verb add_doctor_verb(CLI::App& app, VerbContext& context);
Verb add_problems_verb(CLI::App& app, VerbContext& context);
Verb add_suites_verb(CLI::App& app, VerbContext& context);
Verb add_run_verb(CLI::App& app, VerbContext& context);
Verb add_demo_verb(CLI::App& app, VerbContext& context);
Verb add_db_verb(CLI::App& app, VerbContext& context);
Verb add_report_verb(CLI::App& app, VerbContext& context);
Verb add_export_verb(CLI::App& app, VerbContext& context);
Verb add_check_amd_verb(CLI::App& app, VerbContext& context);

}  // namespace kopt
