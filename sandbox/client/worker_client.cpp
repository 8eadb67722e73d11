#include "sandbox/client/worker_client.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "sandbox/contract/json_fields.h"

namespace kopt {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {
// Keeps at most `cap` bytes of what the worker prints.
void append_capped(std::string* out, const char* data, size_t n, size_t cap) {
  if (out->size() < cap) out->append(data, std::min(n, cap - out->size()));
}
}  // namespace

std::vector<std::string> split_command_words(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  for (char ch : text) {
    if (ch == ' ' || ch == '\t') {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else {
      word += ch;
    }
  }
  if (!word.empty()) words.push_back(word);
  return words;
}

std::vector<std::string> default_worker_command() {
  // KOPT_WORKER overrides the worker command (words split on spaces), e.g. to
  // start it under a wrapper.
  const char* env = std::getenv("KOPT_WORKER");
  if (env && *env) {
    std::vector<std::string> words = split_command_words(env);
    if (!words.empty()) return words;
  }
  return {executable_dir() + "/kopt-worker"};
}

WorkerClient::WorkerClient(std::vector<std::string> command, WorkerLimits limits,
                           bool events_on_stdout)
    : command_(std::move(command)), limits_(limits), events_on_stdout_(events_on_stdout) {
  // A dead worker must show as EOF on its pipes, not kill us with SIGPIPE.
  signal(SIGPIPE, SIG_IGN);
}

WorkerClient::~WorkerClient() { stop(); }

void WorkerClient::stop() {
  if (child_) {
    child_->close_stdin();
    if (events_on_stdout_) {
      // A launcher (srun) between us and the worker: killing the launcher
      // alone would leave the worker running where it was started. The
      // worker ends at the end of its input; a launcher cancels what it
      // started on SIGTERM.
      if (!child_->wait_exit(2.0)) child_->terminate(3.0);
    } else {
      child_->kill_now();
    }
    child_.reset();
  }
  pending_.clear();
}

Status WorkerClient::ensure_started() {
  if (child_ && child_->running()) {
    std::string how;
    if (!child_->try_wait(&how)) return Status();
  }
  if (had_worker_) ++restarts_;
  had_worker_ = true;
  stop();
  child_ = std::make_unique<ChildProcess>();
  Status s = child_->start(command_, events_on_stdout_ ? ChildProcess::Channels::kStdoutMessages
                                                       : ChildProcess::Channels::kFd3Messages);
  if (!s.ok()) child_.reset();
  return s;
}

double WorkerClient::limit_for(const std::string& stage) const {
  if (stage.empty()) return limits_.startup_s;
  if (stage == "contract" || stage == "static" || stage == "compile" || stage == "load")
    return limits_.compile_s;
  return limits_.run_s;
}

WorkerClient::Exchange WorkerClient::exchange(const json& request, const std::string& final_event) {
  Exchange ex;
  // Each stage's seconds, closed when the next begins (the last one by the
  // caller, which knows when the exchange ended). "start" holds starting
  // the worker (after a crash: seconds) and sending the request.
  auto stage_began = Clock::now();
  ex.stages.push_back({"start", 0});
  auto close_stage = [&] {
    ex.stages.back().seconds = std::chrono::duration<double>(Clock::now() - stage_began).count();
    stage_began = Clock::now();
  };
  Status s = ensure_started();
  if (!s.ok()) {
    ex.outcome = Outcome::kStartFailed;
    ex.detail = s.message();
    return ex;
  }
  std::string line = request.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  for (size_t off = 0; off < line.size();) {
    ssize_t n = write(child_->stdin_fd(), line.data() + off, line.size() - off);
    if (n <= 0) {
      ex.outcome = Outcome::kCrash;
      ex.detail = "the worker closed its input";
      stop();
      return ex;
    }
    off += static_cast<size_t>(n);
  }
  const int id = request.value("id", 0);
  auto deadline = Clock::now() + std::chrono::duration<double>(limit_for(ex.stage));
  char buf[65536];
  bool output_open = true;
  for (;;) {
    auto now = Clock::now();
    if (now >= deadline) {
      ex.outcome = Outcome::kTimeout;
      ex.detail = "no progress within " + std::to_string(static_cast<int>(limit_for(ex.stage))) +
                  " s" + (ex.stage.empty() ? " of starting" : " in stage '" + ex.stage + "'");
      stop();
      return ex;
    }
    if (resident_bytes(child_->pid()) > limits_.memory_bytes) {
      ex.outcome = Outcome::kMemoryLimit;
      ex.detail = "worker memory passed " + std::to_string(limits_.memory_bytes >> 20) + " MiB";
      stop();
      return ex;
    }
    pollfd fds[2] = {{child_->message_fd(), POLLIN, 0},
                     {output_open ? child_->output_fd() : -1, POLLIN, 0}};
    int wait_ms = static_cast<int>(std::min<long long>(
        100, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1));
    int r = poll(fds, 2, wait_ms);
    if (r < 0) continue;
    if (fds[1].revents & (POLLIN | POLLHUP)) {
      ssize_t n = read(child_->output_fd(), buf, sizeof buf);
      if (n <= 0)
        output_open = false;
      else
        append_capped(&ex.output, buf, static_cast<size_t>(n), limits_.output_cap);
    }
    if (fds[0].revents & (POLLIN | POLLHUP)) {
      ssize_t n = read(child_->message_fd(), buf, sizeof buf);
      if (n <= 0) {
        std::string how = "closed its message channel";
        for (int i = 0; i < 50 && !child_->try_wait(&how); ++i) usleep(10000);
        ex.outcome = Outcome::kCrash;
        ex.detail = "the worker " + how + (ex.stage.empty() ? "" : " in stage '" + ex.stage + "'");
        stop();
        return ex;
      }
      pending_.append(buf, static_cast<size_t>(n));
      if (pending_.size() > kMaxMessageBytes) {
        ex.outcome = Outcome::kMalformed;
        ex.detail = "the worker sent a message longer than the limit";
        stop();
        return ex;
      }
      size_t nl;
      while ((nl = pending_.find('\n')) != std::string::npos) {
        std::string msg = pending_.substr(0, nl);
        pending_.erase(0, nl + 1);
        json event;
        Status ps = parse_message(msg, &event);
        if (!ps.ok() || !event.contains("event") || !event["event"].is_string()) {
          ex.outcome = Outcome::kMalformed;
          ex.detail = "malformed worker message: " +
                      (ps.ok() ? std::string("no \"event\" field") : ps.message());
          stop();
          return ex;
        }
        const std::string kind = event["event"];
        if (kind == "stage" && get_or(event, "id", -1) == id) {
          ex.stage = get_or(event, "stage", std::string());
          close_stage();
          ex.stages.push_back({ex.stage, 0});
          deadline = Clock::now() + std::chrono::duration<double>(limit_for(ex.stage));
        } else if (kind == final_event && get_or(event, "id", -1) == id) {
          ex.outcome = Outcome::kReply;
          ex.reply = std::move(event);
          // Collect what the candidate printed before the reply.
          while (output_open) {
            pollfd p{child_->output_fd(), POLLIN, 0};
            if (poll(&p, 1, 0) <= 0) break;
            ssize_t m = read(child_->output_fd(), buf, sizeof buf);
            if (m <= 0) break;
            append_capped(&ex.output, buf, static_cast<size_t>(m), limits_.output_cap);
          }
          return ex;
        } else if (kind == "error") {
          ex.outcome = Outcome::kMalformed;
          ex.detail =
              "the worker refused the request: " + get_or(event, "message", std::string("?"));
          return ex;
        }
      }
    }
  }
}

EvalResult WorkerClient::evaluate(const EvalRequest& request) {
  json msg = to_json(request);
  msg["id"] = next_id_++;
  const auto began = Clock::now();
  Exchange ex = exchange(msg, "result");
  const double seconds = std::chrono::duration<double>(Clock::now() - began).count();
  double closed = 0;
  for (size_t i = 0; i + 1 < ex.stages.size(); ++i) closed += ex.stages[i].seconds;
  if (!ex.stages.empty()) ex.stages.back().seconds = std::max(0.0, seconds - closed);
  EvalResult r;
  if (ex.outcome == Outcome::kReply) {
    r = eval_result_from_json(get_or(ex.reply, "result", json()));
    // After a kernel fault the worker's GPU context is gone and it exits;
    // reap it now so the next request starts a fresh one.
    if (get_or(ex.reply, "exiting", false)) stop();
  } else {
    r.stage = ex.stage;
    r.message = ex.detail;
    switch (ex.outcome) {
      case Outcome::kTimeout:
        r.verdict = Verdict::kTimeout;
        break;
      case Outcome::kCrash:
        r.verdict = Verdict::kCrash;
        break;
      case Outcome::kMemoryLimit:
        r.verdict = Verdict::kMemoryLimit;
        break;
      default:
        r.verdict = Verdict::kInternalError;
        break;
    }
    // A crash while running the candidate's code is the candidate's fault.
    if (r.verdict == Verdict::kCrash &&
        (ex.stage.rfind("verify", 0) == 0 || ex.stage.rfind("time", 0) == 0))
      r.message += " (the candidate's kernel crashed the worker)";
  }
  r.shape = request.shape.key();
  r.seconds = seconds;
  r.stage_seconds = std::move(ex.stages);
  if (!ex.output.empty()) {
    std::string out =
        ex.output.size() >= limits_.output_cap ? ex.output + "\n[output truncated]" : ex.output;
    r.log += (r.log.empty() ? "" : "\n--- worker output ---\n") + out;
  }
  return r;
}

namespace {

// A worker of another build speaks another protocol: said plainly rather
// than as a stream of malformed-request errors.
Status check_protocol(const json& reply) {
  const int version = get_or(reply, "protocol", 1);
  if (version == kProtocolVersion) return Status();
  return Status::error("the worker speaks protocol version " + std::to_string(version) +
                       ", this kopt version " + std::to_string(kProtocolVersion) +
                       ": kopt-worker comes from another build (rebuild or reinstall both)");
}

}  // namespace

Status WorkerClient::device_info(bool measure_bandwidth, DeviceInfo* out) {
  json msg{{"id", next_id_++}, {"op", "device"}, {"measure_bandwidth", measure_bandwidth}};
  Exchange ex = exchange(msg, "device");
  if (ex.outcome != Outcome::kReply) return Status::error("worker: " + ex.detail);
  // The worker is up but could not open a GPU (no driver, no device).
  if (ex.reply.contains("error"))
    return Status::no_device(get_or(ex.reply, "error", std::string("no device")));
  KOPT_RETURN_IF_ERROR(check_protocol(ex.reply));
  *out = device_info_from_json(get_or(ex.reply, "device", json()));
  return Status();
}

Status WorkerClient::ping() {
  json msg{{"id", next_id_++}, {"op", "ping"}};
  Exchange ex = exchange(msg, "pong");
  if (ex.outcome != Outcome::kReply) return Status::error("worker: " + ex.detail);
  return check_protocol(ex.reply);
}

}  // namespace kopt
