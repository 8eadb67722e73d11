// kopt-worker: the sandbox worker process. Reads requests (JSON lines) on
// stdin and writes events on fd 3; everything a candidate prints goes to
// stdout/stderr, which the orchestrator caps. One worker per GPU. After a
// kernel fault the GPU context is unusable, so the worker answers and exits;
// the orchestrator starts a new one.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <string>

#include "problems/registry.h"
#include "sandbox/contract/json_fields.h"
#include "sandbox/contract/protocol.h"
#include "sandbox/worker/device_runner.h"

namespace {

int g_events_fd = 3;

void emit(const nlohmann::json& event) {
  std::string line = event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  const char* p = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t n = write(g_events_fd, p, left);
    if (n <= 0) _exit(4);  // the orchestrator is gone
    p += n;
    left -= static_cast<size_t>(n);
  }
}

}  // namespace

// Where this worker runs, added to every device description it sends.
void locate(kopt::DeviceInfo* d) {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) d->host = host;
  for (const char* v : {"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"})
    if (const char* value = std::getenv(v); value && d->visible_devices.empty())
      d->visible_devices = value;
  const char* job = std::getenv("SLURM_JOB_ID");
  const char* step = std::getenv("SLURM_STEP_ID");
  if (job && step) d->slurm_step = std::string(job) + "." + step;
}

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  kopt::register_builtin_problems();
  // --host-demo: no GPU; every evaluation runs on the host fake (kopt demo).
  const bool host_demo = argc > 1 && std::string(argv[1]) == "--host-demo";
  // Run by hand (no fd 3): events go to stdout, candidate output to stderr.
  if (fcntl(3, F_GETFD) == -1) {
    g_events_fd = dup(1);
    dup2(2, 1);
  }
  std::unique_ptr<kopt::DeviceRunner> runner;
  std::string device_error;
  bool tried = false;
  auto get_runner = [&]() -> kopt::DeviceRunner* {
    if (!tried) {
      tried = true;
      runner = kopt::DeviceRunner::create(&device_error);
    }
    return runner.get();
  };

  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    nlohmann::json request;
    kopt::Status s = kopt::parse_message(line, &request);
    if (!s.ok()) {
      emit({{"id", 0}, {"event", "error"}, {"message", s.message()}});
      continue;
    }
    // A request of any shape gets an answer, never an exception.
    const auto id = kopt::get_or(request, "id", 0);
    const std::string op = kopt::get_or(request, "op", std::string());
    if (op == "ping") {
      emit({{"id", id}, {"event", "pong"}, {"protocol", kopt::kProtocolVersion}});
    } else if (op == "device" && host_demo) {
      kopt::DeviceInfo d = kopt::host_demo_device();
      d.device_count = 1;
      locate(&d);
      emit({{"id", id},
            {"event", "device"},
            {"device", kopt::to_json(d)},
            {"protocol", kopt::kProtocolVersion}});
    } else if (op == "device") {
      kopt::DeviceRunner* r = get_runner();
      if (!r) {
        emit({{"id", id}, {"event", "device"}, {"error", device_error}});
        continue;
      }
      if (kopt::get_or(request, "measure_bandwidth", false)) r->read_bandwidth_gbps();
      kopt::DeviceInfo d = r->device();
      locate(&d);
      emit({{"id", id},
            {"event", "device"},
            {"device", kopt::to_json(d)},
            {"protocol", kopt::kProtocolVersion}});
    } else if (op == "eval") {
      kopt::EvalRequest req;
      s = kopt::eval_request_from_json(request, &req);
      if (!s.ok()) {
        emit({{"id", id}, {"event", "error"}, {"message", s.message()}});
        continue;
      }
      const auto report_stage = [&](const std::string& stage) {
        std::cout.flush();
        emit({{"id", id}, {"event", "stage"}, {"stage", stage}});
      };
      kopt::DeviceRunner* r = host_demo ? nullptr : get_runner();
      kopt::EvalResult result;
      if (host_demo) {
        result = kopt::evaluate_on_host_demo(req, report_stage);
      } else if (!r) {
        result = kopt::check_without_device(req, device_error);
      } else {
        try {
          result = r->evaluate(req, report_stage);
        } catch (const std::exception& e) {
          // kopt's own bug, reported as such rather than as the candidate's crash.
          result.verdict = kopt::Verdict::kInternalError;
          result.message = std::string("the worker's evaluation threw: ") + e.what();
          result.shape = req.shape.key();
        }
      }
      std::cout.flush();
      locate(&result.device);
      const bool exiting = r && r->context_lost();
      emit({{"id", id},
            {"event", "result"},
            {"result", kopt::to_json(result)},
            {"exiting", exiting}});
      if (exiting) return 3;
    } else {
      emit({{"id", id}, {"event", "error"}, {"message", "unknown op '" + op + "'"}});
    }
  }
  return 0;
}
