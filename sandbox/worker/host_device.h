// The host fake of the device seam: C++ "kernels" on host memory with real
// guard bands, shared memory that is poisoned like the GPU's, simulated
// faults and a controllable clock (each launch says how long it would have
// taken). CI runs the whole verification and timing protocol, and every
// cheat class, on it without a GPU; `kopt demo` shows the loop with it.
// Its timings are a model, never a measurement.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sandbox/worker/device.h"

namespace kopt {

// What one host launch sees: the call's raw pointers (the guard bands really
// lie around them, so an out-of-bounds write lands there), the shape, and a
// block's worth of "shared memory" holding whatever was there before.
struct HostLaunch {
  const uint16_t* x = nullptr;  // fp16 bits
  const uint8_t* w = nullptr;   // the canonical weights or the re-layout's output
  float* y = nullptr;
  float* ws = nullptr;
  Shape shape;
  uint32_t* shared = nullptr;
  size_t shared_words = 0;
  // Set by the kernel: how long this launch would take (the fake clock
  // advances by it) and whether it faulted (an illegal address).
  double cost_us = 0;
  bool fault = false;
};

struct HostProgram {
  std::function<void(HostLaunch&)> call;
  // Optional load-time re-layout: canonical weights -> packed (traits.packed_bytes).
  std::function<void(const uint8_t* canonical, uint8_t* packed, const Shape& shape)> relayout;
  CallTraits traits;
};

struct HostDeviceOptions {
  std::string name = "host fake (timings are a model)";
  double read_bandwidth_gbps = 1000;  // the fake's "measured" streaming read
  double peak_bandwidth_gbps = 0;     // the fake memory's own figure (0: unknown)
  int64_t l2_bytes = 256 * 1024;      // small, so the rotation stays small
  size_t shared_bytes = 48 * 1024;
};

// The status code of a simulated kernel fault (CUDA's illegal address).
constexpr int kHostFaultCode = 700;

class HostDevice : public Device {
 public:
  explicit HostDevice(HostDeviceOptions options = HostDeviceOptions());
  ~HostDevice() override;

  void load(HostProgram program, const Shape& shape);
  // Simulated time spent in kernels so far, in µs.
  double clock_us() const { return clock_us_; }

  const DeviceInfo& info() const override { return info_; }
  double read_bandwidth_gbps() override { return info_.read_bandwidth_gbps; }
  Status free_memory(size_t* bytes) override;
  Status allocate(size_t bytes, BufferId* id) override;
  void release(BufferId id) override;
  Status upload(BufferId id, const void* data, size_t bytes) override;
  Status download(BufferId id, void* data, size_t bytes) override;
  Status fill(BufferId id, uint8_t value) override;
  Status guards_intact(BufferId id, bool* intact) override;
  Status checksum(BufferId id, uint64_t* digest) override;
  Status poison_shared_memory(uint32_t pattern) override;
  Status call(const CallBuffers& buffers) override;
  Status relayout(BufferId canonical, BufferId packed) override;
  Status synchronize() override { return Status(); }
  Status prepare_sequence(const std::vector<CallBuffers>& calls, std::string* method) override;
  Status replay_sequence() override;
  Status time_sequence(double* elapsed_us) override;
  Status fill_random_x(const std::vector<BufferId>& xs, const std::vector<uint64_t>& streams,
                       uint64_t seed, int64_t K) override;
  Status check_calls(const Shape& shape, uint64_t seed, const std::vector<CallCheck>& checks,
                     std::vector<CallCheckResult>* results) override;
  bool is_fault(const Status& s) const override { return s.gpu_code() == kHostFaultCode; }

 private:
  struct Buffer {
    std::vector<uint8_t> bytes;  // guard | user | guard
    size_t size = 0;
    uint8_t* user() { return bytes.data() + kGuard; }
  };
  static constexpr size_t kGuard = 4096;
  static constexpr uint8_t kGuardByte = 0xA5;
  Buffer* find(BufferId id);

  DeviceInfo info_;
  HostDeviceOptions options_;
  std::map<BufferId, std::unique_ptr<Buffer>> buffers_;
  BufferId next_id_ = 0;
  HostProgram program_;
  Shape shape_;
  std::vector<uint32_t> shared_;
  std::vector<CallBuffers> sequence_;
  // Which random x each buffer holds (x number, seed), as fill_random_x wrote it.
  std::map<BufferId, std::pair<uint64_t, uint64_t>> x_written_;
  double clock_us_ = 0;
};

// An honest host kernel: the shape's problem's reference over x and the
// canonical weights, rounded to fp32 into y; and the time an honest kernel
// at `fraction` of the read bandwidth would take.
void host_reference(const uint16_t* x, const uint8_t* canonical, float* y, const Shape& shape);
double modelled_time_us(const Shape& shape, double read_bandwidth_gbps, double fraction);

}  // namespace kopt
