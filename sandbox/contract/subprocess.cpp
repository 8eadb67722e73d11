#include "sandbox/contract/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace kopt {

ChildProcess::~ChildProcess() {
  if (pid_ > 0) kill_now();
  close_fds();
}

void ChildProcess::close_fds() {
  for (int* fd : {&in_fd_, &out_fd_, &msg_fd_})
    if (*fd >= 0) {
      close(*fd);
      *fd = -1;
    }
}

void ChildProcess::close_stdin() {
  if (in_fd_ >= 0) {
    close(in_fd_);
    in_fd_ = -1;
  }
}

Status ChildProcess::start(const std::vector<std::string>& argv, Channels channels) {
  if (argv.empty()) return Status::error("no program to run");
  const bool message_channel = channels != Channels::kMerged;
  int in[2], out[2], msg[2] = {-1, -1};
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 ||
      (message_channel && pipe2(msg, O_CLOEXEC) != 0))
    return Status::error(std::string("pipe: ") + std::strerror(errno));
  // An exec failure is reported through this pipe (closed on a successful exec).
  int exec_status[2];
  if (pipe2(exec_status, O_CLOEXEC) != 0)
    return Status::error(std::string("pipe: ") + std::strerror(errno));
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) return Status::error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);
    dup2(in[0], 0);
    if (channels == Channels::kStdoutMessages) {
      dup2(msg[1], 1);
      dup2(out[1], 2);
    } else {
      dup2(out[1], 1);
      dup2(out[1], 2);
      if (message_channel) dup2(msg[1], 3);
    }
    signal(SIGPIPE, SIG_DFL);
    execvp(args[0], args.data());
    int err = errno;
    ssize_t ignored = write(exec_status[1], &err, sizeof err);
    (void)ignored;
    _exit(127);
  }
  setpgid(pid, pid);
  close(in[0]);
  close(out[1]);
  if (message_channel) close(msg[1]);
  close(exec_status[1]);
  int err = 0;
  ssize_t n = read(exec_status[0], &err, sizeof err);
  close(exec_status[0]);
  pid_ = pid;
  in_fd_ = in[1];
  out_fd_ = out[0];
  msg_fd_ = message_channel ? msg[0] : -1;
  if (n == static_cast<ssize_t>(sizeof err)) {
    kill_now();
    close_fds();
    return Status::error("cannot run " + argv[0] + ": " + std::strerror(err));
  }
  return Status();
}

void ChildProcess::kill_now() {
  if (pid_ <= 0) return;
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  int status;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

bool ChildProcess::wait_exit(double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::string how;
  while (!try_wait(&how)) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

void ChildProcess::terminate(double grace_s) {
  if (pid_ <= 0) return;
  ::kill(-pid_, SIGTERM);
  ::kill(pid_, SIGTERM);
  if (!wait_exit(grace_s)) kill_now();
}

bool ChildProcess::try_wait(std::string* how, int* exit_code, int* signal_number) {
  if (pid_ <= 0) return true;
  int status = 0;
  pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == 0) return false;
  if (r == pid_) {
    if (WIFSIGNALED(status)) {
      *how = "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
             strsignal(WTERMSIG(status)) + ")";
      if (signal_number) *signal_number = WTERMSIG(status);
    } else if (WIFEXITED(status)) {
      *how = "exited with status " + std::to_string(WEXITSTATUS(status));
      if (exit_code) *exit_code = WEXITSTATUS(status);
    }
    ::kill(-pid_, SIGKILL);  // stray grandchildren in its group
  }
  pid_ = -1;
  return true;
}

Status run_process(const std::vector<std::string>& argv, double timeout_s, size_t output_cap,
                   ProcessResult* out) {
  *out = ProcessResult();
  ChildProcess child;
  KOPT_RETURN_IF_ERROR(child.start(argv, ChildProcess::Channels::kMerged));
  child.close_stdin();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  char buf[4096];
  bool open = true;
  while (open) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      out->timed_out = true;
      child.kill_now();
      return Status();
    }
    pollfd p{child.output_fd(), POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(std::min<long long>(left, 200)));
    if (r < 0 && errno != EINTR) break;
    if (r > 0) {
      ssize_t n = read(child.output_fd(), buf, sizeof buf);
      if (n <= 0) {
        open = false;
      } else if (out->output.size() < output_cap) {
        out->output.append(buf, static_cast<size_t>(std::min<size_t>(
                                    static_cast<size_t>(n), output_cap - out->output.size())));
      } else {
        out->output_truncated = true;
      }
    }
  }
  // Output closed: wait for the exit, still under the deadline.
  for (;;) {
    std::string how;
    if (child.try_wait(&how, &out->exit_code, &out->signal)) return Status();
    if (std::chrono::steady_clock::now() > deadline) {
      out->timed_out = true;
      child.kill_now();
      return Status();
    }
    usleep(2000);
  }
}

size_t resident_bytes(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/statm");
  size_t pages_total = 0, pages_resident = 0;
  if (!(f >> pages_total >> pages_resident)) return 0;
  return pages_resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string full = dir + "/" + name;
    if (access(full.c_str(), X_OK) == 0) return full;
  }
  return "";
}

std::string executable_dir() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string p(buf, static_cast<size_t>(n));
  return p.substr(0, p.rfind('/'));
}

}  // namespace kopt
