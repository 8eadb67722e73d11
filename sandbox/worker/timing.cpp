// The timing screens: the timed replays of a candidate (cold weights in
// rotation, fresh x every call, every call checked) and kopt's read-only
// kernel over the same bytes.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "sandbox/worker/screens.h"
#include "sandbox/worker/verification.h"

namespace kopt {

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

namespace {

// The sizes a timing set is made of: the problem's own (canonical weights,
// x, y) and what the contract declares (packed weights, workspace).
struct TimedSizes {
  size_t canonical = 0, weights = 0, workspace = 0, x = 0, y = 0;
  int64_t x_elements = 0;
  // One weight copy's share of the working set, in the problem's bytes.
  size_t per_copy() const { return canonical + x + y; }
};

// What the timed calls run on: weight copies in rotation (with kopt's
// canonical copy of each where the candidate relays them out, and the
// digests of both from before any timed call), a workspace per copy, and an
// x and a y per call.
struct TimedSet {
  size_t copies = 0, calls = 0;
  std::vector<BufferId> w, canonical, ws, xs, ys;
  std::vector<uint64_t> w_digest, canonical_digest;
};

// Allocates and fills the timing set (false: a verdict is set). Cold cache:
// enough weight copies that the working set is several times the L2, as
// every layer of a model has its own weights. The count comes from the
// problem's own bytes, never from sizes the contract declares: a huge
// workspace or packed_bytes that is mostly unread would otherwise shrink the
// rotation until the weights that are read fit in the L2.
bool make_timed_set(ScreenContext& ctx, Screen& sc, const Problem& problem, const TimedSizes& size,
                    Buffers& buffers, TimedSet* set) {
  Device& dev = ctx.device;
  const EvalRequest& req = ctx.request;
  const CallTraits& traits = ctx.traits;
  const Rotation rotation =
      cold_cache_rotation(size.per_copy(), dev.info().l2_bytes, req.working_set_l2_multiple);
  const size_t copies = rotation.copies, calls = rotation.calls;
  // Every call its own x and y; each weight copy its workspace; kopt's own
  // canonical copy of relaid-out weights for the reference.
  const size_t needed =
      copies * (size.weights + size.workspace + (traits.has_relayout ? size.canonical : 0)) +
      calls * (size.x + size.y);
  size_t free_bytes = 0;
  Status s = dev.free_memory(&free_bytes);
  if (!s.ok()) return sc.device_fail(s, "timing setup");
  if (needed > free_bytes / 2)
    return sc.fail(
        traits.baseline || (size.weights <= 2 * size.canonical && size.workspace <= size.canonical)
            ? Verdict::kInternalError
            : Verdict::kContractError,
        "not enough device memory to rotate " + std::to_string(copies) + " weight copies of " +
            std::to_string((size.weights + size.workspace) >> 10) +
            " KiB (weights or re-layout plus workspace; " + std::to_string(needed >> 20) +
            " MiB in all)");

  set->copies = copies;
  set->calls = calls;
  set->w.resize(copies);
  set->canonical.resize(copies);
  set->ws.resize(copies);
  set->w_digest.resize(copies);
  set->canonical_digest.resize(copies);
  set->xs.resize(calls);
  set->ys.resize(calls);
  for (size_t i = 0; i < copies && s.ok(); ++i) {
    s = buffers.allocate(size.weights, &set->w[i]);
    if (s.ok()) s = buffers.allocate(size.workspace, &set->ws[i]);
    if (s.ok()) s = dev.fill(set->ws[i], kPoisonByte);
    if (s.ok()) s = dev.fill(set->ws[i], 0);
    set->canonical[i] = set->w[i];
    if (s.ok() && traits.has_relayout) s = buffers.allocate(size.canonical, &set->canonical[i]);
    if (!s.ok()) break;
    // Dataset 0 is the plain random set (Problem::datasets).
    ProblemData data = problem.generate(req.shape, 0, req.seed * 7919ull + 1000 + i);
    if (data.weights.size() != size.canonical)
      return sc.fail(Verdict::kInternalError,
                     "the problem's weights do not have the size it declares");
    s = dev.upload(set->canonical[i], data.weights.data(), data.weights.size());
    // kopt's canonical copy is fingerprinted before any candidate code runs
    // on it: what checks the timed outputs must be what kopt generated.
    if (s.ok()) s = dev.checksum(set->canonical[i], &set->canonical_digest[i]);
    if (s.ok() && traits.has_relayout) {
      s = dev.fill(set->w[i], kPoisonByte);
      if (s.ok()) s = dev.relayout(set->canonical[i], set->w[i]);
      if (s.ok()) s = dev.synchronize();
      if (!s.ok()) return sc.launch_fail(s, "relayout of weight copy " + std::to_string(i));
    }
    if (s.ok()) s = dev.checksum(set->w[i], &set->w_digest[i]);
  }
  for (size_t c = 0; c < calls && s.ok(); ++c) {
    s = buffers.allocate(size.x, &set->xs[c]);
    if (s.ok()) s = buffers.allocate(size.y, &set->ys[c]);
  }
  if (!s.ok()) return sc.device_fail(s, "timing allocation");
  return true;
}

// The weights (and kopt's canonical copies) against their digests from
// before the first timed call (false: a verdict is set).
bool weights_unchanged(Screen& sc, const TimedSet& set, const std::string& during) {
  Device& dev = sc.device;
  for (size_t i = 0; i < set.copies; ++i) {
    uint64_t digest = 0;
    Status s = dev.checksum(set.w[i], &digest);
    if (!s.ok()) return sc.device_fail(s, during + " check");
    if (digest != set.w_digest[i])
      return sc.fail(Verdict::kInputModified,
                     "the weights of copy " + std::to_string(i) + " changed during " + during);
    // Without a relayout the canonical copy is the weights buffer itself,
    // just checked (this runs before every timed replay's check).
    if (set.canonical[i] == set.w[i]) continue;
    if (!(s = dev.checksum(set.canonical[i], &digest)).ok())
      return sc.device_fail(s, during + " check");
    if (digest != set.canonical_digest[i])
      return sc.fail(Verdict::kInputModified, "the canonical weights of copy " + std::to_string(i) +
                                                  " changed during " + during);
  }
  return true;
}

// The inputs of the replays: every replay, warm-up included, gets x that no
// call has seen before (stream numbers are never reused within an
// evaluation) and a new order of slots (draw_order).
class ReplayInputs {
 public:
  ReplayInputs(const TimedSet& set, uint64_t seed, uint64_t secret, int64_t x_elements)
      : set_(set),
        x_seed_(seed ^ (secret * 0x2545F4914F6CDD1Dull)),
        order_secret_(secret),
        x_elements_(x_elements),
        streams_(set.calls) {}

