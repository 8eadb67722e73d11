// The verification and timing protocol on the host fake (no GPU): every
// cheat class of SECURITY.md as a host "kernel", each rejected with its
// verdict or shown to gain nothing. The cheats keep state between calls as
// a GPU kernel can (its workspace, __device__ globals, y itself) and tell
// the verification runs from the timed ones by counting calls, as a real
// cheat would.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "sandbox/worker/host_device.h"
#include "sandbox/worker/verification.h"

namespace kopt {
namespace {

constexpr double kHonestFraction = 0.6;  // honest kernels run at 60% of the read bandwidth
const Shape kShape = w4a16::shape(256, 48, 64);

// Calls and relayouts the verification screen makes before timing, from the
// protocol itself (one trial, every input set of the problem), so that a
// change to the protocol cannot make a cheat below start early or late.
int calls_before_timing() {
  return verification_calls(1, find_problem(kShape.problem)->datasets().size());
}
int relayouts_before_timing() {
  return verification_relayouts(1, find_problem(kShape.problem)->datasets().size());
}

struct Outcome {
  EvalResult result;
  bool passed = false;
  bool fault = false;
  bool cheats_only_when_timed = false;  // the program came from honest_then
};

class HostProtocolTest : public ::testing::Test {
 protected:
  HostDevice device;
  bool cheats_only_when_timed_ = false;
  // Runs both screens on `program` with a fixed secret (the protocol's
  // order and inputs then repeat from run to run).
  Outcome evaluate(HostProgram program, bool time = true, int trials = 1) {
    if (program.traits.workspace_bytes == 0) program.traits.workspace_bytes = 256;
    device.load(program, kShape);
    EvalRequest req;
    req.shape = kShape;
    req.seed = 77;
    req.trials = trials;
    req.time = time;
    req.repetitions = 3;
    uint64_t secret = 0x5EC2E7;
    Outcome o;
    ScreenContext ctx{device,   req,     program.traits,
                      o.result, nullptr, [&secret] { return secret += 0x9E37; }};
    o.passed = run_screens(ctx);
    o.fault = ctx.fault;
    o.cheats_only_when_timed = cheats_only_when_timed_;
    cheats_only_when_timed_ = false;
    return o;
  }
  double honest_us() const {
    return modelled_time_us(kShape, device.info().read_bandwidth_gbps, kHonestFraction);
  }
  void honest(HostLaunch& l) const {
    host_reference(l.x, l.w, l.y, l.shape);
    l.cost_us = honest_us();
  }
  // A program from one call function.
  static HostProgram program(std::function<void(HostLaunch&)> call) {
    HostProgram p;
    p.call = std::move(call);
    return p;
  }
  // A kernel that is honest for the verification screen and runs `cheat`
  // from the first timed call on.
  HostProgram honest_then(std::function<void(HostLaunch&)> cheat) {
    cheats_only_when_timed_ = true;
    auto calls = std::make_shared<int>(0);
    return program([this, calls, cheat](HostLaunch& l) {
      if (++*calls <= calls_before_timing()) return honest(l);
      cheat(l);
    });
  }
};

// A cheat that starts with the first timed call must be caught in a timing
// stage ("time setup", "time batch N", "time check"), never earlier for a
// reason that has nothing to do with it.
#define EXPECT_VERDICT(outcome, verdict_value)                                                  \
  do {                                                                                          \
    EXPECT_FALSE((outcome).passed);                                                             \
    EXPECT_EQ(verdict_name((outcome).result.verdict), std::string(verdict_name(verdict_value))) \
        << (outcome).result.message;                                                            \
    if ((outcome).cheats_only_when_timed) {                                                     \
      EXPECT_EQ((outcome).result.stage.rfind("time", 0), 0u)                                    \
          << "caught in stage '" << (outcome).result.stage << "'";                              \
    }                                                                                           \
  } while (0)

TEST_F(HostProtocolTest, AnHonestKernelPassesAndIsTimedByItsModel) {
  Outcome o = evaluate(program([this](HostLaunch& l) { honest(l); }));
  ASSERT_TRUE(o.passed) << o.result.message;
  ASSERT_TRUE(o.result.timing.has_value());
  EXPECT_NEAR(o.result.timing->median_us, honest_us(), 1e-9);
  EXPECT_NEAR(o.result.timing->fraction_of_read_bw, kHonestFraction, 1e-6);
  EXPECT_GE(o.result.timing->calls_per_repetition, 64);
  EXPECT_GE(static_cast<double>(o.result.timing->working_set_bytes), 4.0 * device.info().l2_bytes);
  EXPECT_EQ(o.result.timing->method, "host-sequence/modelled-clock");
}

TEST_F(HostProtocolTest, AnHonestKernelWithARelayoutPasses) {
  HostProgram p = program([this](HostLaunch& l) { honest(l); });
  // A re-layout that is a byte-wise complement; the call undoes it.
  const size_t bytes = w4a16::CanonicalLayout::of(kShape).total_bytes;
  p.traits.has_relayout = true;
  p.traits.packed_bytes = bytes;
  p.relayout = [bytes](const uint8_t* c, uint8_t* packed, const Shape&) {
    for (size_t i = 0; i < bytes; ++i) packed[i] = static_cast<uint8_t>(~c[i]);
  };
  p.call = [this, bytes](HostLaunch& l) {
    std::vector<uint8_t> canonical(bytes);
    for (size_t i = 0; i < bytes; ++i) canonical[i] = static_cast<uint8_t>(~l.w[i]);
    host_reference(l.x, canonical.data(), l.y, l.shape);
    l.cost_us = honest_us();
  };
  Outcome o = evaluate(p);
  EXPECT_TRUE(o.passed) << o.result.message;
}

// The read-only yardstick is timed with the candidates' rotation and
// replays (each call reads its own weight copy and x), checks nothing, and
// says it is not a result.
TEST_F(HostProtocolTest, TheReadOnlyYardstickIsTimedWithTheSameRotation) {
  auto weights_seen = std::make_shared<std::set<const uint8_t*>>();
  const double read_us = modelled_time_us(kShape, device.info().read_bandwidth_gbps, 0.9);
  HostProgram p = program([read_us, weights_seen](HostLaunch& l) {
    weights_seen->insert(l.w);
    l.cost_us = read_us;
  });
  device.load(p, kShape);
  EvalRequest req;
  req.shape = kShape;
  req.repetitions = 3;
  EvalResult result;
  ScreenContext ctx{device, req, p.traits, result, nullptr};
  ASSERT_TRUE(read_only_screen(ctx)) << result.message;
  ASSERT_TRUE(result.timing.has_value());
  EXPECT_EQ(result.verdict, Verdict::kOk);
  EXPECT_NE(result.message.find("not a result"), std::string::npos) << result.message;
  EXPECT_NEAR(result.timing->median_us, read_us, 1e-9);
  EXPECT_NEAR(result.timing->fraction_of_read_bw, 0.9, 1e-6);
  EXPECT_EQ(result.timing->repetitions, req.time_batches * req.repetitions);
  EXPECT_GE(result.timing->calls_per_repetition, 64);
  EXPECT_GE(static_cast<double>(result.timing->working_set_bytes), 4.0 * device.info().l2_bytes);
  EXPECT_EQ(static_cast<int>(weights_seen->size()), result.timing->weight_copies);
  const Rotation r = cold_cache_rotation(1000, 4000, 4.0);
  EXPECT_EQ(r.copies, 16u);
  EXPECT_EQ(r.calls, 64u);
  EXPECT_EQ(cold_cache_rotation(1 << 30, 4000, 4.0).copies, 2u);  // never fewer than two
  EXPECT_EQ(cold_cache_rotation(1000, 30000, 4.0).calls, 120u);   // whole rounds of 120 copies
}

// --- State kept between calls ------------------------------------------

TEST_F(HostProtocolTest, ReturningEarlyWhenTheOutputIsAlreadyThereIsNotWritten) {
  // Remembers every y it wrote and the x it was for (a key read from x),
  // and returns at once when called again with the same pair.
  auto seen = std::make_shared<std::map<float*, uint64_t>>();
  Outcome o = evaluate(program([this, seen](HostLaunch& l) {
    uint64_t key = 0;
    for (int k = 0; k < 8; ++k) key = key * 131 + l.x[k];
    auto it = seen->find(l.y);
    if (it != seen->end() && it->second == key) {
      l.cost_us = 0.05;
      return;
    }
    (*seen)[l.y] = key;
    honest(l);
  }));
  // Either rejected, or it never found its output already there: no gain.
  if (o.passed) {
    EXPECT_GE(o.result.timing->median_us, honest_us() * 0.999);
  } else {
    EXPECT_VERDICT(o, Verdict::kNotWritten);
  }
}

TEST_F(HostProtocolTest, ReturningEarlyOnARepeatedOutputPointerIsCaught) {
  // Blind version: a y pointer seen before is skipped.
  auto seen = std::make_shared<std::set<float*>>();
  Outcome o = evaluate(program([this, seen](HostLaunch& l) {
    if (!seen->insert(l.y).second) {
      l.cost_us = 0.05;
      return;
    }
    honest(l);
  }));
  EXPECT_VERDICT(o, Verdict::kNotWritten);
}

// y replayed from a cache keyed by `key_elements` of x: the whole of x (as
// cheap as reading x) or a few elements. Under a protocol that reused x in
// the timed calls this paid; with x fresh for every call it never hits.
void expect_content_cache_never_pays(HostProtocolTest* t, HostDevice& device, int64_t key_elements,
                                     const std::function<Outcome(HostProgram)>& evaluate,
                                     const std::function<void(HostLaunch&)>& honest,
                                     double honest_us) {
  auto cache = std::make_shared<std::map<std::vector<uint16_t>, std::vector<float>>>();
  auto calls = std::make_shared<int>(0);
  auto timed_hits = std::make_shared<int>(0);
  HostProgram p;
  p.call = [=](HostLaunch& l) {
    const bool timed = ++*calls > calls_before_timing();
    std::vector<uint16_t> key(l.x, l.x + std::min(key_elements, l.shape.var("K")));
    auto it = cache->find(key);
    if (it != cache->end()) {
      *timed_hits += timed;
      std::memcpy(l.y, it->second.data(), it->second.size() * 4);
      l.cost_us = 0.05;
      return;
    }
    honest(l);
    (*cache)[key] = std::vector<float>(l.y, l.y + l.shape.var("N"));
  };
  Outcome o = evaluate(p);
  ASSERT_TRUE(o.passed) << o.result.message;  // its outputs are right...
  EXPECT_EQ(*timed_hits, 0);                  // ...because no timed call ever saw an x twice
  EXPECT_GE(o.result.timing->median_us, honest_us * 0.999);
  (void)t;
  (void)device;
}

TEST_F(HostProtocolTest, AResultCacheKeyedByTheContentsOfXNeverPays) {
  auto eval = [this](HostProgram p) { return evaluate(p); };
  auto h = [this](HostLaunch& l) { honest(l); };
  expect_content_cache_never_pays(this, device, kShape.var("K"), eval, h, honest_us());
  expect_content_cache_never_pays(this, device, 4, eval, h, honest_us());
}

TEST_F(HostProtocolTest, AFractionOfTheColumnsPerCallInRotationIsCaught) {
  auto turn = std::make_shared<std::map<float*, int>>();
  Outcome o = evaluate(honest_then([this, turn](HostLaunch& l) {
    // Each call computes a quarter of the columns; the other three quarters
    // are left from earlier calls on the same y.
    std::vector<float> full(static_cast<size_t>(l.shape.var("N")));
    host_reference(l.x, l.w, full.data(), l.shape);
    const int part = (*turn)[l.y]++ % 4;
    for (int64_t n = 0; n < l.shape.var("N"); ++n)
      if (n % 4 == part) l.y[n] = full[static_cast<size_t>(n)];
    l.cost_us = honest_us() / 4;
  }));
  EXPECT_VERDICT(o, Verdict::kNotWritten);
  EXPECT_EQ(o.result.dataset, "timed run");
}

TEST_F(HostProtocolTest, WorkspaceStateThatSkipsCallsIsCaught) {
  // Keeps a counter in its workspace and does the work only every other call.
  Outcome o = evaluate(honest_then([this](HostLaunch& l) {
    auto* counter = reinterpret_cast<uint32_t*>(l.ws);
    if ((*counter)++ % 2 == 1) {
      l.cost_us = 0.05;
      return;
    }
    honest(l);
  }));
  EXPECT_VERDICT(o, Verdict::kNotWritten);
}

TEST_F(HostProtocolTest, DeclaredSizesDoNotShrinkTheRotation) {
  // A workspace or a re-layout output declared far larger than what is read
  // would, if counted, cut the number of weight copies until the bytes a
  // call really reads fit in the L2.
  Outcome honest_run = evaluate(program([this](HostLaunch& l) { honest(l); }));
  ASSERT_TRUE(honest_run.passed) << honest_run.result.message;
  HostProgram big_workspace = program([this](HostLaunch& l) { honest(l); });
  big_workspace.traits.workspace_bytes = 512 * 1024;
  Outcome o = evaluate(big_workspace);
  ASSERT_TRUE(o.passed) << o.result.message;
  EXPECT_EQ(o.result.timing->weight_copies, honest_run.result.timing->weight_copies);

  const size_t bytes = w4a16::CanonicalLayout::of(kShape).total_bytes;
  HostProgram padded = program([this](HostLaunch& l) { honest(l); });
  padded.traits.has_relayout = true;
  padded.traits.packed_bytes = 512 * 1024;  // the canonical blob, then unread padding
  padded.relayout = [bytes](const uint8_t* c, uint8_t* packed, const Shape&) {
    std::memcpy(packed, c, bytes);
  };
  o = evaluate(padded);
  ASSERT_TRUE(o.passed) << o.result.message;
  EXPECT_EQ(o.result.timing->weight_copies, honest_run.result.timing->weight_copies);
  EXPECT_GE(o.result.timing->weight_copies, 100);
}

// --- Only some outputs checked ----------------------------------------

TEST_F(HostProtocolTest, WorkDoneOnlyForSomeCallsOfTheTimedSequenceIsCaught) {
  // Learns the timed sequence's length from the first timed replay and then
  // works only at the positions an older protocol checked (first, middle, last).
  auto position = std::make_shared<int64_t>(0);
  auto first_x = std::make_shared<const uint16_t*>(nullptr);
  Outcome o = evaluate(honest_then([this, position, first_x](HostLaunch& l) {
    if (*first_x == nullptr) *first_x = l.x;
    const int64_t p = (*position)++;
    if (p < 64 || p % 64 == 0 || p % 64 == 32 || p % 64 == 63) return honest(l);
    l.cost_us = 0.05;
  }));
  EXPECT_FALSE(o.passed);
  EXPECT_TRUE(o.result.verdict == Verdict::kNotWritten || o.result.verdict == Verdict::kWrongResult)
      << o.result.message;
}

TEST_F(HostProtocolTest, ComputingLaterCallsAheadFromALearnedOrderIsCaught) {
  // Remembers the (x, w, y) of every position of the previous replay and,
  // at the first call of a replay, computes all of them at once; the other
  // calls then return at once. A fixed order would make this pay.
  struct Memory {
    std::vector<HostLaunch> previous, current;
    size_t position = 0;
  };
  auto m = std::make_shared<Memory>();
  Outcome o = evaluate(honest_then([this, m](HostLaunch& l) {
    // A replay starts where the previous one did: when the call's x pointer
    // equals the first x of the last replay, or at the start.
    if (!m->current.empty() && m->current.front().x == l.x) {
      m->previous = m->current;
      m->current.clear();
    }
    m->current.push_back(l);
    if (m->current.size() == 1 && !m->previous.empty()) {
      honest(l);
      for (size_t i = 1; i < m->previous.size(); ++i) {
        HostLaunch ahead = m->previous[i];
        host_reference(ahead.x, ahead.w, ahead.y, ahead.shape);
      }
      l.cost_us = honest_us() * 0.5;
      return;
    }
    if (!m->previous.empty()) {
      l.cost_us = 0.05;
      return;
    }
    honest(l);
  }));
  EXPECT_FALSE(o.passed);
  EXPECT_TRUE(o.result.verdict == Verdict::kNotWritten || o.result.verdict == Verdict::kWrongResult)
      << o.result.message;
}

// --- Writes during timing ----------------------------------------------

TEST_F(HostProtocolTest, AGuardWriteDuringTimingIsCaught) {
  Outcome o = evaluate(honest_then([this](HostLaunch& l) {
    honest(l);
    l.y[l.shape.var("N") + 3] = 1.0f;  // just past the output
  }));
  EXPECT_VERDICT(o, Verdict::kGuardViolation);
  EXPECT_NE(o.result.message.find("timing"), std::string::npos) << o.result.message;
}

TEST_F(HostProtocolTest, ChangingXDuringTimingIsCaught) {
  Outcome o = evaluate(honest_then([this](HostLaunch& l) {
    honest(l);
    const_cast<uint16_t*>(l.x)[5] ^= 0x1;  // leaves a mark for a later call to find
  }));
  EXPECT_VERDICT(o, Verdict::kInputModified);
}

TEST_F(HostProtocolTest, ChangingTheWeightsDuringTimingIsCaught) {
  Outcome o = evaluate(honest_then([this](HostLaunch& l) {
    honest(l);
    auto* w = const_cast<uint8_t*>(l.w);
    w[7] |= 0x80;  // a lasting change (some copies' bytes may already hold it)
    w[8] &= 0x7F;
  }));
  EXPECT_VERDICT(o, Verdict::kInputModified);
}

// A load-time relayout that behaves while verified and, in the timing
// set-up, rewrites kopt's canonical copy so that a shortcut (here: half the
// weight nibbles zeroed, the other half skipped) agrees with the reference
// computed from it. The canonical copies are fingerprinted before any
// candidate code touches them, so this is input_modified in the set-up.
TEST_F(HostProtocolTest, ARelayoutThatRewritesTheCanonicalWeightsInTheTimingSetUpIsCaught) {
  const size_t bytes = w4a16::CanonicalLayout::of(kShape).total_bytes;
  const size_t nibble_bytes = w4a16::CanonicalLayout::of(kShape).scales_offset;
  HostProgram p = program([this](HostLaunch& l) { honest(l); });
  p.traits.has_relayout = true;
  p.traits.packed_bytes = bytes;
  auto relayouts = std::make_shared<int>(0);
  p.relayout = [bytes, nibble_bytes, relayouts](const uint8_t* c, uint8_t* packed, const Shape&) {
    // Verification relayouts once per input set (trials x sets); later ones
    // belong to the timing set-up.
    if (++*relayouts > relayouts_before_timing())
      for (size_t i = 0; i < nibble_bytes; i += 2) const_cast<uint8_t*>(c)[i] = 0x88;
    std::memcpy(packed, c, bytes);
  };
  Outcome o = evaluate(p);
  EXPECT_VERDICT(o, Verdict::kInputModified);
  EXPECT_EQ(o.result.stage, "time setup") << o.result.message;
  EXPECT_NE(o.result.message.find("canonical"), std::string::npos) << o.result.message;
}

// The same rewrite reaching back to a copy relayed out earlier (through a
// pointer the relayout kept) is caught too.
TEST_F(HostProtocolTest, ARelayoutThatRewritesAnEarlierCanonicalCopyIsCaught) {
  const size_t bytes = w4a16::CanonicalLayout::of(kShape).total_bytes;
  HostProgram p = program([this](HostLaunch& l) { honest(l); });
  p.traits.has_relayout = true;
  p.traits.packed_bytes = bytes;
  auto relayouts = std::make_shared<int>(0);
  auto first = std::make_shared<uint8_t*>(nullptr);
  p.relayout = [bytes, relayouts, first](const uint8_t* c, uint8_t* packed, const Shape&) {
    std::memcpy(packed, c, bytes);
    if (++*relayouts == relayouts_before_timing() + 1) *first = const_cast<uint8_t*>(c);
    if (*relayouts == relayouts_before_timing() + 2 && *first) (*first)[3] ^= 0x11;
  };
  Outcome o = evaluate(p);
  EXPECT_VERDICT(o, Verdict::kInputModified);
  EXPECT_EQ(o.result.stage, "time setup") << o.result.message;
}

TEST_F(HostProtocolTest, WeightsChangedAndRestoredDuringTimingGiveWrongResults) {
  // Toggles a weight on every call: each other call computes from changed
  // weights, and the weights look untouched after the batch.
  Outcome o = evaluate(honest_then([this](HostLaunch& l) {
    honest(l);
    const_cast<uint8_t*>(l.w)[7] ^= 0x10;
  }));
  EXPECT_FALSE(o.passed);
  EXPECT_TRUE(o.result.verdict == Verdict::kWrongResult ||
              o.result.verdict == Verdict::kInputModified)
      << o.result.message;
}

// --- Physics -------------------------------------------------------------

TEST_F(HostProtocolTest, ATimeBeyondTheReadBandwidthIsImpossibleSpeed) {
  Outcome o = evaluate(program([this](HostLaunch& l) {
    host_reference(l.x, l.w, l.y, l.shape);
    l.cost_us = honest_us() * kHonestFraction / 3;  // 3× the read bandwidth
  }));
  EXPECT_VERDICT(o, Verdict::kImpossibleSpeed);
  EXPECT_NE(o.result.message.find("GB/s"), std::string::npos);
  ASSERT_TRUE(o.result.timing.has_value());  // the figure it claimed is kept for the record
}

// --- The classes verification always caught, on the fake too -----------

TEST_F(HostProtocolTest, WritingHalfTheOutputIsNotWritten) {
  Outcome o = evaluate(program([this](HostLaunch& l) {
    std::vector<float> full(static_cast<size_t>(l.shape.var("N")));
    host_reference(l.x, l.w, full.data(), l.shape);
    std::memcpy(l.y, full.data(), static_cast<size_t>(l.shape.var("N") / 2) * 4);
    l.cost_us = honest_us();
  }));
  EXPECT_VERDICT(o, Verdict::kNotWritten);
}

TEST_F(HostProtocolTest, MutatingXIsInputModified) {
  Outcome o = evaluate(program([this](HostLaunch& l) {
    honest(l);
    const_cast<uint16_t*>(l.x)[0] = 0;
  }));
  EXPECT_VERDICT(o, Verdict::kInputModified);
}

TEST_F(HostProtocolTest, WritingOutOfBoundsIsAGuardViolation) {
  Outcome o = evaluate(program([this](HostLaunch& l) {
    honest(l);
    l.y[-1] = 0;
  }));
  EXPECT_VERDICT(o, Verdict::kGuardViolation);
}

TEST_F(HostProtocolTest, ResultsThatDifferBetweenRunsAreNondeterministic) {
  auto flip = std::make_shared<bool>(false);
  Outcome o = evaluate(program([this, flip](HostLaunch& l) {
    honest(l);
    if ((*flip = !*flip)) l.y[1] = std::nextafter(l.y[1], 1e30f);
  }));
  EXPECT_VERDICT(o, Verdict::kNondeterministic);
}

TEST_F(HostProtocolTest, AConstantOutputIsWrongOrZeroVariance) {
  Outcome o = evaluate(program([](HostLaunch& l) {
    for (int64_t n = 0; n < l.shape.var("N"); ++n) l.y[n] = 0.5f;
  }));
  EXPECT_VERDICT(o, Verdict::kWrongResult);
}

TEST_F(HostProtocolTest, ReadingSharedMemoryItNeverWroteIsNamed) {
  // Adds a "shared memory" slot it never wrote: the poison patterns make the
  // result wrong; with zeroed shared memory it would be right.
  Outcome o = evaluate(program([this](HostLaunch& l) {
    honest(l);
    l.y[0] += static_cast<float>(l.shared[1] & 0xFF);
  }));
  EXPECT_VERDICT(o, Verdict::kWrongResult);
  EXPECT_NE(o.result.message.find("shared memory it never wrote"), std::string::npos)
      << o.result.message;
}

TEST_F(HostProtocolTest, AFaultIsALaunchErrorAndMarksTheContextLost) {
  Outcome o = evaluate(program([](HostLaunch& l) { l.fault = true; }));
  EXPECT_VERDICT(o, Verdict::kLaunchError);
  EXPECT_TRUE(o.fault);
}

TEST_F(HostProtocolTest, AFaultOnlyDuringTimingIsALaunchError) {
  Outcome o = evaluate(honest_then([](HostLaunch& l) { l.fault = true; }));
  EXPECT_VERDICT(o, Verdict::kLaunchError);
  EXPECT_TRUE(o.fault);
}

TEST_F(HostProtocolTest, ABaselineMayMissTheBoundOnOutliersOnly) {
  // A peer whose results are off by 2% everywhere still fails (not only on outliers).
  HostProgram p = program([this](HostLaunch& l) {
    honest(l);
    for (int64_t n = 0; n < l.shape.var("N"); ++n) l.y[n] = l.y[n] * 1.03f + 0.05f;
  });
  p.traits.baseline = true;
  Outcome o = evaluate(p);
  EXPECT_VERDICT(o, Verdict::kWrongResult);
}

TEST_F(HostProtocolTest, TheTimedOrderChangesEveryReplay) {
  // Records the y pointer at each position of each timed replay.
  auto positions = std::make_shared<std::vector<float*>>();
  auto calls = std::make_shared<int>(0);
  Outcome o = evaluate(program([this, positions, calls](HostLaunch& l) {
    if (++*calls > calls_before_timing()) positions->push_back(l.y);
    honest(l);
  }));
  ASSERT_TRUE(o.passed) << o.result.message;
  const size_t per = static_cast<size_t>(o.result.timing->calls_per_repetition);
  ASSERT_GE(positions->size(), 3 * per);
  // The last two replays are timed ones; their orders differ.
  std::vector<float*> a(positions->end() - 2 * per, positions->end() - per),
      b(positions->end() - per, positions->end());
  EXPECT_NE(a, b);
  EXPECT_EQ(std::set<float*>(a.begin(), a.end()),
            std::set<float*>(b.begin(), b.end()));  // same y buffers
}

}  // namespace
}  // namespace kopt
