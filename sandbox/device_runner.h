// The GPU side of the sandbox: compiles a candidate at run time, verifies it
// and times it. Runs only inside the worker process (a fault or hang here
// takes the worker down, never the orchestrator).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "sandbox/evaluation.h"
#include "sandbox/problem.h"
#include "sandbox/protocol.h"

namespace kopt {

// Reports progress ("compile", "verify random #1", "time batch 1") so the
// orchestrator can apply each stage's time limit.
using StageCallback = std::function<void(const std::string& stage)>;

class DeviceRunner {
 public:
  // Initialises the first GPU. Fails with a clear message where there is none.
  static std::unique_ptr<DeviceRunner> create(std::string* error);
  ~DeviceRunner();

  const DeviceInfo& device() const { return device_; }
  // Streaming read bandwidth (GB/s) of a read-only kernel over a buffer many
  // times the L2; measured once per process, then cached.
  double read_bandwidth_gbps();

  EvalResult evaluate(const EvalRequest& request, const StageCallback& stage);

  // True after a kernel fault: the context is unusable and the worker must exit.
  bool context_lost() const { return context_lost_; }

  struct Impl;

 private:
  DeviceRunner() = default;
  // Fills the shared memory every block could be given with `pattern`, on
  // the evaluation stream, and waits for it.
  Status poison_shared_memory(uint32_t pattern);
  DeviceInfo device_;
  bool context_lost_ = false;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kopt
