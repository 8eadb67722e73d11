// The GPU side of the sandbox: compiles a candidate at run time, loads it on
// the GPU device and runs the verification and timing screens
// (sandbox/worker/verification.h) over it. Runs only inside the worker process (a
// fault or hang here takes the worker down, never the orchestrator).
#pragma once

#include <memory>
#include <string>

#include "sandbox/contract/evaluation.h"
#include "sandbox/contract/protocol.h"
#include "sandbox/worker/gpu_device.h"
#include "sandbox/worker/verification.h"

namespace kopt {

class DeviceRunner {
 public:
  // Initialises the first GPU. Fails with a clear message where there is none.
  static std::unique_ptr<DeviceRunner> create(std::string* error);
  ~DeviceRunner();

  const DeviceInfo& device() const { return gpu_->info(); }
  // Streaming read bandwidth (GB/s) of a read-only kernel over a buffer many
  // times the L2; measured once per process, then cached.
  double read_bandwidth_gbps() { return gpu_->read_bandwidth_gbps(); }

  EvalResult evaluate(const EvalRequest& request, const StageCallback& stage);

  // True after a kernel fault: the context is unusable and the worker must exit.
  bool context_lost() const { return context_lost_; }

  struct Impl;

 private:
  DeviceRunner() = default;
  std::unique_ptr<GpuDevice> gpu_;
  bool context_lost_ = false;
  std::unique_ptr<Impl> impl_;
};

// Without a GPU: the checks that need none (contract, static rules, compile
// for the platform's tuning target, scan of the compiled code). Their verdict
// when one fails, otherwise no_device with `why`.
EvalResult check_without_device(const EvalRequest& request, const std::string& why);

// The demonstration without a GPU (`kopt demo`): the checks above are real;
// then the verification and timing screens run on the host fake, with kopt's
// host reference GEMV standing in for the candidate's code (which only a GPU
// can run) and a modelled time that depends on the candidate. So the loop,
// the database and the browser work end to end; neither correctness nor
// speed says anything about the candidate, and the messages say so.
EvalResult evaluate_on_host_demo(const EvalRequest& request, const StageCallback& stage);
DeviceInfo host_demo_device();

}  // namespace kopt
