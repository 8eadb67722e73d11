// libFuzzer: the worker protocol parsers (both directions) and the candidate
// contract must turn any bytes into a value or an error, never a crash.
#include <string>

#include "sandbox/candidate.h"
#include "sandbox/evaluation.h"
#include "sandbox/protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) {
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
    (void)kopt::plan_launches(c, kopt::Shape{4096, 7168, 64}, kopt::DeviceLimits{}, &plan);
  }
  int64_t v;
  (void)kopt::evaluate_expression(text.substr(0, 200), {{"K", 64}, {"N", 8}, {"G", 64}}, &v);
  return 0;
}
