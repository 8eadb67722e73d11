// Status: the outcome of an operation that can fail for a reason outside our
// control (a GPU call, a file, a subprocess). Functions return it and the
// caller decides; kopt aborts only on its own bugs.
#pragma once

#include <string>
#include <utility>

namespace kopt {

struct GpuError {
  int code;
  std::string message;
};

class Status {
 public:
  Status() = default;
  Status(GpuError e) : ok_(false), gpu_code_(e.code), message_(std::move(e.message)) {}
  static Status error(std::string message) {
    Status s;
    s.ok_ = false;
    s.message_ = std::move(message);
    return s;
  }
  // A GPU was needed and there is none (no driver, no device, a worker that
  // could not open one): callers say what works without one.
  static Status no_device(std::string message) {
    Status s = error(std::move(message));
    s.no_device_ = true;
    return s;
  }
  bool ok() const { return ok_; }
  bool is_no_device() const { return no_device_; }
  const std::string& message() const { return message_; }
  // The GPU error code when the failure came from a GPU call, else 0.
  int gpu_code() const { return gpu_code_; }
  // The same failure with `context` before its message ("worker 1: ").
  Status with_context(const std::string& context) const {
    Status s = *this;
    s.message_ = context + message_;
    return s;
  }

 private:
  bool ok_ = true;
  bool no_device_ = false;
  int gpu_code_ = 0;
  std::string message_;
};

#define KOPT_RETURN_IF_ERROR(expr)               \
  do {                                           \
    ::kopt::Status kopt_status_ = (expr);        \
    if (!kopt_status_.ok()) return kopt_status_; \
  } while (0)

}  // namespace kopt
