// The device seam: everything verification and timing need from a GPU, as a
// small interface (KTT's compute engine, Kernel Tuner's backends). The GPU
// implementation (gpu_device.cpp) is the worker's; the host implementation
// (host_device.h) runs C++ "kernels" on host memory with guard bands and a
// controllable clock, so the whole protocol and every verdict run without a
// GPU. Nothing here includes a GPU header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sandbox/contract/evaluation.h"
#include "sandbox/contract/problem.h"
#include "sandbox/contract/status.h"

namespace kopt {

// A guarded buffer of the device: guard bands before and after the user
// region, which nobody but a buggy or cheating kernel writes.
using BufferId = int;
constexpr BufferId kNoBuffer = -1;

// The four buffers one call receives, by role (sandbox/contract/problem.h).
struct CallBuffers {
  BufferId x = kNoBuffer;
  BufferId w = kNoBuffer;
  BufferId y = kNoBuffer;
  BufferId ws = kNoBuffer;
};

// The workspace is poisoned (with bytes that are not zero) before the one
// zeroing the contract promises, so reliance on fresh memory shows; it is
// never empty, so every call gets a valid pointer.
constexpr size_t kMinWorkspaceBytes = 256;

// What the protocol needs to know of the loaded call (from the contract).
struct CallTraits {
  bool has_relayout = false;
  size_t packed_bytes = 0;     // the relayout's output
  size_t workspace_bytes = 0;  // at least kMinWorkspaceBytes
  bool nondeterministic = false;
  bool baseline = false;  // a peer, not a candidate (README "kopt bench --baselines")
};

// One timed call's check: its output against the problem's fp64 reference
// of its x (kopt's own copy, never read back from the buffer the candidate
// saw) and the canonical weights of its copy, plus x itself compared with
// what kopt wrote there.
struct CallCheck {
  BufferId x = kNoBuffer;
  BufferId y = kNoBuffer;
  BufferId canonical = kNoBuffer;  // kopt's canonical blob of the call's weight copy
  uint64_t x_stream = 0;           // which random x this call was given
};
struct CallCheckResult {
  int64_t bad = 0;          // elements outside tolerance (NaN included)
  int64_t not_written = 0;  // elements still holding the NaN poison
  int64_t first_bad = -1;
  double expected = 0, got = 0;
  int64_t x_changed = 0;  // elements of x that differ from what kopt wrote
};

class Device {
 public:
  virtual ~Device() = default;

  virtual const DeviceInfo& info() const = 0;
  // Streaming read bandwidth in GB/s (measured once, then cached); 0 if unknown.
  virtual double read_bandwidth_gbps() = 0;
  virtual Status free_memory(size_t* bytes) = 0;

  // Buffers. Copies and fills are ordered with the calls (one stream).
  virtual Status allocate(size_t bytes, BufferId* id) = 0;
  virtual void release(BufferId id) = 0;
  virtual Status upload(BufferId id, const void* data, size_t bytes) = 0;
  virtual Status download(BufferId id, void* data, size_t bytes) = 0;
  virtual Status fill(BufferId id, uint8_t value) = 0;
  virtual Status guards_intact(BufferId id, bool* intact) = 0;
  // A 64-bit digest of the user region, computed on the device.
  virtual Status checksum(BufferId id, uint64_t* digest) = 0;

  // Fills the shared memory any block could be given with `pattern`.
  virtual Status poison_shared_memory(uint32_t pattern) = 0;

  // The loaded call: every launch one call needs, enqueued in order.
  virtual Status call(const CallBuffers& buffers) = 0;
  // The load-time re-layout (only when the traits say there is one).
  virtual Status relayout(BufferId canonical, BufferId packed) = 0;
  virtual Status synchronize() = 0;

  // The timed sequence: `calls` recorded (a captured graph on a GPU, made
  // ready to launch), then replayed as a whole; `time_sequence` times one
  // replay between two events and waits for it. Preparing again replaces it.
  virtual Status prepare_sequence(const std::vector<CallBuffers>& calls, std::string* method) = 0;
  virtual Status replay_sequence() = 0;
  virtual Status time_sequence(double* elapsed_us) = 0;

  // kopt's trusted kernels. fill_random_x writes x number `stream` of
  // `seed` (random_x_value below, `elements` fp16 values) into each buffer;
  // check_calls computes each call's reference with the shape's problem
  // (Problem::device_reference) from the same numbers and compares.
  virtual Status fill_random_x(const std::vector<BufferId>& xs,
                               const std::vector<uint64_t>& streams, uint64_t seed,
                               int64_t elements) = 0;
  virtual Status check_calls(const Shape& shape, uint64_t seed,
                             const std::vector<CallCheck>& checks,
                             std::vector<CallCheckResult>* results) = 0;

  // True when the status says the candidate's kernel faulted (the GPU
  // context is then lost and the worker must exit after answering).
  virtual bool is_fault(const Status& s) const = 0;
};

// Element k of random x number `stream` of `seed`: an integer r in
// [-2047, 2047] over 2048, exact in fp16, so x ~ U(-1, 1) on a fine grid.
// The GPU's trusted kernels compute the same function (gpu_device.cpp).
inline float random_x_value(uint64_t seed, uint64_t stream, uint64_t k) {
  uint64_t z = seed ^ (stream * 0x9E3779B97F4A7C15ull) ^ (k * 0xD1B54A32D192ED03ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  const int r = static_cast<int>(z % 4095) - 2047;
  return static_cast<float>(r) / 2048.0f;
}

}  // namespace kopt
