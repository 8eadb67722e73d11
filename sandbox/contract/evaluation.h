// What the sandbox says about a candidate: a verdict with its reason, the
// numbers, and everything that affects them. A bad candidate is a value,
// never a crash.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "sandbox/contract/candidate.h"
#include "sandbox/contract/problem.h"
#include "sandbox/contract/target_resources.h"

namespace kopt {

// A fixed list, in the order of the evaluation stages.
enum class Verdict {
  kOk,
  kContractError,     // the kopt: block is missing or wrong
  kUnsupportedShape,  // the contract's "requires" excludes this shape
  kStaticRejected,    // source rules or a matrix-core instruction
  kCompileError,
  kLaunchError,       // a launch failed or a kernel faulted (illegal address, trap)
  kTimeout,           // compile or a launch batch ran past its limit; the worker was killed
  kCrash,             // the worker died
  kMemoryLimit,       // the worker grew past its memory limit
  kNotWritten,        // some outputs kept the NaN poison
  kWrongResult,       // outside atol + rtol·|ref|
  kGuardViolation,    // bytes changed outside a buffer
  kInputModified,     // x or weights changed by a run
  kNondeterministic,  // two runs on the same inputs differ (undeclared)
  kZeroVariance,      // constant output
  kImpossibleSpeed,   // faster than the measured read bandwidth allows (physics floor)
  kNoDevice,          // no GPU: nothing was run
  kInternalError,     // kopt's own failure (e.g. out of device memory for the harness)
};
const char* verdict_name(Verdict v);
bool parse_verdict(const std::string& name, Verdict* out);

struct DeviceInfo {
  std::string name;
  std::string platform;  // nvidia-cuda | amd-hip
  std::string arch;      // sm_90, gfx906...
  int driver_version = 0;
  int runtime_version = 0;
  std::string compiler;  // e.g. "nvrtc 13.0"
  int multiprocessors = 0;
  int64_t l2_bytes = 0;
  int warp_size = 0;
  int clock_khz = 0;
  int memory_clock_khz = 0;
  int64_t total_memory = 0;
  int64_t max_shared_bytes = 0;
  int max_threads_per_block = 0;
  double read_bandwidth_gbps = 0;  // measured streaming read, 0 if not measured
  // The memory's own figure (memory clock × bus width × 2), 0 if unknown.
  double peak_bandwidth_gbps = 0;
  // Where the worker ran, filled by the worker: its host, the GPUs it was
  // given (CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES, empty: all), the
  // Slurm job step it runs as (empty: none), and how many GPUs it sees.
  std::string host, visible_devices, slurm_step;
  int device_count = 0;
};

// Where a worker ran, for people: "vm GPU 1 (Slurm step 12.0)"; empty when
// the worker said nothing of it.
std::string where_it_ran(const DeviceInfo& device);

// The limits a launch contract is planned against, from what the device
// reported (a field it did not report keeps DeviceLimits' default).
DeviceLimits limits_of(const DeviceInfo& device);

struct Timing {
  std::string method;  // e.g. "graph-replay/events"
  double median_us = 0;
  double min_us = 0;
  double max_us = 0;
  double spread_pct = 0;  // (max - min) / median
  int repetitions = 0;
  int calls_per_repetition = 0;
  int weight_copies = 0;  // rotated to defeat the L2
  int64_t working_set_bytes = 0;
  int64_t bytes = 0;  // the problem's byte count
  double gbps = 0;
  double fraction_of_read_bw = 0;
};

// The target every candidate is also compiled for offline (the contest's
// card; sandbox/contract/amd_offline.h), whatever GPU measures it; the AMD build of
// the shipped libraries serves it with candidates that build there without
// scratch.
inline constexpr const char* kOfflineTarget = "gfx906";

struct EvalResult {
  Verdict verdict = Verdict::kInternalError;
  std::string message;  // the reason, one line
  std::string stage;    // where it ended: contract, static, compile, load, relayout, verify, time
  std::string log;      // compiler log, candidate output (capped)
  std::string shape;
  std::string candidate_key;
  // Mismatch details (wrong result and friends).
  std::string dataset;
  int64_t first_bad_index = -1;
  double expected = 0, got = 0, max_abs_error = 0;
  std::optional<Timing> timing;
  // Resources per target architecture: the measuring GPU's (device.arch,
  // from the loaded module) and kOfflineTarget's (the offline compile; on an
  // AMD GPU of that architecture, the offline check's figures stand).
  std::map<std::string, TargetResources> targets;
  DeviceInfo device;
  std::string compile_flags;
  // Where the time went, as the orchestrator saw it: the worker that ran it
  // (its index in the run's pool; -1 when unknown), when it started (seconds
  // since the pool was created) and how long it took, and each stage the
  // worker reported ("start" until its first report) with its seconds.
  struct StageTime {
    std::string stage;
    double seconds = 0;
  };
  int worker = -1;
  double started_s = 0, seconds = 0;
  std::vector<StageTime> stage_seconds;
  bool ok() const { return verdict == Verdict::kOk; }
};

// Whether a verified kernel may ship (be a best, a parent, exported): it
// must not spill on the GPU that measured it, and must build for gfx906 where
// that was checked (scratch there only keeps it off the AMD library build,
// which export decides per target). The one place this is decided; the
// database stores the answer with the evaluation.
bool may_ship(const EvalResult& r);

// The key of the measuring GPU's entry in EvalResult::targets: its
// architecture ("sm_90"), or "device" when the result names none.
std::string measured_target(const EvalResult& r);

nlohmann::json to_json(const DeviceInfo& d);
DeviceInfo device_info_from_json(const nlohmann::json& j);
nlohmann::json to_json(const Timing& t);
Timing timing_from_json(const nlohmann::json& j);
nlohmann::json to_json(const TargetResources& a);
TargetResources target_resources_from_json(const nlohmann::json& j);
nlohmann::json to_json(const EvalResult& r);
// Tolerates missing fields; a malformed object gives kInternalError with a message.
EvalResult eval_result_from_json(const nlohmann::json& j);

}  // namespace kopt
