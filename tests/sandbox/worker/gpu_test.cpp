// GPU tests: the full sandbox (worker, verification, timing) on a real GPU.
// Skipped, with the reason, where no GPU is found (CI, the development machine).
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <random>

#include "problems/w4a16_batch/w4a16_batch.h"
#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "sandbox/client/sandbox.h"
#include "sandbox/worker/verification.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!test::gpu_available(&why)) {
      // KOPT_REQUIRE_GPU=1 (every GPU run that is reported) turns a worker
      // that cannot start into a failure instead of a suite of skips.
      if (test::gpu_required()) FAIL() << "KOPT_REQUIRE_GPU is set but no GPU: " << why;
      GTEST_SKIP() << "GPU tests skipped: " << why;
    }
  }
  static SandboxOptions options(double compile_s = 60) { return test::gpu_test_options(compile_s); }
  // One verification round with a fixed seed, untimed unless asked.
  static EvalRequest request(const std::string& source, const Shape& shape, bool time = false) {
    return test::gpu_test_request(source, shape, time, 20261122);
  }
  static EvalResult run(const std::string& source, const Shape& shape, bool time = false,
                        std::map<std::string, int64_t> params = {}, double compile_s = 60) {
    Sandbox sandbox(options(compile_s));
    EvalRequest r = request(source, shape, time);
    r.candidate = enter_candidate(source, params);
    return sandbox.evaluate(r);
  }
  // A seed at each setting verifies on each shape of `shapes` (for a batched
  // seed, the shapes past a setting's row capacity MR skipped), each failure
  // naming the seed, the shape and the setting; returns how many (setting,
  // shape) pairs ran.
  static int expect_verifies(const Seed& seed, const std::vector<Shape>& shapes,
                             const std::vector<std::map<std::string, int64_t>>& settings) {
    int checked = 0;
    for (const auto& params : settings)
      for (const Shape& shape : shapes) {
        if (params.count("MR") && shape.var("M") > params.at("MR")) continue;
        EvalResult r = run(seed.source, shape, false, params);
        std::string setting;
        for (const auto& [name, value] : params)
          setting += " " + name + "=" + std::to_string(value);
        EXPECT_EQ(r.verdict, Verdict::kOk)
            << seed.name << " " << shape.name() << setting << ": " << r.message << "\n"
            << r.log;
        ++checked;
      }
    return checked;
  }
  static const Seed& batch_seed(const std::string& name) {
    return *find_seed(*find_problem(w4a16_batch::kId), name);
  }
  // klanes on short and long K, N not a multiple of its columns, M below and
  // at its row capacity.
  static int expect_klanes_verifies(const std::vector<std::map<std::string, int64_t>>& settings) {
    return expect_verifies(
        batch_seed("klanes"),
        {w4a16_batch::shape(16, 384, 5120, 64), w4a16_batch::shape(5, 512, 1000, 64),
         w4a16_batch::shape(2, 3072, 264, 32), w4a16_batch::shape(8, 7168, 520, 128)},
        settings);
  }
  static std::string adversarial(const std::string& name) {
    std::string s = test::read_source_file("tests/sandbox/adversarial/" + name + ".hip");
    EXPECT_FALSE(s.empty()) << name;
    return s;
  }
};

TEST_F(GpuTest, EverySeedVerifiesOnAssortedShapes) {
  const Shape shapes[] = {w4a16::shape(5120, 256, 64),  w4a16::shape(384, 5120, 64),
                          w4a16::shape(2048, 2880, 64), w4a16::shape(4096, 7168, 128),
                          w4a16::shape(1536, 96, 32),   w4a16::shape(64, 1, 64)};
  for (const auto& seed : test::w4a16_problem().seeds())
    for (const Shape& shape : shapes) {
      EvalResult r = run(seed.source, shape);
      EXPECT_EQ(r.verdict, Verdict::kOk)
          << seed.name << " " << shape.name() << ": " << r.message << "\n"
          << r.log;
    }
}

// Lanes shared by column groups (GROUPS above 1: a warp works several
// columns side by side), in both weight layouts and with slices of K.
TEST_F(GpuTest, KlanesLaneGroupsVerify) {
  EXPECT_EQ(expect_klanes_verifies({
                {{"MR", 16}, {"GROUPS", 2}},
                {{"MR", 8}, {"GROUPS", 4}, {"LAYOUT", 1}},
                {{"MR", 4}, {"GROUPS", 2}, {"COLS", 4}, {"XS", 1}},
                {{"MR", 2}, {"GROUPS", 4}, {"COLS", 1}, {"WARPS", 4}},
            }),
            9);
}

