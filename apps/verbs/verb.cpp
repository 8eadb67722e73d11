#include "apps/verbs/verb.h"

#include <cstdio>

#include "agent/commands.h"
#include "agent/proposer.h"

namespace kopt {

void add_problem_option(CLI::App* command, VerbContext& context) {
  command->add_option("--problem", context.problem,
                      "the kernel problem (kopt problems lists them; default: the first)");
}

void add_gpu_option(CLI::App* command, VerbContext& context) {
  command->add_option("--gpu", context.gpu_index, "use this GPU (index) only")
      ->check(CLI::Range(0, 1023));
}

int with_params(const char* verb, const std::vector<std::string>& items,
                std::map<std::string, int64_t>* out, const std::function<int()>& run) {
  for (const auto& item : items) {
    std::string error;
    if (!parse_param_assignment(item, out, &error)) {
      std::fprintf(stderr, "kopt %s: --param %s\n", verb, error.c_str());
      return kExitUsage;
    }
  }
  return run();
}

}  // namespace kopt
