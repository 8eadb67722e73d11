// Child processes with pipes, time limits and capped output: the compiler for
// the offline AMD check and the sandbox worker both run this way, so a hang or
// crash in them never takes the caller down.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "sandbox/contract/status.h"

namespace kopt {

// A running child in its own process group. stdin is a pipe we write;
// stdout+stderr are merged into one pipe we read; optionally fd 3 in the
// child is a second output pipe (the worker's message channel).
class ChildProcess {
 public:
  ChildProcess() = default;
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Where the child's output goes: kMerged, stdout and stderr into output_fd;
  // kFd3Messages, the same plus a message channel on the child's fd 3;
  // kStdoutMessages, stdout is the message channel and stderr the output
  // (for wrappers that forward only the standard streams: srun, ssh).
  enum class Channels { kMerged, kFd3Messages, kStdoutMessages };
  Status start(const std::vector<std::string>& argv, Channels channels);
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  int stdin_fd() const { return in_fd_; }
  int output_fd() const { return out_fd_; }
  int message_fd() const { return msg_fd_; }
  // SIGKILL to the whole process group, then reap.
  void kill_now();
  // Waits up to `seconds` for the child to exit by itself; true if it did.
  bool wait_exit(double seconds);
  // SIGTERM to the process group (a launcher such as srun then cancels what
  // it started elsewhere), `grace_s` to exit, then kill_now().
  void terminate(double grace_s);
  // Reaps the child if it exited; fills a description ("exit 1", "signal 11").
  bool try_wait(std::string* how, int* exit_code = nullptr, int* signal_number = nullptr);
  // Closes our end of stdin (a polite "no more requests").
  void close_stdin();

 private:
  void close_fds();
  pid_t pid_ = -1;
  int in_fd_ = -1, out_fd_ = -1, msg_fd_ = -1;
};

struct ProcessResult {
  int exit_code = -1;  // when it exited normally
  int signal = 0;      // when a signal ended it
  bool timed_out = false;
  bool output_truncated = false;
  std::string output;  // stdout and stderr, capped
};

// Runs argv to completion or `timeout_s`, keeping at most `output_cap` bytes of
// output. A missing program is an error; a failing one is a result.
Status run_process(const std::vector<std::string>& argv, double timeout_s, size_t output_cap,
                   ProcessResult* out);

// Resident memory of a process in bytes (0 if unknown).
size_t resident_bytes(pid_t pid);

// Absolute path of a program found in PATH, or empty.
std::string find_program(const std::string& name);

// Directory of the running executable.
std::string executable_dir();

}  // namespace kopt