// x as 16-bit words multiplied by dp2a (X16) at every row capacity, in both
// weight layouts, with column groups and slices of K; row by row where a
// lane holds 32 sums or more (16 rows of two columns, 8 rows of four); from
// 8 rows two staging items of x a thread requested together (at 16 rows
// before the weights, at 8 after them), on blocks of four warps too with two
// steps a slice (more items than the two requested early); 8 rows on blocks
// of sixteen warps, one an SM (the library's build for some shapes).
TEST_F(GpuTest, KlanesSixteenBitXVerifies) {
  EXPECT_EQ(expect_klanes_verifies({
                {{"MR", 16}, {"X16", 1}},
                {{"MR", 8}, {"X16", 1}, {"GROUPS", 2}},
                {{"MR", 4}, {"X16", 1}, {"LAYOUT", 1}, {"XS", 1}},
                {{"MR", 2}, {"X16", 1}, {"COLS", 1}, {"WARPS", 4}},
                {{"MR", 8}, {"X16", 1}, {"COLS", 4}, {"LAYOUT", 1}},
                {{"MR", 16}, {"X16", 1}, {"GROUPS", 2}, {"WARPS", 4}, {"XS", 2}},
                {{"MR", 8}, {"X16", 1}, {"WARPS", 4}, {"XS", 2}},
                {{"MR", 8}, {"X16", 1}, {"WARPS", 16}, {"OCC", 1}},
            }),
            22);
}

// The sums of the slices of K: more slices than the last block reads at
// once (ten on 5120x256 at two groups, on K = 9472 at one step a slice),
// more sums of a column range than its threads add in one pass (7168x4000 at
// 16 rows), and blocks per SM (OCC) other than two.
TEST_F(GpuTest, KlanesSliceSumsVerify) {
  EXPECT_EQ(expect_verifies(
                batch_seed("klanes"),
                {w4a16_batch::shape(16, 5120, 256, 64), w4a16_batch::shape(11, 9472, 300, 128),
                 w4a16_batch::shape(16, 7168, 4000, 64), w4a16_batch::shape(5, 9472, 520, 32)},
                {
                    {{"MR", 16}, {"X16", 1}, {"GROUPS", 2}},
                    {{"MR", 8}, {"X16", 1}, {"XS", 1}},
                    {{"MR", 16}, {"X16", 1}, {"GROUPS", 2}, {"COLS", 1}, {"OCC", 3}},
                }),
            9);
}

// Column blocks spread over the warps' tiles (SPREAD 1): more blocks than
// tiles of a block's columns where those are fewer than the SMs' blocks, so
// warps past a block's share idle; with slices of K (5120x256), one column
// a warp, and odd N (a warp's last tile part columns past N).
TEST_F(GpuTest, KlanesSpreadColumnBlocksVerify) {
  EXPECT_EQ(expect_verifies(
                batch_seed("klanes"),
                {w4a16_batch::shape(16, 384, 5120, 64), w4a16_batch::shape(8, 5120, 256, 64),
                 w4a16_batch::shape(13, 7168, 1000, 128), w4a16_batch::shape(5, 512, 777, 32)},
                {
                    {{"MR", 16}, {"X16", 1}, {"GROUPS", 2}, {"SPREAD", 1}},
                    {{"MR", 8}, {"X16", 1}, {"SPREAD", 1}},
                    {{"MR", 16}, {"X16", 1}, {"GROUPS", 2}, {"COLS", 1}, {"SPREAD", 1}},
                }),
            10);
}

