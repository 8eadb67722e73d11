#include "sandbox/client/sandbox.h"

#include <chrono>
#include <future>

#include "sandbox/contract/candidate.h"
#include "sandbox/contract/prelude.h"
#include "sandbox/contract/static_checks.h"

namespace kopt {

Sandbox::Sandbox(SandboxOptions options)
    : options_(std::move(options)),
      amd_(options_.amd_check ? AmdToolchain::find() : AmdToolchain()),
      worker_(options_.worker_command, options_.limits, options_.events_on_stdout) {}

TargetResources Sandbox::check_amd(const CandidateValue& candidate, const Shape& shape) {
  TargetResources r;
  const Problem* problem = nullptr;
  if (Status ps = problem_by_id(shape.problem, &problem); !ps.ok()) {
    r.note = "not checked: " + ps.message();
    return r;
  }
  if (!candidate.ok()) {
    r.note = "not checked: " + candidate.status.message();
    return r;
  }
  const Candidate& c = candidate.candidate;
  const std::vector<std::string> defines = build_defines(c, shape);
  // Keyed by what is built: the source and every macro.
  std::string key = problem->id() + "/" + candidate.key;
  for (const auto& d : defines) key += " " + d;
  auto it = amd_cache_.find(key);
  if (it != amd_cache_.end()) return it->second;
  std::vector<std::string> kernels;
  for (const auto& l : c.spec.launches) kernels.push_back(l.kernel);
  if (c.spec.relayout) kernels.push_back(c.spec.relayout->kernel);
  std::string cleaned;
  Status s = check_source(c.source, kernels, &cleaned);
  if (!s.ok()) {
    r.note = "not checked: " + s.message();
    return r;
  }
  s = check_gfx906(amd_, assemble_source(*problem, cleaned), defines, options_.amd_timeout_s, &r);
  if (!s.ok()) r.note = "not checked: " + s.message();
  amd_cache_[key] = r;
  return r;
}

EvalResult Sandbox::evaluate(const EvalRequest& request) {
  using Clock = std::chrono::steady_clock;
  // The gfx906 check compiles on this machine's CPU: it runs while the
  // worker has the GPU, so it costs the evaluation only what it takes
  // longer than the worker.
  const bool amd_check = request.baseline.empty() && options_.amd_check;
  double amd_seconds = 0;
  std::future<TargetResources> amd;
  if (amd_check)
    amd = std::async(std::launch::async, [&] {
      const auto began = Clock::now();
      TargetResources t =
          request.candidate ? check_amd(*request.candidate, request.shape) : TargetResources();
      amd_seconds = std::chrono::duration<double>(Clock::now() - began).count();
      return t;
    });
  EvalResult r = worker_.evaluate(request);
  const auto worker_done = Clock::now();
  // The shape is the one asked for, whatever the worker echoed.
  r.shape = request.shape.key();
  // Portability is recorded, not enforced here: a candidate that builds only
  // for NVIDIA keeps its verdict and is marked "not portable" (amd.compiled).
  if (!request.baseline.empty()) {
    r.targets[kOfflineTarget].note = "not applicable: a library baseline";
  } else if (amd_check) {
    TargetResources t = amd.get();
    if (r.verdict != Verdict::kContractError && r.verdict != Verdict::kStaticRejected) {
      r.targets[kOfflineTarget] = std::move(t);
      r.stage_seconds.push_back({"gfx906-check", amd_seconds});  // alongside the worker's
      r.seconds += std::chrono::duration<double>(Clock::now() - worker_done).count();
    }
  } else {
    r.targets[kOfflineTarget].note = "not checked: disabled";
  }
  return r;
}

}  // namespace kopt
