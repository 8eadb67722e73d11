// The orchestrator's side of a sandbox worker: starts the worker process,
// sends requests, applies the time limit of each stage and a memory limit,
// and turns a hang, crash or garbled reply into a verdict. The worker is
// restarted on the next request; the caller never sees an exception.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sandbox/contract/evaluation.h"
#include "sandbox/contract/protocol.h"
#include "sandbox/contract/subprocess.h"

namespace kopt {

struct WorkerLimits {
  double startup_s = 60;                   // driver initialisation
  double compile_s = 60;                   // run-time compilation and module load
  double run_s = 30;                       // any one verification or timing stage
  size_t memory_bytes = size_t{32} << 30;  // worker resident memory
  size_t output_cap = 64 * 1024;           // candidate output kept per request
};

class WorkerClient {
 public:
  // `command` starts the worker (default: kopt-worker beside this executable).
  // `events_on_stdout`: the worker's events come on its stdout and what a
  // candidate prints on its stderr — for a command that reaches the worker
  // through a launcher forwarding only the standard streams (srun, ssh); the
  // worker does this by itself when it has no fd 3.
  explicit WorkerClient(std::vector<std::string> command, WorkerLimits limits = WorkerLimits(),
                        bool events_on_stdout = false);
  ~WorkerClient();

  EvalResult evaluate(const EvalRequest& request);
  Status device_info(bool measure_bandwidth, DeviceInfo* out);
  // True when the worker answers a ping (starting it if needed).
  Status ping();

  int restarts() const { return restarts_; }

 private:
  enum class Outcome { kReply, kTimeout, kCrash, kMemoryLimit, kMalformed, kStartFailed };
  struct Exchange {
    Outcome outcome = Outcome::kCrash;
    nlohmann::json reply;
    std::string stage;  // the last stage the worker reported
    // Each stage with its seconds, in order ("start" until the first report).
    std::vector<EvalResult::StageTime> stages;
    std::string detail;  // why it failed
    std::string output;  // what the worker printed (capped)
  };
  Exchange exchange(const nlohmann::json& request, const std::string& final_event);
  Status ensure_started();
  void stop();
  double limit_for(const std::string& stage) const;

  std::vector<std::string> command_;
  WorkerLimits limits_;
  bool events_on_stdout_ = false;
  std::unique_ptr<ChildProcess> child_;
  std::string pending_;  // bytes of an incomplete event line
  int next_id_ = 1;
  int restarts_ = 0;
  bool had_worker_ = false;  // a start after the first is a restart
};

std::vector<std::string> default_worker_command();
// A command line split on spaces and tabs (no quoting).
std::vector<std::string> split_command_words(const std::string& text);

}  // namespace kopt
