// libFuzzer: the checks that read a candidate's text in the orchestrator
// (source rules, compiled-code rules, the contract reader) must never crash
// or hang on any bytes: long lines, deep nesting, NUL bytes, invalid UTF-8.
#include <map>
#include <string>

#include "sandbox/contract/candidate.h"
#include "sandbox/contract/static_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string cleaned;
  kopt::Status s = kopt::check_source(text, {"gemv"}, &cleaned);
  if (s.ok() && cleaned.size() != text.size()) __builtin_trap();  // length and lines are kept
  (void)kopt::check_compiled_code(text);
  kopt::Candidate c;
  (void)kopt::parse_candidate(text, {}, &c);
  return 0;
}
