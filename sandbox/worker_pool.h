// Several sandboxes evaluating at once: one worker per GPU of this machine,
// or one per Slurm job step on a cluster. Each has its own worker process
// (and so its own GPU, its own limits and restarts); results come back in
// request order, for the caller to record.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "sandbox/sandbox.h"

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
