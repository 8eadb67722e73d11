// The GPU implementation of the device seam (sandbox/worker/device.h): guarded
// device buffers, the candidate's call enqueued on one stream, the timed
// sequence as a captured graph replayed between two events, and kopt's own
// trusted kernels (random x, the fp64 reference and comparison, checksums,
// shared-memory poison, the read-bandwidth probe). Worker only.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sandbox/worker/device.h"

namespace kopt {

class GpuDevice : public Device {
 public:
  // Initialises the first GPU. Fails with a clear message where there is none.
  static std::unique_ptr<GpuDevice> create(std::string* error);
  ~GpuDevice() override;

  // What one call and the re-layout do, in raw device pointers; set by the
  // evaluation that loaded the candidate (or the baseline) before the screens,
  // and cleared (with any recorded sequence) before its code is unloaded.
  using CallFn = std::function<Status(const void* x, const void* w, void* y, void* ws)>;
  using RelayoutFn = std::function<Status(const void* canonical, void* packed)>;
  void set_call(CallFn call, RelayoutFn relayout);
  // The stream every call and copy is ordered on.
  void* stream() const;
  // Compile options for this device (architecture, warp size).
  const std::vector<std::string>& base_options() const;
  // Loads one of kopt's own kernels (compiled with the base options).
  Status load_builtin(const std::string& source, const char* name, void** function,
                      const Problem* problem = nullptr);

  const DeviceInfo& info() const override { return info_; }
  double read_bandwidth_gbps() override;
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
  Status synchronize() override;
  Status prepare_sequence(const std::vector<CallBuffers>& calls, std::string* method) override;
  Status replay_sequence() override;
  Status time_sequence(double* elapsed_us) override;
  Status fill_random_x(const std::vector<BufferId>& xs, const std::vector<uint64_t>& streams,
                       uint64_t seed, int64_t K) override;
  Status check_calls(const Shape& shape, uint64_t seed, const std::vector<CallCheck>& checks,
                     std::vector<CallCheckResult>* results) override;
  bool is_fault(const Status& s) const override;

  struct Impl;

 private:
  GpuDevice();
  DeviceInfo info_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kopt
