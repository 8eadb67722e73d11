// The evaluation protocol over the device seam (sandbox/worker/device.h): the
// verification screen and the timing screen. What they guarantee is written
// in README "What the sandbox guarantees" and SECURITY.md; both run the same
// on a GPU and on the host fake, so CI exercises every verdict.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sandbox/contract/evaluation.h"
#include "sandbox/contract/protocol.h"
#include "sandbox/worker/device.h"

namespace kopt {

// Reports the stage reached ("verify random #1", "time batch 1") so the
// orchestrator can apply each stage's time limit.
using StageCallback = std::function<void(const std::string& stage)>;

// Where the timing screen draws what the candidate must not predict: the
// order of the timed calls and the contents of their inputs. The worker uses
// the operating system's entropy; tests inject a fixed source.
using SecretSource = std::function<uint64_t()>;
uint64_t system_secret();

// A time below bytes / (read bandwidth × this) is not a result: it implies
// more than the measured streaming read bandwidth, beyond timing noise.
constexpr double kPhysicsMargin = 1.15;

struct ScreenContext {
  Device& device;
  const EvalRequest& request;
  const CallTraits& traits;
  EvalResult& result;
  StageCallback stage;
  SecretSource secret = system_secret;
  // Set when a device failure was a kernel fault: the context is gone.
  bool fault = false;
};

// Every input set of every trial: poisoned output, poisoned shared memory,
// guard bands, inputs unchanged, two runs right and identical, no constant
// output. False with the verdict in ctx.result when the candidate failed.
bool verify_screen(ScreenContext& ctx);

// Cold-cache timing where every timed call has its own fresh x and y, in an
// order drawn anew for every replay, every output checked against kopt's
// reference, guards and inputs checked after, and the physics floor.
// Fills ctx.result.timing; false with the verdict when the candidate failed.
bool timing_screen(ScreenContext& ctx);

// A cold-cache sequence: enough weight copies that their problem bytes are
// `l2_multiple` times the L2 (at least 2), and at least kMinCallsPerReplay
// calls, a whole number of rounds over the copies.
struct Rotation {
  size_t copies = 0, calls = 0;
};
Rotation cold_cache_rotation(size_t per_copy_bytes, int64_t l2_bytes, double l2_multiple);

// Median, extremes, spread, GB/s of `timing->bytes` and fraction of the read
// bandwidth, from per-call samples.
void summarise(const std::vector<double>& samples, double read_bandwidth_gbps, Timing* timing);

// The read-only yardstick (kReadOnlyBaseline): the loaded call is kopt's own
// kernel that only reads the weights and x, timed as a candidate is (the same
// rotation, graph, warm-up and number of replays) but with nothing to check.
// What a shape's bytes cost on this device with launch and ramp included:
// the ceiling no GEMV of that shape can beat. Fills ctx.result.timing.
bool read_only_screen(ScreenContext& ctx);

// Both screens, as one evaluation runs them (timing only when the request
// asks for it); on success the verdict is ok with a summary message.
bool run_screens(ScreenContext& ctx);

// The weight copy each of `calls` timed calls reads, drawn from `secret`:
// every copy once per cycle of `copies` calls, each cycle in a new order (no
// period to learn), and a copy never returns within half a cycle (so the L2
// does not still hold it).
std::vector<size_t> weight_copy_order(size_t calls, size_t copies, uint64_t secret);

// How often verification runs a candidate on each input set (the second run
// exposes output left from the first and non-determinism), and the launches
// of its call and its relayout that verification makes in all: a candidate's
// code runs this often before the timing set-up.
constexpr int kRunsPerInputSet = 2;
int verification_calls(int trials, size_t input_sets);
int verification_relayouts(int trials, size_t input_sets);

// The median of timing samples (0 for none); the bandwidth probe uses it too.
double median(std::vector<double> samples);

// The physics floor alone (also applied by kopt bench and the export to any
// figure they report): an error naming the bandwidth the time would imply.
Status check_physics_floor(double median_us, int64_t bytes, double read_bandwidth_gbps);

// The bandwidth the physics floor is drawn at: the measured streaming read,
// bounded by the memory's own figure where the device reports one. A probe
// that failed (0) or read from a cache (above the peak) would otherwise
// switch the floor off or loosen it.
double floor_bandwidth_gbps(double measured_gbps, double peak_gbps);

}  // namespace kopt
