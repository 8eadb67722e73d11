#include "sandbox/worker/verification.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "sandbox/worker/screens.h"

namespace kopt {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n == 0 ? 0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

uint64_t system_secret() {
  static std::random_device entropy;
  return (static_cast<uint64_t>(entropy()) << 32) ^ entropy();
}

int verification_calls(int trials, size_t input_sets) {
  return kRunsPerInputSet * verification_relayouts(trials, input_sets);
}

int verification_relayouts(int trials, size_t input_sets) {
  return trials * static_cast<int>(input_sets);
}

double floor_bandwidth_gbps(double measured_gbps, double peak_gbps) {
  if (peak_gbps <= 0 || !(peak_gbps < INFINITY)) return measured_gbps;
  if (!(measured_gbps > 0) || measured_gbps > peak_gbps) return peak_gbps;
  return measured_gbps;
}

Status check_physics_floor(double median_us, int64_t bytes, double read_bandwidth_gbps) {
  if (read_bandwidth_gbps <= 0 || bytes <= 0) return Status();
  const double floor_us = static_cast<double>(bytes) / (read_bandwidth_gbps * kPhysicsMargin * 1e3);
  if (median_us >= floor_us) return Status();
  const double implied = median_us > 0 ? static_cast<double>(bytes) / (median_us * 1e3) : INFINITY;
  char buf[320];
  std::snprintf(
      buf, sizeof buf,
      "%.3f us for %lld bytes implies %.0f GB/s, above the measured read bandwidth of %.0f GB/s "
      "(+%.0f%% margin; floor %.3f us): a cheat or a harness bug, never a result",
      median_us, static_cast<long long>(bytes), implied, read_bandwidth_gbps,
      (kPhysicsMargin - 1) * 100, floor_us);
  return Status::error(buf);
}

namespace {

// The buffers of the verification runs: one x, kopt's canonical weights
// (and the packed weights where the candidate relays them out), one y, the
// workspace; the two runs' outputs on the host.
struct VerifySet {
  size_t canonical_bytes = 0, w_bytes = 0, x_bytes = 0, y_bytes = 0;
  BufferId x = kNoBuffer, canonical = kNoBuffer, packed = kNoBuffer, y = kNoBuffer, ws = kNoBuffer;
  BufferId weights = kNoBuffer;  // what the candidate reads: packed or canonical
  std::vector<float> out, again;
  CallBuffers call() const { return {x, weights, y, ws}; }
};

// One input set on the device, as the call sees it: x, the weights after the
// untimed re-layout, the workspace zeroed as the contract promises (after
// poisoning it, so stale contents never help). `w_before` gets the weights
// the candidate reads, to check the runs leave them alone (false: a verdict
// is set).
bool load_input_set(ScreenContext& ctx, Screen& sc, const VerifySet& set, const ProblemData& data,
                    const std::string& what, std::vector<uint8_t>* w_before) {
  Device& dev = ctx.device;
  const bool relayout = ctx.traits.has_relayout;
  Status s = dev.upload(set.x, data.x.data(), set.x_bytes);
  if (s.ok()) s = dev.upload(set.canonical, data.weights.data(), data.weights.size());
  if (s.ok() && relayout) s = dev.fill(set.packed, kPoisonByte);
  if (!s.ok()) return sc.device_fail(s, "upload");
  if (relayout) {
    s = dev.relayout(set.canonical, set.packed);
    if (s.ok()) s = dev.synchronize();
    if (!s.ok()) return sc.launch_fail(s, "relayout " + what);
    if (!sc.unchanged(set.canonical, data.weights, "the canonical weights", "relayout " + what))
      return false;
  }
  s = dev.fill(set.ws, kPoisonByte);
  if (s.ok()) s = dev.fill(set.ws, 0);
  if (!s.ok()) return sc.device_fail(s, "workspace");
  w_before->resize(set.w_bytes);
  if (!(s = dev.download(set.weights, w_before->data(), set.w_bytes)).ok())
    return sc.device_fail(s, "download");
  return true;
}

// The call, twice on the same inputs, each time into a poisoned output and
// with shared memory poisoned with a different pattern; x and the weights
// must come out as they went in (false: a verdict is set).
bool run_twice(Screen& sc, Buffers& buffers, VerifySet& set, const std::vector<uint8_t>& x_before,
               const std::vector<uint8_t>& w_before, const std::string& what) {
  Device& dev = sc.device;
  Status s;
  for (int run = 0; run < kRunsPerInputSet; ++run) {
    std::vector<float>& dst = run == 0 ? set.out : set.again;
    if (!(s = dev.fill(set.y, kPoisonByte)).ok()) return sc.device_fail(s, "poison");
    if (!(s = dev.poison_shared_memory(kSharedPoison[run])).ok())
      return sc.device_fail(s, "shared-memory poison");
    s = dev.call(set.call());
    if (s.ok()) s = dev.synchronize();
    if (!s.ok()) return sc.launch_fail(s, what);
    if (!(s = dev.download(set.y, dst.data(), set.y_bytes)).ok())
      return sc.device_fail(s, "download");
    if (!sc.guards_intact(buffers.all(), what)) return false;
    if (!sc.unchanged(set.x, x_before, "x", what)) return false;
    if (!sc.unchanged(set.weights, w_before, "the weights", what)) return false;
  }
  return true;
}

// After a wrong result: one more run with shared memory zeroed. If that one
// is right, the kernel reads shared memory it never wrote, and says so.
std::string shared_memory_hint(ScreenContext& ctx, const VerifySet& set,
                               const std::vector<double>& ref, const Tolerance& tolerance) {
  Device& dev = ctx.device;
  std::vector<float> probe(set.out.size());
  Status ps = dev.fill(set.y, kPoisonByte);
  if (ps.ok()) ps = dev.poison_shared_memory(0);
  if (ps.ok()) ps = dev.call(set.call());
  if (ps.ok()) ps = dev.synchronize();
  if (ps.ok()) ps = dev.download(set.y, probe.data(), set.y_bytes);
  if (!ps.ok()) {
    ctx.fault = ctx.fault || dev.is_fault(ps);
    return "";
  }
  return compare_output(ref, probe.data(), tolerance).ok
             ? "; right when shared memory starts zeroed: the kernel reads shared memory it "
               "never wrote"
             : "";
}

// The two runs' outputs against the reference: both must write every
// element and be right (the second run would expose output left over from
// the first), not all equal, and equal to each other unless the contract
// says the kernel is nondeterministic (false: a verdict is set).
bool judge_runs(ScreenContext& ctx, Screen& sc, const VerifySet& set, const DatasetSpec& dataset,
                const std::vector<double>& ref, const Tolerance& tolerance, const std::string& what,
                std::string* baseline_misses) {
  for (int run = 0; run < kRunsPerInputSet; ++run) {
    Comparison c = compare_output(ref, run == 0 ? set.out.data() : set.again.data(), tolerance);
    ctx.result.max_abs_error = std::max(ctx.result.max_abs_error, c.max_abs_error);
    // A baseline is a peer, not a candidate: on the problem's stress sets
    // for fp16 arithmetic it can miss the bound by a little. That is its
    // accuracy, recorded, not a reason to leave it out of the comparison;
    // every other check still ends it.
    if (!c.ok && ctx.traits.baseline && dataset.baseline_may_miss && c.not_written == 0) {
      if (baseline_misses->empty())
        *baseline_misses = "; misses the 1e-2 bound on " + what + ": " + c.describe();
      continue;
    }
    if (!c.ok)
      return sc.mismatch(c.not_written > 0 ? Verdict::kNotWritten : Verdict::kWrongResult,
                         dataset.name, c.first_bad, c.expected, c.got,
                         what + (run == 1 ? " (second run)" : "") + ": " + c.describe() +
                             shared_memory_hint(ctx, set, ref, tolerance));
  }
  const std::vector<float>& out = set.out;
  const std::vector<float>& again = set.again;
  if (zero_variance(out.data(), out.size()) && out.size() > 1)
    return sc.fail(Verdict::kZeroVariance, what + ": every output element has the same value");
  if (!ctx.traits.nondeterministic && std::memcmp(out.data(), again.data(), set.y_bytes) != 0) {
    size_t i = 0;
    while (i < out.size() && std::memcmp(&out[i], &again[i], 4) == 0) ++i;
    return sc.mismatch(Verdict::kNondeterministic, dataset.name, static_cast<int64_t>(i), out[i],
                       again[i],
                       what + ": two runs on the same inputs differ at index " + std::to_string(i) +
                           " (declare \"nondeterministic\": true if intended)");
  }
  return true;
}

}  // namespace

bool verify_screen(ScreenContext& ctx) {
  Screen sc(ctx);
  Device& dev = ctx.device;
  const Shape& shape = ctx.request.shape;
  const Problem* problem = find_problem(shape.problem);
  if (!problem) return sc.fail(Verdict::kInternalError, "no registered problem " + shape.problem);
  const CallTraits& traits = ctx.traits;
  const Tolerance tolerance = problem->tolerance();
  const std::vector<DatasetSpec> datasets = problem->datasets();
  VerifySet set;
  set.canonical_bytes = static_cast<size_t>(problem->weight_bytes(shape));
  set.w_bytes = traits.has_relayout ? traits.packed_bytes : set.canonical_bytes;
  set.x_bytes = static_cast<size_t>(problem->x_elements(shape)) * 2;
  const size_t y_elements = static_cast<size_t>(problem->y_elements(shape));
  set.y_bytes = y_elements * 4;

  Buffers buffers(dev);
  Status s = buffers.allocate(set.x_bytes, &set.x);
  if (s.ok()) s = buffers.allocate(set.canonical_bytes, &set.canonical);
  if (s.ok() && traits.has_relayout) s = buffers.allocate(set.w_bytes, &set.packed);
  if (s.ok()) s = buffers.allocate(set.y_bytes, &set.y);
  if (s.ok()) s = buffers.allocate(traits.workspace_bytes, &set.ws);
  if (!s.ok())
    return sc.fail(Verdict::kInternalError, "allocating verification buffers: " + s.message());
  set.weights = traits.has_relayout ? set.packed : set.canonical;
  set.out.resize(y_elements);
  set.again.resize(y_elements);

  std::string baseline_misses;  // a baseline's accuracy note (judge_runs)
  for (int trial = 0; trial < ctx.request.trials; ++trial) {
    for (size_t dataset = 0; dataset < datasets.size(); ++dataset) {
      const std::string what = datasets[dataset].name + " #" + std::to_string(trial + 1);
      sc.enter("verify " + what);
      ProblemData data =
          problem->generate(shape, dataset, verification_seed(ctx.request.seed, trial, dataset));
      if (data.x.size() * 2 != set.x_bytes || data.weights.size() != set.canonical_bytes)
        return sc.fail(Verdict::kInternalError,
                       "the problem's data for " + what + " does not have the sizes it declares");
      const std::vector<double> ref = problem->reference(data);
      const std::vector<uint8_t> x_before(
          reinterpret_cast<const uint8_t*>(data.x.data()),
          reinterpret_cast<const uint8_t*>(data.x.data()) + set.x_bytes);
      std::vector<uint8_t> w_before;
      if (!load_input_set(ctx, sc, set, data, what, &w_before)) return false;
      if (!run_twice(sc, buffers, set, x_before, w_before, what)) return false;
      if (!judge_runs(ctx, sc, set, datasets[dataset], ref, tolerance, what, &baseline_misses))
        return false;
    }
  }
  ctx.result.message = "verified on " +
                       std::to_string(ctx.request.trials * static_cast<int>(datasets.size())) +
                       " input sets" + baseline_misses;
  return true;
}

bool run_screens(ScreenContext& ctx) {
  EvalResult& result = ctx.result;
  bool passed = verify_screen(ctx);
  const std::string verified = result.message;
  if (passed && ctx.request.time) passed = timing_screen(ctx);
  if (!passed) return false;
  result.verdict = Verdict::kOk;
  result.dataset.clear();
  result.message = ctx.request.time
                       ? verified + " and " +
                             std::to_string(ctx.request.time_batches * ctx.request.repetitions) +
                             " timed replays, every timed call checked"
                       : verified + " (not timed)";
  return true;
}

}  // namespace kopt