// The register path (xrows) with x as 16-bit words multiplied by dp2a (X16):
// K from one warp's chunks to ten warps', N not a multiple of a tile, G of
// 32, 64 and 128, M below and at the row capacity, lane groups of 16; and
// the block's sums added once a batch of tiles (BATCH), one block an SM, so
// that blocks walk full and partial batches (384x5120: ten tiles a block
// at BATCH 8, nineteen or twenty at BATCH 2 with two columns a lane), in
// both forms of x; and the ring of loads three and two tiles ahead, with
// the first tiles' weights requested before x's conversion (the default)
// and after it. And 8 rows at one block an SM as the library builds them
// (four columns one tile ahead, two columns three ahead; x converted
// first), on 2 to 7 rows (not 9472: ten warps would be past 64K registers).
TEST_F(GpuTest, XrowsSixteenBitXVerifies) {
  EXPECT_EQ(expect_verifies(
                batch_seed("xrows"),
                {w4a16_batch::shape(4, 384, 5120, 64), w4a16_batch::shape(3, 4096, 777, 64),
                 w4a16_batch::shape(2, 3072, 264, 32), w4a16_batch::shape(4, 9472, 300, 128)},
                {
                    {{"MR", 4}, {"X16", 1}},
                    {{"MR", 4}, {"X16", 1}, {"ROWS", 3}, {"OCC", 2}},
                    {{"MR", 2}, {"X16", 1}, {"ROWS", 6}, {"LPR", 16}},
                    {{"MR", 4}, {"X16", 1}, {"BATCH", 8}, {"OCC", 1}},
                    {{"MR", 4}, {"X16", 1}, {"BATCH", 2}, {"ROWS", 2}, {"OCC", 1}},
                    {{"MR", 4}, {"BATCH", 4}, {"OCC", 1}},
                    {{"MR", 4}, {"X16", 1}, {"AHEAD", 3}, {"OCC", 1}},
                    {{"MR", 4}, {"X16", 1}, {"AHEAD", 2}, {"EARLY", 0}, {"BATCH", 2}, {"OCC", 1}},
                }),
            29);
  EXPECT_EQ(expect_verifies(
                batch_seed("xrows"),
                {w4a16_batch::shape(4, 384, 5120, 64), w4a16_batch::shape(3, 4096, 777, 64),
                 w4a16_batch::shape(2, 3072, 264, 32), w4a16_batch::shape(7, 7168, 1000, 128)},
                {
                    {{"MR", 8}, {"X16", 1}, {"OCC", 1}, {"BATCH", 8}, {"EARLY", 0}},
                    {{"MR", 8},
                     {"X16", 1},
                     {"ROWS", 2},
                     {"AHEAD", 3},
                     {"OCC", 1},
                     {"BATCH", 8},
                     {"EARLY", 0}},
                }),
            8);
}

// The dot seed with lane groups narrower than the warp on shapes whose column
// groups do not fill the last tile's warps (some of a warp's groups have no
// columns there): every lane still reaches the groups' full-mask shuffles.
TEST_F(GpuTest, DotSeedLaneGroupsVerifyWhereTheLastTileIsPartial) {
  // 501, 1003 and 71 column groups of 2, 1 and 4 columns.
  expect_verifies(
      test::w4a16_seed("dot"),
      {w4a16::shape(2048, 1002, 64), w4a16::shape(1024, 1003, 32), w4a16::shape(512, 283, 128)},
      {{{"LPR", 8}, {"ROWS", 2}},
       {{"LPR", 16}, {"ROWS", 1}, {"SPLIT", 2}},
       {{"LPR", 4}, {"ROWS", 4}, {"WARPS", 2}}});
}

