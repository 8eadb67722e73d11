#include "sandbox/verification.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

namespace kopt {

namespace {

// 0xFF bytes are a NaN in fp32: an output element nobody wrote stays NaN.
constexpr uint8_t kPoisonByte = 0xFF;
// Shared-memory patterns of the two verification runs: an fp32/fp16 NaN,
// then a huge finite fp32 (0x7F7F7F7F = 3.4e38). Zero, the third, is used
// only to explain a failure.
constexpr uint32_t kSharedPoison[2] = {0xFFFFFFFFu, 0x7F7F7F7Fu};
// GPU time spent replaying the timing sequence before the timed replays.
constexpr double kWarmupSeconds = 0.05;
// At least this many timed calls per replay, each with its own x and y.
constexpr size_t kMinCallsPerReplay = 64;

// Replays the recorded sequence for at least kWarmupSeconds, so the clocks
// have left idle before anything is timed (short kernels timed straight
// after an idle spell run measurably slower); `before_each` runs before
// every replay (fresh inputs for a candidate).
Status warm_up(Device& dev, const std::function<Status()>& before_each) {
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

}  // namespace

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

bool verify_screen(ScreenContext& ctx) {
  Screen sc(ctx);
  Device& dev = ctx.device;
  const Shape& shape = ctx.request.shape;
  const Problem* problem = find_problem(shape.problem);
  if (!problem) return sc.fail(Verdict::kInternalError, "no registered problem " + shape.problem);
  const CallTraits& traits = ctx.traits;
  const Tolerance tolerance = problem->tolerance();
  const std::vector<DatasetSpec> datasets = problem->datasets();
  const size_t canonical_bytes = static_cast<size_t>(problem->weight_bytes(shape));
  const size_t w_bytes = traits.has_relayout ? traits.packed_bytes : canonical_bytes;
  const size_t x_bytes = static_cast<size_t>(problem->x_elements(shape)) * 2,
               y_elements = static_cast<size_t>(problem->y_elements(shape)),
               y_bytes = y_elements * 4;

  Buffers buffers(dev);
  BufferId x, canonical, packed = kNoBuffer, y, ws;
  Status s = buffers.allocate(x_bytes, &x);
  if (s.ok()) s = buffers.allocate(canonical_bytes, &canonical);
  if (s.ok() && traits.has_relayout) s = buffers.allocate(w_bytes, &packed);
  if (s.ok()) s = buffers.allocate(y_bytes, &y);
  if (s.ok()) s = buffers.allocate(traits.workspace_bytes, &ws);
  if (!s.ok())
    return sc.fail(Verdict::kInternalError, "allocating verification buffers: " + s.message());
  const BufferId weights = traits.has_relayout ? packed : canonical;
  const CallBuffers call{x, weights, y, ws};

  std::vector<float> out(y_elements), again(y_elements);
  // After a wrong result: one more run with shared memory zeroed. If that one
  // is right, the kernel reads shared memory it never wrote, and says so.
  auto shared_memory_hint = [&](const std::vector<double>& ref) -> std::string {
    std::vector<float> probe(out.size());
    Status ps = dev.fill(y, kPoisonByte);
    if (ps.ok()) ps = dev.poison_shared_memory(0);
    if (ps.ok()) ps = dev.call(call);
    if (ps.ok()) ps = dev.synchronize();
    if (ps.ok()) ps = dev.download(y, probe.data(), y_bytes);
    if (!ps.ok()) {
      ctx.fault = ctx.fault || dev.is_fault(ps);
      return "";
    }
    return compare_output(ref, probe.data(), tolerance).ok
               ? "; right when shared memory starts zeroed: the kernel reads shared memory it "
                 "never wrote"
               : "";
  };

  std::string baseline_misses;  // a baseline's accuracy note (see below)
  for (int trial = 0; trial < ctx.request.trials; ++trial) {
    for (size_t dataset = 0; dataset < datasets.size(); ++dataset) {
      const std::string& dataset_name = datasets[dataset].name;
      const std::string what = dataset_name + " #" + std::to_string(trial + 1);
      sc.enter("verify " + what);
      ProblemData data =
          problem->generate(shape, dataset, verification_seed(ctx.request.seed, trial, dataset));
      if (data.x.size() * 2 != x_bytes || data.weights.size() != canonical_bytes)
        return sc.fail(Verdict::kInternalError,
                       "the problem's data for " + what + " does not have the sizes it declares");
      const std::vector<double> ref = problem->reference(data);
      const std::vector<uint8_t> x_before(
          reinterpret_cast<const uint8_t*>(data.x.data()),
          reinterpret_cast<const uint8_t*>(data.x.data()) + x_bytes);
      s = dev.upload(x, data.x.data(), x_bytes);
      if (s.ok()) s = dev.upload(canonical, data.weights.data(), data.weights.size());
      if (s.ok() && traits.has_relayout) s = dev.fill(packed, kPoisonByte);
      if (!s.ok()) return sc.device_fail(s, "upload");
      // Load time: the re-layout, untimed, then the workspace zeroing the
      // contract promises (after poisoning it, so stale contents never help).
      if (traits.has_relayout) {
        s = dev.relayout(canonical, packed);
        if (s.ok()) s = dev.synchronize();
        if (!s.ok()) return sc.launch_fail(s, "relayout " + what);
        if (!sc.unchanged(canonical, data.weights, "the canonical weights", "relayout " + what))
          return false;
      }
      s = dev.fill(ws, kPoisonByte);
      if (s.ok()) s = dev.fill(ws, 0);
      if (!s.ok()) return sc.device_fail(s, "workspace");
      std::vector<uint8_t> w_before(w_bytes);
      if (!(s = dev.download(weights, w_before.data(), w_bytes)).ok())
        return sc.device_fail(s, "download");

      // Run, twice on the same inputs, each time into a poisoned output and
      // with shared memory poisoned with a different pattern.
      for (int run = 0; run < kRunsPerInputSet; ++run) {
        std::vector<float>& dst = run == 0 ? out : again;
        if (!(s = dev.fill(y, kPoisonByte)).ok()) return sc.device_fail(s, "poison");
        if (!(s = dev.poison_shared_memory(kSharedPoison[run])).ok())
          return sc.device_fail(s, "shared-memory poison");
        s = dev.call(call);
        if (s.ok()) s = dev.synchronize();
        if (!s.ok()) return sc.launch_fail(s, what);
        if (!(s = dev.download(y, dst.data(), y_bytes)).ok()) return sc.device_fail(s, "download");
        if (!sc.guards_intact(buffers.all(), what)) return false;
        if (!sc.unchanged(x, x_before, "x", what)) return false;
        if (!sc.unchanged(weights, w_before, "the weights", what)) return false;
      }
      // Both runs must write every element and be right (the second run
      // would expose output left over from the first).
      for (int run = 0; run < kRunsPerInputSet; ++run) {
        Comparison c = compare_output(ref, run == 0 ? out.data() : again.data(), tolerance);
        ctx.result.max_abs_error = std::max(ctx.result.max_abs_error, c.max_abs_error);
        // A baseline is a peer, not a candidate: on the problem's stress
        // sets for fp16 arithmetic it can miss the bound by a little. That
        // is its accuracy, recorded, not a reason to leave it out of the
        // comparison; every other check still ends it.
        if (!c.ok && traits.baseline && datasets[dataset].baseline_may_miss && c.not_written == 0) {
          if (baseline_misses.empty())
            baseline_misses = "; misses the 1e-2 bound on " + what + ": " + c.describe();
          continue;
        }
        if (!c.ok)
          return sc.mismatch(c.not_written > 0 ? Verdict::kNotWritten : Verdict::kWrongResult,
                             dataset_name, c.first_bad, c.expected, c.got,
                             what + (run == 1 ? " (second run)" : "") + ": " + c.describe() +
                                 shared_memory_hint(ref));
      }
      if (zero_variance(out.data(), out.size()) && out.size() > 1)
        return sc.fail(Verdict::kZeroVariance, what + ": every output element has the same value");
      if (!traits.nondeterministic && std::memcmp(out.data(), again.data(), y_bytes) != 0) {
        size_t i = 0;
        while (i < out.size() && std::memcmp(&out[i], &again[i], 4) == 0) ++i;
        return sc.mismatch(
            Verdict::kNondeterministic, dataset_name, static_cast<int64_t>(i), out[i], again[i],
            what + ": two runs on the same inputs differ at index " + std::to_string(i) +
                " (declare \"nondeterministic\": true if intended)");
      }
    }
  }
  ctx.result.message = "verified on " +
                       std::to_string(ctx.request.trials * static_cast<int>(datasets.size())) +
                       " input sets" + baseline_misses;
  return true;
}

namespace {

// One timed call: which x slot, y slot and weight copy it gets.
struct CallSlot {
  size_t x = 0, y = 0, copy = 0;
};

// A replay's order, drawn from the secret: x and y slots each in a fresh
// random order, so no call can know which x, y and weights go together in
// another call (and so compute a later call's output early); weight copies
// in a shuffled cycle, so each copy comes back only after all the others
// and the L2 never still holds it.
std::vector<CallSlot> draw_order(size_t calls, size_t copies, uint64_t secret) {
  std::mt19937_64 rng(secret);
  std::vector<size_t> xs(calls), ys(calls);
  std::iota(xs.begin(), xs.end(), 0);
  std::iota(ys.begin(), ys.end(), 0);
  std::shuffle(xs.begin(), xs.end(), rng);
  std::shuffle(ys.begin(), ys.end(), rng);
  const std::vector<size_t> copy = weight_copy_order(calls, copies, rng());
  std::vector<CallSlot> order(calls);
  for (size_t p = 0; p < calls; ++p) order[p] = {xs[p], ys[p], copy[p]};
  return order;
}

}  // namespace

std::vector<size_t> weight_copy_order(size_t calls, size_t copies, uint64_t secret) {
  std::vector<size_t> order;
  order.reserve(calls);
  if (copies == 0) return order;
  std::mt19937_64 rng(secret);
  std::vector<size_t> cycle(copies);
  std::iota(cycle.begin(), cycle.end(), 0);
  std::shuffle(cycle.begin(), cycle.end(), rng);
  const size_t half = copies / 2;
  while (order.size() < calls) {
    order.insert(order.end(), cycle.begin(), cycle.end());
    // The next cycle: the copies of this one's first half, shuffled, then
    // those of its second half, shuffled. Every cycle is a new order, yet a
    // copy comes back only after at least half the others have passed.
    std::shuffle(cycle.begin(), cycle.begin() + static_cast<long>(half), rng);
    std::shuffle(cycle.begin() + static_cast<long>(half), cycle.end(), rng);
  }
  order.resize(calls);
  return order;
}

Rotation cold_cache_rotation(size_t per_copy_bytes, int64_t l2_bytes, double l2_multiple) {
  const size_t target = static_cast<size_t>(l2_multiple * static_cast<double>(l2_bytes));
  Rotation r;
  r.copies = std::clamp<size_t>((target + per_copy_bytes - 1) / std::max<size_t>(per_copy_bytes, 1),
                                2, 4096);
  r.calls = r.copies * std::max<size_t>(1, (kMinCallsPerReplay + r.copies - 1) / r.copies);
  return r;
}

void summarise(const std::vector<double>& samples, double read_bandwidth_gbps, Timing* timing) {
  if (samples.empty()) return;
  timing->repetitions = static_cast<int>(samples.size());
  timing->median_us = median(samples);
  timing->min_us = *std::min_element(samples.begin(), samples.end());
  timing->max_us = *std::max_element(samples.begin(), samples.end());
  timing->spread_pct =
      timing->median_us > 0 ? 100.0 * (timing->max_us - timing->min_us) / timing->median_us : 0;
  timing->gbps = timing->median_us > 0
                     ? static_cast<double>(timing->bytes) / (timing->median_us * 1e-6) / 1e9
                     : 0;
  timing->fraction_of_read_bw = read_bandwidth_gbps > 0 ? timing->gbps / read_bandwidth_gbps : 0;
}

bool timing_screen(ScreenContext& ctx) {
  Screen sc(ctx);
  Device& dev = ctx.device;
  const EvalRequest& req = ctx.request;
  const Shape& shape = req.shape;
  const Problem* problem = find_problem(shape.problem);
  if (!problem) return sc.fail(Verdict::kInternalError, "no registered problem " + shape.problem);
  const CallTraits& traits = ctx.traits;
  const size_t canonical_bytes = static_cast<size_t>(problem->weight_bytes(shape));
  const size_t w_bytes = traits.has_relayout ? traits.packed_bytes : canonical_bytes;
  const int64_t x_elements = problem->x_elements(shape);
  const size_t x_bytes = static_cast<size_t>(x_elements) * 2,
               y_bytes = static_cast<size_t>(problem->y_elements(shape)) * 4;
  const size_t ws_bytes = traits.workspace_bytes;

  // Cold cache: enough weight copies that the working set is several times
  // the L2, as every layer of a model has its own weights. The count comes
  // from the problem's own bytes (the canonical weights, x, y), never from
  // sizes the contract declares: a huge workspace or packed_bytes that is
  // mostly unread would otherwise shrink the rotation until the weights
  // that are read fit in the L2.
  sc.enter("time setup");
  const double bw = floor_bandwidth_gbps(dev.read_bandwidth_gbps(), dev.info().peak_bandwidth_gbps);
  const size_t per_copy = canonical_bytes + x_bytes + y_bytes;
  const Rotation rotation =
      cold_cache_rotation(per_copy, dev.info().l2_bytes, req.working_set_l2_multiple);
  const size_t copies = rotation.copies, calls = rotation.calls;
  // Every call its own x and y; each weight copy its workspace; kopt's own
  // canonical copy of relaid-out weights for the reference.
  const size_t needed =
      copies * (w_bytes + ws_bytes + (traits.has_relayout ? canonical_bytes : 0)) +
      calls * (x_bytes + y_bytes);
  size_t free_bytes = 0;
  Status s = dev.free_memory(&free_bytes);
  if (!s.ok()) return sc.device_fail(s, "timing setup");
  if (needed > free_bytes / 2)
    return sc.fail(
        traits.baseline || (w_bytes <= 2 * canonical_bytes && ws_bytes <= canonical_bytes)
            ? Verdict::kInternalError
            : Verdict::kContractError,
        "not enough device memory to rotate " + std::to_string(copies) + " weight copies of " +
            std::to_string((w_bytes + ws_bytes) >> 10) +
            " KiB (weights or re-layout plus workspace; " + std::to_string(needed >> 20) +
            " MiB in all)");

  const uint64_t secret = ctx.secret();
  Buffers buffers(dev);
  std::vector<BufferId> w(copies), canonical(copies), ws(copies), xs(calls), ys(calls);
  std::vector<uint64_t> w_digest(copies), canonical_digest(copies);
  for (size_t i = 0; i < copies && s.ok(); ++i) {
    s = buffers.allocate(w_bytes, &w[i]);
    if (s.ok()) s = buffers.allocate(ws_bytes, &ws[i]);
    if (s.ok()) s = dev.fill(ws[i], kPoisonByte);
    if (s.ok()) s = dev.fill(ws[i], 0);
    canonical[i] = w[i];
    if (s.ok() && traits.has_relayout) s = buffers.allocate(canonical_bytes, &canonical[i]);
    if (!s.ok()) break;
    // Dataset 0 is the plain random set (Problem::datasets).
    ProblemData data = problem->generate(shape, 0, req.seed * 7919ull + 1000 + i);
    if (data.weights.size() != canonical_bytes)
      return sc.fail(Verdict::kInternalError,
                     "the problem's weights do not have the size it declares");
    s = dev.upload(canonical[i], data.weights.data(), data.weights.size());
    // kopt's canonical copy is fingerprinted before any candidate code runs
    // on it: what checks the timed outputs must be what kopt generated.
    if (s.ok()) s = dev.checksum(canonical[i], &canonical_digest[i]);
    if (s.ok() && traits.has_relayout) {
      s = dev.fill(w[i], kPoisonByte);
      if (s.ok()) s = dev.relayout(canonical[i], w[i]);
      if (s.ok()) s = dev.synchronize();
      if (!s.ok()) return sc.launch_fail(s, "relayout of weight copy " + std::to_string(i));
    }
    if (s.ok()) s = dev.checksum(w[i], &w_digest[i]);
  }
  for (size_t c = 0; c < calls && s.ok(); ++c) {
    s = buffers.allocate(x_bytes, &xs[c]);
    if (s.ok()) s = buffers.allocate(y_bytes, &ys[c]);
  }
  if (!s.ok()) return sc.device_fail(s, "timing allocation");

  Timing timing;
  timing.weight_copies = static_cast<int>(copies);
  timing.working_set_bytes = static_cast<int64_t>(copies * per_copy);  // in the problem's bytes
  timing.calls_per_repetition = static_cast<int>(calls);
  timing.bytes = problem->bytes_moved(shape);

  // Every replay, warm-up included, gets x that no call has seen before:
  // stream numbers are never reused within an evaluation.
  uint64_t next_stream = 0;
  const uint64_t x_seed = req.seed ^ (secret * 0x2545F4914F6CDD1Dull);
  std::vector<uint64_t> streams(calls);
  auto refresh_inputs = [&]() -> Status {
    for (auto& st : streams) st = next_stream++;
    KOPT_RETURN_IF_ERROR(dev.fill_random_x(xs, streams, x_seed, x_elements));
    for (BufferId y : ys) KOPT_RETURN_IF_ERROR(dev.fill(y, kPoisonByte));
    return dev.synchronize();
  };
  uint64_t order_secret = secret;
  std::vector<CallSlot> order;
  auto prepare = [&]() -> Status {
    order_secret = order_secret * 6364136223846793005ull + 1442695040888963407ull;
    order = draw_order(calls, copies, order_secret);
    std::vector<CallBuffers> sequence(calls);
    for (size_t p = 0; p < calls; ++p)
      sequence[p] = {xs[order[p].x], w[order[p].copy], ys[order[p].y], ws[order[p].copy]};
    return dev.prepare_sequence(sequence, &timing.method);
  };

  // The weights (and kopt's canonical copies) against their digests from
  // before the first timed call.
  auto weights_unchanged = [&](const std::string& during) {
    for (size_t i = 0; i < copies; ++i) {
      uint64_t digest = 0;
      if (!(s = dev.checksum(w[i], &digest)).ok()) return sc.device_fail(s, during + " check");
      if (digest != w_digest[i])
        return sc.fail(Verdict::kInputModified,
                       "the weights of copy " + std::to_string(i) + " changed during " + during);
      // Without a relayout the canonical copy is the weights buffer itself,
      // just checked (this runs before every timed replay's check).
      if (canonical[i] == w[i]) continue;
      if (!(s = dev.checksum(canonical[i], &digest)).ok())
        return sc.device_fail(s, during + " check");
      if (digest != canonical_digest[i])
        return sc.fail(
            Verdict::kInputModified,
            "the canonical weights of copy " + std::to_string(i) + " changed during " + during);
    }
    return true;
  };

  // A relayout may have reached any copy made before it (through pointers it
  // kept), not only its own.
  if (s.ok() && traits.has_relayout && !weights_unchanged("the timing set-up's relayouts"))
    return false;

  std::vector<double> samples;
  std::vector<CallCheck> checks(calls);
  std::vector<CallCheckResult> checked;
  for (int batch = 0; batch < req.time_batches; ++batch) {
    const std::string batch_name = "time batch " + std::to_string(batch + 1);
    sc.enter(batch_name);
    // Warm-up, with fresh inputs for every replay.
    if (!(s = prepare()).ok()) return sc.launch_fail(s, batch_name + " (recording the sequence)");
    if (!(s = warm_up(dev, refresh_inputs)).ok()) return sc.launch_fail(s, batch_name + " warm-up");
    for (int rep = 0; rep < req.repetitions; ++rep) {
      // A new order for every timed replay, so what a call learned in the
      // replays before does not say which inputs go together in this one.
      if (!(s = prepare()).ok()) return sc.launch_fail(s, batch_name + " (recording the sequence)");
      if (!(s = refresh_inputs()).ok()) return sc.device_fail(s, batch_name + " inputs");
      double us = 0;
      if (!(s = dev.time_sequence(&us)).ok()) return sc.launch_fail(s, batch_name);
      samples.push_back(us / static_cast<double>(calls));
      // The reference below is computed from kopt's canonical copies: they
      // must still be what kopt generated.
      if (!weights_unchanged(batch_name + ", replay " + std::to_string(rep + 1))) return false;
      // Every timed call's output, against the reference of its own x.
      for (size_t p = 0; p < calls; ++p)
        checks[p] = {xs[order[p].x], ys[order[p].y], canonical[order[p].copy], streams[order[p].x]};
      if (!(s = dev.check_calls(shape, x_seed, checks, &checked)).ok())
        return sc.device_fail(s, batch_name + " check");
      for (size_t p = 0; p < calls; ++p) {
        const CallCheckResult& c = checked[p];
        const std::string where = "timed call " + std::to_string(p + 1) + " of " +
                                  std::to_string(calls) + ", " + batch_name + ", replay " +
                                  std::to_string(rep + 1);
        if (c.x_changed > 0)
          return sc.fail(Verdict::kInputModified, "x changed during " + where + " (" +
                                                      std::to_string(c.x_changed) + " elements)");
        if (c.bad > 0) {
          // A wrong output after the weights changed is reported as the change.
          if (!weights_unchanged(batch_name)) return false;
          Comparison cmp;
          cmp.bad = c.bad;
          cmp.not_written = c.not_written;
          cmp.first_bad = c.first_bad;
          cmp.expected = c.expected;
          cmp.got = c.got;
          return sc.mismatch(c.not_written > 0 ? Verdict::kNotWritten : Verdict::kWrongResult,
                             "timed run", c.first_bad, c.expected, c.got,
                             where + ": " + cmp.describe());
        }
      }
    }
  }
  // What the timed calls may have written where they should not.
  sc.enter("time check");
  if (!sc.guards_intact(buffers.all(), "timing")) return false;
  if (!weights_unchanged("timing")) return false;

  summarise(samples, bw, &timing);
  ctx.result.timing = timing;
  s = check_physics_floor(timing.median_us, timing.bytes, bw);
  if (!s.ok()) return sc.fail(Verdict::kImpossibleSpeed, s.message());
  return true;
}

bool read_only_screen(ScreenContext& ctx) {
  Screen sc(ctx);
  Device& dev = ctx.device;
  const EvalRequest& req = ctx.request;
  const Problem* problem = find_problem(req.shape.problem);
  if (!problem)
    return sc.fail(Verdict::kInternalError, "no registered problem " + req.shape.problem);
  sc.enter("time setup");
  const size_t w_bytes = static_cast<size_t>(problem->weight_bytes(req.shape));
  const size_t x_bytes = static_cast<size_t>(problem->x_elements(req.shape)) * 2,
               y_bytes = static_cast<size_t>(problem->y_elements(req.shape)) * 4;
  const Rotation rotation = cold_cache_rotation(w_bytes + x_bytes + y_bytes, dev.info().l2_bytes,
                                                req.working_set_l2_multiple);
  Buffers buffers(dev);
  std::vector<BufferId> w(rotation.copies), ws(rotation.copies);
  std::vector<CallBuffers> sequence(rotation.calls);
  Status s;
  for (size_t i = 0; i < rotation.copies && s.ok(); ++i) {
    s = buffers.allocate(w_bytes, &w[i]);
    if (s.ok()) s = dev.fill(w[i], 0x3C);
    if (s.ok()) s = buffers.allocate(kMinWorkspaceBytes, &ws[i]);
  }
  for (size_t c = 0; c < rotation.calls && s.ok(); ++c) {
    sequence[c].w = w[c % rotation.copies];
    sequence[c].ws = ws[c % rotation.copies];
    s = buffers.allocate(x_bytes, &sequence[c].x);
    if (s.ok()) s = dev.fill(sequence[c].x, 0x3C);
    if (s.ok()) s = buffers.allocate(y_bytes, &sequence[c].y);
  }
  if (!s.ok()) return sc.device_fail(s, "timing allocation");
  Timing timing;
  timing.weight_copies = static_cast<int>(rotation.copies);
  timing.working_set_bytes = static_cast<int64_t>(rotation.copies * (w_bytes + x_bytes + y_bytes));
  timing.calls_per_repetition = static_cast<int>(rotation.calls);
  timing.bytes = problem->bytes_moved(req.shape);
  if (!(s = dev.prepare_sequence(sequence, &timing.method)).ok())
    return sc.device_fail(s, "recording the sequence");
  sc.enter("time batch 1");
  s = warm_up(dev, nullptr);
  std::vector<double> samples;
  for (int rep = 0; s.ok() && rep < req.time_batches * req.repetitions; ++rep) {
    double us = 0;
    s = dev.time_sequence(&us);
    samples.push_back(us / static_cast<double>(rotation.calls));
  }
  if (!s.ok()) return sc.device_fail(s, "timing");
  summarise(samples, dev.read_bandwidth_gbps(), &timing);
  ctx.result.timing = timing;
  ctx.result.verdict = Verdict::kOk;
  ctx.result.message =
      "kopt's read-only kernel (reads the weights and x, checks nothing): not a result, the "
      "yardstick";
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