  // Fresh x in every call's slot, poisoned y.
  Status refresh(Device& dev) {
    for (auto& st : streams_) st = next_stream_++;
    KOPT_RETURN_IF_ERROR(dev.fill_random_x(set_.xs, streams_, x_seed_, x_elements_));
    for (BufferId y : set_.ys) KOPT_RETURN_IF_ERROR(dev.fill(y, kPoisonByte));
    return dev.synchronize();
  }
  // A new order of the calls' slots, recorded as the device's sequence.
  Status prepare(Device& dev, std::string* method) {
    order_secret_ = order_secret_ * 6364136223846793005ull + 1442695040888963407ull;
    order_ = draw_order(set_.calls, set_.copies, order_secret_);
    std::vector<CallBuffers> sequence(set_.calls);
    for (size_t p = 0; p < set_.calls; ++p)
      sequence[p] = {set_.xs[order_[p].x], set_.w[order_[p].copy], set_.ys[order_[p].y],
                     set_.ws[order_[p].copy]};
    return dev.prepare_sequence(sequence, method);
  }
  // What the reference checks each call of the last recorded order against.
  void checks(std::vector<CallCheck>* out) const {
    out->resize(set_.calls);
    for (size_t p = 0; p < set_.calls; ++p)
      (*out)[p] = {set_.xs[order_[p].x], set_.ys[order_[p].y], set_.canonical[order_[p].copy],
                   streams_[order_[p].x]};
  }
  uint64_t x_seed() const { return x_seed_; }