// The generator seed's other arithmetic and data paths (16-bit x, x in
// registers, K split among a number of warps that is not a power of two,
// 8 and 12 columns per lane group with tiles past N, high nibbles
// multiplied in place, the chunk maxima in half2 (both with 24-bit x too,
// where DOT falls back), stream-K, launch bounds) pass the same check, at
// every group size.
TEST_F(GpuTest, GeneratorSeedKnobsVerify) {
  const std::vector<std::map<std::string, int64_t>> settings = {
      {{"XBITS", 16}},
      {{"XBITS", 16}, {"XPF", 1}, {"ROWS", 4}},
      {{"XBITS", 16}, {"XREG", 1}, {"KSPLIT", 8}, {"WARPS", 8}, {"ROWS", 4}, {"DEPTH", 3}},
      {{"XBITS", 16}, {"XREG", 1}, {"KSPLIT", 5}, {"WARPS", 5}, {"ROWS", 2}},
      {{"XBITS", 16}, {"XREG", 1}, {"KSPLIT", 7}, {"WARPS", 14}, {"ROWS", 3}, {"MINB", 2}},
      {{"XBITS", 16}, {"KSPLIT", 9}, {"WARPS", 9}, {"LPR", 16}, {"ROWS", 6}},
      {{"XBITS", 16}, {"XREG", 1}, {"KSPLIT", 7}, {"WARPS", 7}, {"ROWS", 12}, {"DEPTH", 2}},
      {{"ROWS", 8}, {"LPR", 8}, {"WARPS", 2}, {"DEPTH", 2}},
      // More columns than lanes in a group: the sums take the plain path.
      {{"ROWS", 12}, {"LPR", 8}, {"WARPS", 2}, {"XBITS", 16}},
      {{"ROWS", 6}, {"LPR", 4}, {"WARPS", 2}, {"KSPLIT", 2}},
      {{"XBITS", 16}, {"DOT", 1}, {"XMAX", 1}, {"ROWS", 3}},
      {{"XBITS", 16},
       {"DOT", 1},
       {"XMAX", 1},
       {"XREG", 1},
       {"KSPLIT", 5},
       {"WARPS", 10},
       {"ROWS", 4}},
      {{"XMAX", 1}, {"DOT", 1}},
      {{"KSPLIT", 3}, {"WARPS", 6}, {"SPLIT", 2}},
      {{"SCHED", 1}, {"LPR", 32}, {"XBITS", 16}, {"MINB", 2}},
      // The shape's sizes as constants (the build is per shape), on each path.
      {{"SHAPE", 1}, {"XBITS", 16}, {"XPF", 1}, {"ROWS", 1}, {"WARPS", 12}},
      {{"SHAPE", 1},
       {"XBITS", 16},
       {"XREG", 1},
       {"KSPLIT", 7},
       {"WARPS", 7},
       {"ROWS", 12},
       {"XMAX", 1}},
      {{"SHAPE", 1}, {"KSPLIT", 3}, {"WARPS", 6}, {"SPLIT", 2}, {"DOT", 1}, {"XBITS", 16}},
      {{"SHAPE", 1}, {"SCHED", 1}, {"LPR", 32}, {"XBITS", 16}}};
  expect_verifies(test::w4a16_seed("gen"),
                  {w4a16::shape(5120, 256, 64), w4a16::shape(384, 5120, 32),
                   w4a16::shape(4096, 7168, 128), w4a16::shape(2048, 2880, 64)},
                  settings);
}

// The read-only yardstick reads a shape's bytes faster than any seed
// computes the GEMV, and within the streaming read bandwidth.
TEST_F(GpuTest, TheReadOnlyYardstickIsFasterThanTheSeeds) {
  const Shape shape = w4a16::shape(4096, 7168, 64);
  Sandbox sandbox(options());
  EvalRequest ro = request("", shape, true);
  ro.baseline = kReadOnlyBaseline;
  EvalResult r = sandbox.evaluate(ro);
  ASSERT_EQ(r.verdict, Verdict::kOk) << r.message;
  ASSERT_TRUE(r.timing.has_value());
  EXPECT_GT(r.timing->median_us, 0);
  EXPECT_LE(r.timing->fraction_of_read_bw, kPhysicsMargin);
  EXPECT_NE(r.message.find("loads in flight"), std::string::npos) << r.message;
  for (const char* name : {"dot", "gen"}) {
    EvalResult seed = run(find_seed(test::w4a16_problem(), name)->source, shape, true);
    ASSERT_EQ(seed.verdict, Verdict::kOk) << name << ": " << seed.message;
    EXPECT_LT(r.timing->median_us, seed.timing->median_us) << name;
  }
}

TEST_F(GpuTest, TimingReportsBandwidthAndMethod) {
  EvalResult r = run(find_seed(test::w4a16_problem(), "vec")->source, w4a16::shape(7168, 9216, 64),
                     /*time=*/true);
  ASSERT_EQ(r.verdict, Verdict::kOk) << r.message;
  ASSERT_TRUE(r.timing.has_value());
  EXPECT_GT(r.timing->median_us, 1.0);
  EXPECT_GE(r.timing->max_us, r.timing->median_us);
  EXPECT_GT(r.timing->gbps, 100.0);
  EXPECT_GT(r.timing->fraction_of_read_bw, 0.05);
  EXPECT_LT(r.timing->fraction_of_read_bw,
            1.3);  // beyond the streaming ceiling means the L2 was not defeated
  EXPECT_GE(static_cast<double>(r.timing->working_set_bytes),
            4.0 * static_cast<double>(r.device.l2_bytes));
  EXPECT_EQ(r.timing->method, "graph-replay/events");
  EXPECT_GT(r.device.read_bandwidth_gbps, 500.0);
}

