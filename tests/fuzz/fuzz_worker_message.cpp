// libFuzzer: the worker protocol parsers (both directions) and the candidate
// contract must turn any bytes into a value or an error, never a crash.
#include <string>

#include "problems/registry.h"
#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "sandbox/contract/candidate.h"
#include "sandbox/contract/evaluation.h"
#include "sandbox/contract/protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) {
  // The problems, so a request's shape is checked as the worker checks it.
  static const bool registered = (kopt::register_builtin_problems(), true);
  (void)registered;
  std::string text(reinterpret_cast<const char*>(data), size);
  nlohmann::json j;
  if (kopt::parse_message(text, &j).ok()) {
    kopt::EvalRequest req;
    (void)kopt::eval_request_from_json(j, &req);
    kopt::EvalResult r = kopt::eval_result_from_json(j.value("result", j));
    (void)kopt::to_json(r);
  }
  kopt::Candidate c;
  if (kopt::parse_candidate("/* kopt:" + text + "*/", {}, &c).ok()) {
    kopt::LaunchPlan plan;
    (void)kopt::plan_launches(c, kopt::w4a16::shape(4096, 7168, 64), kopt::DeviceLimits{}, &plan);
  }
  // The bytes as the value of each typed field of an otherwise valid
  // contract (a model that writes a number for "name", an object for
  // "grid", ...), planned against extreme shapes and device limits.
  const std::string launch =
      R"json("launches": [{"kernel": "k", "grid": ["cdiv(N, 4)"], "block": [64]}])json";
  for (const char* field : {"name", "description", "requires", "params", "workspace_bytes",
                            "packed_bytes", "nondeterministic", "relayout", "launches"}) {
    const std::string contract = std::string("/* kopt: {") +
                                 (std::string(field) == "launches" ? "" : launch + ", ") + "\"" +
                                 field + "\": " + text + "} */";
    if (kopt::parse_candidate(contract, {}, &c).ok()) {
      kopt::LaunchPlan plan;
      (void)kopt::plan_launches(c, kopt::w4a16::shape(int64_t{1} << 20, int64_t{1} << 20, 2),
                                kopt::DeviceLimits{}, &plan);
    }
  }
  int64_t v;
  const std::string expr = text.substr(0, 200);
  (void)kopt::evaluate_expression(expr, {{"K", 64}, {"N", 8}, {"G", 64}}, &v);
  (void)kopt::evaluate_expression(expr, {{"K", INT64_MAX}, {"N", INT64_MIN}, {"G", -1}}, &v);
  return 0;
}
