// Several sandboxes evaluating at once: one worker per GPU of this machine,
// or one per Slurm job step on a cluster. Each has its own worker process
// (and so its own GPU, its own limits and restarts); results come back in
// request order, for the caller to record.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sandbox/client/sandbox.h"

namespace kopt {

class WorkerPool {
 public:
  explicit WorkerPool(const std::vector<SandboxOptions>& workers);

  size_t size() const { return sandboxes_.size(); }
  // Every worker's device. Timings are compared only within one device
  // model, so workers on different models are an error naming both.
  Status devices(bool measure_bandwidth, std::vector<DeviceInfo>* out);
  // Each worker takes the next request as soon as it is free.
  std::vector<EvalResult> evaluate_all(const std::vector<EvalRequest>& requests);
  // The same, from a source that may grow while it runs: a free worker asks
  // `next` for a request and its tag (false: nothing now; a result may
  // bring more), each result goes to `done` with its tag; `next` and `done`
  // are called one at a time. Returns when `next` has nothing and nothing
  // is in flight. A worker in `lent` (its GPU lent to other work, such as
  // a profile) takes requests only once its function says the GPU is back;
  // the stream does not wait for it.
  using NextRequest = std::function<bool(EvalRequest*, size_t*)>;
  using RequestDone = std::function<void(size_t, EvalResult)>;
  void evaluate_stream(const NextRequest& next, const RequestDone& done,
                       const std::map<int, std::function<bool()>>& lent);
  EvalResult evaluate(const EvalRequest& request);

  // Results carry the worker that ran them and when it started (seconds
  // since the pool was created): the run's timeline.
 private:
  // `request` on worker w, the result marked with the worker and its start.
  EvalResult evaluate_on(size_t w, const EvalRequest& request);
  std::vector<std::unique_ptr<Sandbox>> sandboxes_;
  size_t next_single_ = 0;  // evaluate() takes the workers in turn
  std::chrono::steady_clock::time_point created_ = std::chrono::steady_clock::now();
};

// The worker commands for `kopt run --gpus`: one worker per listed GPU,
// each seeing only its own (CUDA_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES).
std::vector<std::vector<std::string>> per_gpu_worker_commands(
    const std::vector<std::string>& worker, const std::vector<int>& gpus);

// "all", "0,1,3" -> GPU indices; "all" takes `available`.
Status parse_gpu_list(const std::string& text, int available, std::vector<int>* out);

}  // namespace kopt