TEST_F(GpuTest, RejectsAKernelThatWritesNothing) {
  EvalResult r = run(adversarial("writes_nothing"), w4a16::shape(512, 1024, 64));
  EXPECT_EQ(r.verdict, Verdict::kNotWritten) << r.message;
}

TEST_F(GpuTest, RejectsAKernelThatWritesHalf) {
  EvalResult r = run(adversarial("writes_half"), w4a16::shape(512, 1024, 64));
  EXPECT_EQ(r.verdict, Verdict::kNotWritten) << r.message;
  EXPECT_EQ(r.first_bad_index, 512);
}

TEST_F(GpuTest, RejectsAKernelThatHangsAndEnds) {
  auto start = std::chrono::steady_clock::now();
  EvalResult r = run(adversarial("hangs"), w4a16::shape(512, 1024, 64));
  EXPECT_EQ(r.verdict, Verdict::kTimeout) << r.message;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 60.0);
}

TEST_F(GpuTest, RejectsOutOfBoundsWrites) {
  EvalResult r = run(adversarial("writes_out_of_bounds"), w4a16::shape(512, 1024, 64));
  EXPECT_EQ(r.verdict, Verdict::kGuardViolation) << r.message;
}

TEST_F(GpuTest, RejectsTensorCores) {
  EvalResult r = run(adversarial("tensor_core"), w4a16::shape(512, 1024, 64));
  EXPECT_EQ(r.verdict, Verdict::kStaticRejected) << r.message;
}

TEST_F(GpuTest, FaultingKernelIsALaunchErrorAndTheWorkerRecovers) {
  Sandbox sandbox(options());
  EvalRequest r = request(adversarial("faults"), w4a16::shape(512, 1024, 64));
  EvalResult bad = sandbox.evaluate(r);
  EXPECT_EQ(bad.verdict, Verdict::kLaunchError) << bad.message;
  r.candidate = seed_candidate(*find_seed(test::w4a16_problem(), "naive"));
  EvalResult good = sandbox.evaluate(r);
  EXPECT_EQ(good.verdict, Verdict::kOk) << good.message;
}

TEST_F(GpuTest, RejectsConstantOutput) {
  EvalResult r = run(adversarial("constant_output"), w4a16::shape(512, 1024, 64));
  EXPECT_EQ(r.verdict, Verdict::kWrongResult) << r.message;
}

TEST_F(GpuTest, RejectsInputMutation) {
  EvalResult r = run(adversarial("mutates_input"), w4a16::shape(512, 1024, 64));
  EXPECT_EQ(r.verdict, Verdict::kInputModified) << r.message;
}

TEST_F(GpuTest, RejectsStaleOutputFromAnEarlierCall) {
  EvalResult r = run(adversarial("stale_output"), w4a16::shape(512, 1024, 64));
  EXPECT_EQ(r.verdict, Verdict::kNotWritten) << r.message;
}

// Verification alone cannot see this one (x never changes at a pointer within
// a run); regenerating x between timing batches, and checking the timed
// runs' outputs, does.
TEST_F(GpuTest, CatchesResultsCachedByPointerInTheTimedRuns) {
  EvalResult r = run(adversarial("cache_by_pointer"), w4a16::shape(4096, 4096, 64), /*time=*/true);
  EXPECT_EQ(r.verdict, Verdict::kWrongResult) << r.message;
  EXPECT_EQ(r.dataset, "timed run") << r.message;
}

// State kept between calls gains nothing: this kernel skips every column
// whose y already holds a number. With fresh x and poisoned y before every
// replay it has to do all the work, so it is no faster than the same kernel
// without the skip.
TEST_F(GpuTest, ReturningEarlyWhenTheOutputLooksWrittenGainsNothing) {
  const Shape shape = w4a16::shape(4096, 4096, 64);
  std::string cheat = adversarial("early_return_when_right");
  std::string honest = cheat;
  const std::string skip =
      "  if (__float_as_uint(y[n]) != 0xFFFFFFFFu) return;  // \"already right\"\n";
  ASSERT_NE(honest.find(skip), std::string::npos);
  honest.erase(honest.find(skip), skip.size());
  EvalResult c = run(cheat, shape, /*time=*/true), h = run(honest, shape, /*time=*/true);
  ASSERT_EQ(h.verdict, Verdict::kOk) << h.message;
  if (c.verdict == Verdict::kOk) {
    ASSERT_TRUE(c.timing && h.timing);
    // Had the skip paid, the cheat would run at launch-overhead speed, far below.
    EXPECT_GT(c.timing->median_us, 0.75 * h.timing->median_us) << "the skip paid";
  } else {
    EXPECT_EQ(c.verdict, Verdict::kNotWritten) << c.message;
  }
}

