// libFuzzer: the model-answer parser must never crash, hang or accept an
// answer without returning a source.
#include <string>

#include "agent/answer_parser.h"
#include "problems/registry.h"
#include "problems/w4a16_gemv/w4a16_gemv.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) {
  static const std::string parent = [] {
    kopt::register_builtin_problems();
    return kopt::find_seed(*kopt::find_problem(kopt::w4a16::kId), "vec")->source;
  }();
  std::string answer(reinterpret_cast<const char*>(data), size), source, kind;
  kopt::Status s = kopt::parse_model_answer(answer, parent, &source, &kind);
  std::string base = kind.rfind("tool-call+", 0) == 0 ? kind.substr(10) : kind;
  if (const size_t host = base.find("+host-code-dropped"); host != std::string::npos)
    base.erase(host);
  const bool known_kind = base == "full" || base == "edits" || base == "diff" ||
                          base == "full+contract-block" || base == "full+parent-contract" ||
                          kind == "tool-call";
  if (s.ok() && (source.empty() || !known_kind)) __builtin_trap();
  return 0;
}
