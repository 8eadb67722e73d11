// The sandbox as the rest of kopt sees it: one call evaluates a candidate on a
// shape — the offline gfx906 check here, then compilation, verification and
// timing in the worker process.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sandbox/client/worker_client.h"
#include "sandbox/contract/amd_offline.h"
#include "sandbox/contract/evaluation.h"
#include "sandbox/contract/protocol.h"

namespace kopt {

struct SandboxOptions {
  std::vector<std::string> worker_command = default_worker_command();
  bool events_on_stdout = false;  // WorkerClient: a launcher (srun) between kopt and the worker
  WorkerLimits limits;
  bool amd_check = true;
  double amd_timeout_s = 60;
  // The GPU the worker sees (its index on the host, set in worker_command's
  // environment); -1 where not chosen: the default GPU, or a launcher's job
  // step. The orchestrator profiles on it (kopt eval --gpu N).
  int gpu = -1;
};

class Sandbox {
 public:
  explicit Sandbox(SandboxOptions options = SandboxOptions());

  EvalResult evaluate(const EvalRequest& request);
  Status device_info(bool measure_bandwidth, DeviceInfo* out) {
    return worker_.device_info(measure_bandwidth, out);
  }
  const AmdToolchain& amd_toolchain() const { return amd_; }
  int worker_restarts() const { return worker_.restarts(); }

  // The gfx906 check alone, built as for `shape` (its sizes as compile-time
  // macros, sandbox/contract/candidate.h; a shape without variables: the build for any
  // shape of its problem), cached per problem, source, parameters and shape;
  // the shape's problem gives the device helpers.
  TargetResources check_amd(const CandidateValue& candidate, const Shape& shape);

 private:
  SandboxOptions options_;
  AmdToolchain amd_;
  WorkerClient worker_;
  std::map<std::string, TargetResources> amd_cache_;
};

}  // namespace kopt