 private:
  const TimedSet& set_;
  uint64_t next_stream_ = 0;
  const uint64_t x_seed_;
  uint64_t order_secret_;
  const int64_t x_elements_;
  std::vector<uint64_t> streams_;
  std::vector<CallSlot> order_;
};

// Every timed call's output of one replay against the reference of its own
// x (false: a verdict is set).
bool check_replay(Screen& sc, const Shape& shape, const TimedSet& set, const ReplayInputs& inputs,
                  const std::string& batch_name, int rep) {
  std::vector<CallCheck> checks;
  inputs.checks(&checks);
  std::vector<CallCheckResult> checked;
  Status s = sc.device.check_calls(shape, inputs.x_seed(), checks, &checked);
  if (!s.ok()) return sc.device_fail(s, batch_name + " check");
  for (size_t p = 0; p < set.calls; ++p) {
    const CallCheckResult& c = checked[p];
    const std::string where = "timed call " + std::to_string(p + 1) + " of " +
                              std::to_string(set.calls) + ", " + batch_name + ", replay " +
                              std::to_string(rep + 1);
    if (c.x_changed > 0)
      return sc.fail(Verdict::kInputModified, "x changed during " + where + " (" +
                                                  std::to_string(c.x_changed) + " elements)");
    if (c.bad > 0) {
      // A wrong output after the weights changed is reported as the change.
      if (!weights_unchanged(sc, set, batch_name)) return false;
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
  return true;
}

}  // namespace

bool timing_screen(ScreenContext& ctx) {
  Screen sc(ctx);
  Device& dev = ctx.device;
  const EvalRequest& req = ctx.request;
  const Shape& shape = req.shape;
  const Problem* problem = find_problem(shape.problem);
  if (!problem) return sc.fail(Verdict::kInternalError, "no registered problem " + shape.problem);
  TimedSizes size;
  size.canonical = static_cast<size_t>(problem->weight_bytes(shape));
  size.weights = ctx.traits.has_relayout ? ctx.traits.packed_bytes : size.canonical;
  size.workspace = ctx.traits.workspace_bytes;
  size.x_elements = problem->x_elements(shape);
  size.x = static_cast<size_t>(size.x_elements) * 2;
  size.y = static_cast<size_t>(problem->y_elements(shape)) * 4;

  sc.enter("time setup");
  const double bw = floor_bandwidth_gbps(dev.read_bandwidth_gbps(), dev.info().peak_bandwidth_gbps);
  Buffers buffers(dev);
  TimedSet set;
  if (!make_timed_set(ctx, sc, *problem, size, buffers, &set)) return false;
  // A relayout may have reached any copy made before it (through pointers it
  // kept), not only its own.
  if (ctx.traits.has_relayout && !weights_unchanged(sc, set, "the timing set-up's relayouts"))
    return false;

  Timing timing;
  timing.weight_copies = static_cast<int>(set.copies);
  timing.working_set_bytes = static_cast<int64_t>(set.copies * size.per_copy());
  timing.calls_per_repetition = static_cast<int>(set.calls);
  timing.bytes = problem->bytes_moved(shape);

  ReplayInputs inputs(set, req.seed, ctx.secret(), size.x_elements);
  std::vector<double> samples;
  Status s;
  for (int batch = 0; batch < req.time_batches; ++batch) {
    const std::string batch_name = "time batch " + std::to_string(batch + 1);
    sc.enter(batch_name);
    // Warm-up, with fresh inputs for every replay.
    if (!(s = inputs.prepare(dev, &timing.method)).ok())
      return sc.launch_fail(s, batch_name + " (recording the sequence)");
    if (!(s = warm_up(dev, [&] { return inputs.refresh(dev); })).ok())
      return sc.launch_fail(s, batch_name + " warm-up");
    for (int rep = 0; rep < req.repetitions; ++rep) {
      // A new order for every timed replay, so what a call learned in the
      // replays before does not say which inputs go together in this one.
      if (!(s = inputs.prepare(dev, &timing.method)).ok())
        return sc.launch_fail(s, batch_name + " (recording the sequence)");
      if (!(s = inputs.refresh(dev)).ok()) return sc.device_fail(s, batch_name + " inputs");
      double us = 0;
      if (!(s = dev.time_sequence(&us)).ok()) return sc.launch_fail(s, batch_name);
      samples.push_back(us / static_cast<double>(set.calls));
      // The reference is computed from kopt's canonical copies: they must
      // still be what kopt generated.
      if (!weights_unchanged(sc, set, batch_name + ", replay " + std::to_string(rep + 1)))
        return false;
      if (!check_replay(sc, shape, set, inputs, batch_name, rep)) return false;
    }
  }
  // What the timed calls may have written where they should not.
  sc.enter("time check");
  if (!sc.guards_intact(buffers.all(), "timing")) return false;
  if (!weights_unchanged(sc, set, "timing")) return false;

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

}  // namespace kopt
