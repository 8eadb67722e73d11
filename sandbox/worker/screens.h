// What the verification and timing screens share (internal to the
// screens: sandbox/worker/verification.cpp, sandbox/worker/timing.cpp): the poison
// patterns, the warm-up, the buffers a screen allocates and frees, and the
// screen's verdict helpers.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sandbox/worker/verification.h"

namespace kopt {

// 0xFF bytes are a NaN in fp32: an output element nobody wrote stays NaN.
inline constexpr uint8_t kPoisonByte = 0xFF;
// Shared-memory patterns of the two verification runs: an fp32/fp16 NaN,
// then a huge finite fp32 (0x7F7F7F7F = 3.4e38). Zero, the third, is used
// only to explain a failure.
inline constexpr uint32_t kSharedPoison[2] = {0xFFFFFFFFu, 0x7F7F7F7Fu};
// GPU time spent replaying the timing sequence before the timed replays.
inline constexpr double kWarmupSeconds = 0.05;
// At least this many timed calls per replay, each with its own x and y.
inline constexpr size_t kMinCallsPerReplay = 64;

// Replays the recorded sequence for at least kWarmupSeconds, so the clocks
// have left idle before anything is timed (short kernels timed straight
// after an idle spell run measurably slower); `before_each` runs before
// every replay (fresh inputs for a candidate).
inline Status warm_up(Device& dev, const std::function<Status()>& before_each) {
  const auto start = std::chrono::steady_clock::now();
  Status s;
  do {
    if (before_each) s = before_each();
    if (s.ok()) s = dev.replay_sequence();
    if (s.ok()) s = dev.synchronize();
  } while (s.ok() &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
               kWarmupSeconds);
  return s;
}

// Owns device buffers for one screen and frees them on every path out.
class Buffers {
 public:
  explicit Buffers(Device& d) : device_(d) {}
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
  ~Buffers() {
    for (BufferId id : ids_) device_.release(id);
  }
  Status allocate(size_t bytes, BufferId* id) {
    KOPT_RETURN_IF_ERROR(device_.allocate(bytes, id));
    ids_.push_back(*id);
    return Status();
  }
  const std::vector<BufferId>& all() const { return ids_; }

 private:
  Device& device_;
  std::vector<BufferId> ids_;
};

// Shared by both screens: verdicts and the device failures behind them.
struct Screen {
  ScreenContext& ctx;
  Device& device;
  EvalResult& result;

  explicit Screen(ScreenContext& c) : ctx(c), device(c.device), result(c.result) {}

  void enter(const std::string& stage) {
    result.stage = stage;
    if (ctx.stage) ctx.stage(stage);
  }
  bool fail(Verdict v, const std::string& message) {
    result.verdict = v;
    result.message = message;
    return false;
  }
  // A device failure outside the candidate's own launch: a fault still
  // means the candidate's kernel broke the context; anything else is ours.
  bool device_fail(const Status& s, const std::string& during) {
    if (device.is_fault(s)) {
      ctx.fault = true;
      return fail(Verdict::kLaunchError, "kernel fault during " + during + ": " + s.message());
    }
    return fail(Verdict::kInternalError, during + ": " + s.message());
  }
  // The candidate's own launch failed.
  bool launch_fail(const Status& s, const std::string& what) {
    if (device.is_fault(s)) {
      ctx.fault = true;
      return fail(Verdict::kLaunchError, "kernel fault on " + what + ": " + s.message());
    }
    return fail(Verdict::kLaunchError, "launch failed on " + what + ": " + s.message());
  }
  bool guards_intact(const std::vector<BufferId>& ids, const std::string& during) {
    for (BufferId id : ids) {
      bool intact = true;
      Status s = device.guards_intact(id, &intact);
      if (!s.ok()) return device_fail(s, during);
      if (!intact)
        return fail(Verdict::kGuardViolation, "bytes outside a buffer changed during " + during);
    }
    return true;
  }
  bool unchanged(BufferId id, const std::vector<uint8_t>& before, const std::string& what,
                 const std::string& during) {
    std::vector<uint8_t> now(before.size());
    Status s = device.download(id, now.data(), now.size());
    if (!s.ok()) return device_fail(s, during);
    if (now != before) return fail(Verdict::kInputModified, what + " changed during " + during);
    return true;
  }
  bool mismatch(Verdict v, const std::string& dataset, int64_t index, double expected, double got,
                const std::string& message) {
    result.dataset = dataset;
    result.first_bad_index = index;
    result.expected = expected;
    result.got = got;
    return fail(v, message);
  }
};

}  // namespace kopt