// Honest during verification, cheating in the timed calls: each class is
// caught there, with its verdict, on the timed run.
TEST_F(GpuTest, AFractionOfTheColumnsPerCallIsCaughtInTheTimedRuns) {
  EvalResult r = run(adversarial("rotating_columns"), w4a16::shape(2048, 1024, 64), /*time=*/true);
  EXPECT_EQ(r.verdict, Verdict::kNotWritten) << r.message;
  EXPECT_EQ(r.dataset, "timed run") << r.message;
}

TEST_F(GpuTest, SkippingTheCallsAnOlderProtocolDidNotCheckIsCaught) {
  EvalResult r =
      run(adversarial("skips_unchecked_calls"), w4a16::shape(2048, 1024, 64), /*time=*/true);
  EXPECT_EQ(r.verdict, Verdict::kNotWritten) << r.message;
  EXPECT_EQ(r.dataset, "timed run") << r.message;
}

TEST_F(GpuTest, AGuardWriteDuringTimingIsCaught) {
  EvalResult r =
      run(adversarial("writes_guard_in_timing"), w4a16::shape(2048, 1024, 64), /*time=*/true);
  EXPECT_EQ(r.verdict, Verdict::kGuardViolation) << r.message;
  EXPECT_NE(r.message.find("timing"), std::string::npos) << r.message;
}

TEST_F(GpuTest, ChangingXDuringTimingIsCaught) {
  EvalResult r =
      run(adversarial("mutates_input_in_timing"), w4a16::shape(2048, 1024, 64), /*time=*/true);
  EXPECT_EQ(r.verdict, Verdict::kInputModified) << r.message;
}

// A relayout that behaves while verified and rewrites kopt's canonical
// weights in the timing set-up, so that a reference computed from them
// agrees with a shortcut: caught before the first timed call.
TEST_F(GpuTest, ARelayoutThatRewritesTheCanonicalWeightsIsCaughtInTheTimingSetUp) {
  EvalResult r = run(adversarial("relayout_rewrites_canonical"), w4a16::shape(2048, 1024, 64),
                     /*time=*/true);
  EXPECT_EQ(r.verdict, Verdict::kInputModified) << r.message;
  EXPECT_EQ(r.stage, "time setup") << r.message;
  EXPECT_NE(r.message.find("canonical"), std::string::npos) << r.message;
}

TEST_F(GpuTest, AMatrixInstructionHiddenInAMacroIsRejected) {
  EvalResult r = run(adversarial("tensor_core_hidden"), w4a16::shape(512, 1024, 64));
  EXPECT_EQ(r.verdict, Verdict::kStaticRejected) << r.message;
}

// The timed sequence is every call checked, in a new order per replay: honest
// seeds pass it and are timed below the read bandwidth.
TEST_F(GpuTest, HonestSeedsPassTheTimingScreenBelowThePhysicsFloor) {
  for (const char* name : {"vec", "splitk", "dot", "gen"})
    for (const Shape& shape : {w4a16::shape(5120, 256, 64), w4a16::shape(7168, 9216, 64)}) {
      EvalResult r = run(find_seed(test::w4a16_problem(), name)->source, shape, /*time=*/true);
      ASSERT_EQ(r.verdict, Verdict::kOk) << name << " " << shape.name() << ": " << r.message;
      EXPECT_LT(r.timing->fraction_of_read_bw, 1.0) << name;
      EXPECT_GE(r.timing->calls_per_repetition, 64);
    }
}

TEST_F(GpuTest, TrapsAndIllegalReadsAreLaunchErrors) {
  EXPECT_EQ(run(adversarial("traps"), w4a16::shape(512, 1024, 64)).verdict, Verdict::kLaunchError);
  EXPECT_EQ(run(adversarial("reads_out_of_bounds"), w4a16::shape(512, 1024, 64)).verdict,
            Verdict::kLaunchError);
}

TEST_F(GpuTest, PrintfFloodIsCappedAndRejected) {
  EvalResult r = run(adversarial("printf_flood"), w4a16::shape(512, 1024, 64));
  EXPECT_EQ(r.verdict, Verdict::kNotWritten) << r.message;
  EXPECT_LE(r.log.size(), WorkerLimits().output_cap + 16384 + 64);
}

TEST_F(GpuTest, CompileBombEndsWithinTheCompileLimit) {
  auto start = std::chrono::steady_clock::now();
  EvalResult r =
      run(adversarial("compile_bomb"), w4a16::shape(512, 1024, 64), false, {}, /*compile_s=*/10);
  EXPECT_TRUE(r.verdict == Verdict::kTimeout || r.verdict == Verdict::kCompileError)
      << verdict_name(r.verdict) << ": " << r.message;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 40.0);
}

// Slots the kernel never writes hold NaN in the first run and 3.4e38 in the
// second; a rerun with zeroed shared memory names the cause.
TEST_F(GpuTest, RejectsReadsOfUninitialisedSharedMemory) {
  EvalResult r = run(adversarial("uninitialised_shared"), w4a16::shape(512, 1024, 64));
  EXPECT_EQ(r.verdict, Verdict::kWrongResult) << r.message;
  EXPECT_NE(r.message.find("reads shared memory it never wrote"), std::string::npos) << r.message;
}

// The kernel is fitted to the inputs of one seed. With that seed it passes
// verification (so the overfitting is real); with the fresh seed every
// evaluation draws, it is rejected.
TEST_F(GpuTest, RejectsAKernelFittedToTheInputsOfOneSeed) {
  const uint64_t fitted_seed = request("", w4a16::shape(64, 8, 64)).seed;  // the seed run() uses
  const Shape shape = w4a16::shape(512, 1024, 64);
  std::string fingerprints;
  for (size_t d = 0; d < test::w4a16_problem().datasets().size(); ++d) {
    ProblemData data =
        test::w4a16_problem().generate(shape, d, verification_seed(fitted_seed, 0, d));
    uint64_t f = 0;
    std::memcpy(&f, data.x.data(), sizeof f);
    fingerprints += (fingerprints.empty() ? "" : ", ") + std::to_string(f) + "ull";
  }
  std::string source = adversarial("specialised_to_seed");
  const size_t at = source.find("@FINGERPRINTS@", source.find("seen[]"));
  ASSERT_NE(at, std::string::npos);
  source.replace(at, 14, fingerprints);

  EvalResult fitted = run(source, shape);
  EXPECT_EQ(fitted.verdict, Verdict::kOk) << fitted.message;

  Sandbox sandbox(options());
  EvalRequest fresh = request(source, shape);
  fresh.seed = (static_cast<uint64_t>(std::random_device{}()) << 32) | std::random_device{}();
  if (fresh.seed == fitted_seed) ++fresh.seed;
  EvalResult r = sandbox.evaluate(fresh);
  EXPECT_EQ(r.verdict, Verdict::kWrongResult) << r.message;
}

// The peer column of `kopt bench --baselines`: cuBLAS on dequantised weights
// passes the same verification and is timed the same way.
TEST_F(GpuTest, VendorBlasBaselineVerifiesAndIsTimed) {
  Sandbox sandbox(options());
  EvalRequest r = request("", w4a16::shape(4096, 4096, 64), /*time=*/true);
  r.baseline = kVendorBlasBaseline;
  EvalResult res = sandbox.evaluate(r);
  ASSERT_EQ(res.verdict, Verdict::kOk) << res.message;
  ASSERT_TRUE(res.timing.has_value());
  EXPECT_GT(res.timing->median_us, 0);
  EXPECT_NE(res.compile_flags.find("cuBLAS"), std::string::npos) << res.compile_flags;
  r.baseline = "mystery-blas";
  EXPECT_EQ(sandbox.evaluate(r).verdict, Verdict::kContractError);
}

TEST_F(GpuTest, UnsupportedShapeIsNotAFailure) {
  EvalResult r = run(find_seed(test::w4a16_problem(), "vec")->source, w4a16::shape(48, 16, 16));
  EXPECT_EQ(r.verdict, Verdict::kUnsupportedShape) << r.message;
}

}  // namespace
}  // namespace kopt
