// The second problem, W8A16 GEMV (per-channel int8 weights), through the
// sandbox core without a GPU: its shape grammar, data and stress sets, its
// reference, the verification and timing screens on the host fake (an
// honest kernel passes; int8 read unsigned or clamped is caught), and its
// seeds' contracts and compilation.
#include "problems/w8a16_gemv/w8a16_gemv.h"

#include <gtest/gtest.h>

#include <cstring>

#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "sandbox/contract/candidate.h"
#include "sandbox/contract/prelude.h"
#include "sandbox/contract/static_checks.h"
#include "sandbox/worker/host_device.h"
#include "sandbox/worker/rtc.h"
#include "sandbox/worker/verification.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

const Problem& problem() {
  (void)test::w4a16_problem();  // the problems are registered
  return *find_problem(w8a16::kId);
}

TEST(W8a16Test, ShapesAreKxNWithTheirOwnKeys) {
  Shape s;
  ASSERT_TRUE(parse_shape(w8a16::kId, "4096x14336", {{"G", 128}}, &s).ok());
  EXPECT_EQ(s, w8a16::shape(4096, 14336));  // no group: --group does not apply
  EXPECT_EQ(s.key(), "w8a16_gemv:4096x14336");
  Shape back;
  ASSERT_TRUE(parse_shape_key(s.key(), &back).ok());
  EXPECT_EQ(back, s);
  for (const char* bad : {"4096x14336/g64", "4096", "0x8", "x8", "4096x-1"})
    EXPECT_FALSE(parse_shape(w8a16::kId, bad, {}, &s).ok()) << bad;
  EXPECT_EQ(problem().variables(), (std::vector<std::string>{"K", "N"}));
  EXPECT_EQ(problem().bytes_moved(w8a16::shape(4096, 1024)),
            4096 * 1024 + 2 * 1024 + 2 * 4096 + 4 * 1024);
  // A W4A16 shape is not a W8A16 one, though both read "4096x1024".
  EXPECT_FALSE(problem().validate(w4a16::shape(4096, 1024, 64)).ok());
}

TEST(W8a16Test, ReferenceIsTheScaledSignedDotProduct) {
  const Shape s = w8a16::shape(4, 2);
  ProblemData d;
  d.shape = s;
  d.x = {float_to_half(1), float_to_half(-2), float_to_half(0.5f), float_to_half(4)};
  const auto layout = w8a16::CanonicalLayout::of(s);
  ASSERT_EQ(layout.scales_offset, 256u);
  d.weights.assign(layout.total_bytes, 0);
  const int8_t q[2][4] = {{-128, 127, 2, -1}, {1, 1, 1, 1}};
  std::memcpy(d.weights.data(), q, 8);
  uint16_t scales[2] = {float_to_half(0.5f), float_to_half(0.25f)};
  std::memcpy(d.weights.data() + 256, scales, 4);
  const auto y = w8a16::reference_gemv(d);
  // 0.5 * (-128 - 254 + 1 - 4) = -192.5; 0.25 * (1 - 2 + 0.5 + 4) = 0.875
  EXPECT_DOUBLE_EQ(y[0], -192.5);
  EXPECT_DOUBLE_EQ(y[1], 0.875);
  EXPECT_EQ(w8a16::q(d, 0, 0), -128);
}

TEST(W8a16Test, StressSetsDoWhatTheySay) {
  const Shape s = w8a16::shape(512, 16);
  const auto extremes = w8a16::generate_problem(s, w8a16::kExtremes, 5);
  for (int64_t n = 0; n < 16; ++n)
    for (int64_t k = 0; k < 512; ++k) {
      const int v = w8a16::q(extremes, n, k);
      ASSERT_TRUE(v == -128 || v == 127) << v;
    }
  const auto random = w8a16::generate_problem(s, w8a16::kRandom, 5);
  int negative = 0;
  for (int64_t k = 0; k < 512; ++k) negative += w8a16::q(random, 0, k) < 0;
  EXPECT_GT(negative, 150);  // signed bytes, both signs
  const auto one_hot = w8a16::generate_problem(s, w8a16::kOneHot, 9);
  int ones = 0;
  for (uint16_t v : one_hot.x) ones += v != 0;
  EXPECT_EQ(ones, 1);
  EXPECT_EQ(problem().datasets().size(), 5u);
  EXPECT_EQ(problem().datasets()[4].name, "extremes");
}

// The protocol on the host fake with W8A16 data: the problem's own sizes,
// datasets and reference drive it; nothing in the core names K, N or G.
class W8a16HostTest : public ::testing::Test {
 protected:
  HostDevice device;
  bool evaluate(std::function<void(HostLaunch&)> call, EvalResult* result) {
    HostProgram p;
    p.call = [call](HostLaunch& l) {
      call(l);
      l.cost_us = 3;
    };
    p.traits.workspace_bytes = 256;
    const Shape shape = w8a16::shape(256, 48);
    device.load(p, shape);
    EvalRequest req;
    req.shape = shape;
    req.seed = 11;
    req.trials = 1;
    req.repetitions = 2;
    uint64_t secret = 0x77;
    ScreenContext ctx{device,  req,     p.traits,
                      *result, nullptr, [&secret] { return secret += 0x9E37; }};
    return run_screens(ctx);
  }
  // A host kernel that reads each weight byte through `byte`.
  static std::function<void(HostLaunch&)> kernel(int (*byte)(uint8_t)) {
    return [byte](HostLaunch& l) {
      const int64_t K = l.shape.var("K"), N = l.shape.var("N");
      const auto* scales = reinterpret_cast<const uint16_t*>(
          l.w + w8a16::CanonicalLayout::of(l.shape).scales_offset);
      for (int64_t n = 0; n < N; ++n) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k) acc += half_to_float(l.x[k]) * byte(l.w[n * K + k]);
        l.y[n] = static_cast<float>(half_to_float(scales[n]) * acc);
      }
    };
  }
};

TEST_F(W8a16HostTest, AnHonestKernelPassesVerificationAndTiming) {
  EvalResult r;
  ASSERT_TRUE(
      evaluate(kernel([](uint8_t b) { return static_cast<int>(static_cast<int8_t>(b)); }), &r))
      << r.message;
  EXPECT_EQ(r.message.find("verified on 5 input sets"), 0u) << r.message;
  ASSERT_TRUE(r.timing.has_value());
  EXPECT_EQ(r.timing->bytes, problem().bytes_moved(w8a16::shape(256, 48)));
}

TEST_F(W8a16HostTest, UnsignedOrSaturatingBytesAreWrongResults) {
  EvalResult r;
  EXPECT_FALSE(evaluate(kernel([](uint8_t b) { return static_cast<int>(b); }), &r));
  EXPECT_EQ(r.verdict, Verdict::kWrongResult) << r.message;
  EvalResult clamped;
  EXPECT_FALSE(evaluate(kernel([](uint8_t b) {
                          const int v = static_cast<int8_t>(b);
                          return v < -127 ? -127 : v;
                        }),
                        &clamped));
  EXPECT_EQ(clamped.verdict, Verdict::kWrongResult) << clamped.message;
}

// Why the extremes set exists: clamping -128 to -127 stays inside the
// tolerance on the plain random set, and is far outside it on extremes.
TEST(W8a16Test, ClampedBytesPassRandomDataButNotTheExtremesSet) {
  const Shape s = w8a16::shape(4096, 64);
  for (const auto dataset : {w8a16::kRandom, w8a16::kExtremes}) {
    const ProblemData d = w8a16::generate_problem(s, dataset, 21);
    const auto ref = w8a16::reference_gemv(d);
    ProblemData clamped = d;
    for (size_t i = 0; i < 4096 * 64; ++i)
      if (clamped.weights[i] == 0x80) clamped.weights[i] = 0x81;  // -128 -> -127
    const auto got_ref = w8a16::reference_gemv(clamped);
    const std::vector<float> got(got_ref.begin(), got_ref.end());
    EXPECT_EQ(compare_output(ref, got.data(), Tolerance{}).ok, dataset == w8a16::kRandom)
        << problem().datasets()[dataset].name;
  }
}

// Every seed's contract plans on the contest shapes and the seed compiles
// with the problem's prelude (NVRTC for sm_90 here, as the worker would).
TEST(W8a16Test, SeedsPlanAndCompile) {
  ASSERT_EQ(problem().seeds().size(), 3u);
  for (const Seed& seed : problem().seeds()) {
    Candidate c;
    ASSERT_TRUE(parse_candidate(seed.source, {}, &c).ok()) << seed.name;
    for (const Suite& suite : problem().suites({}))
      for (const auto& e : suite.shapes) {
        LaunchPlan plan;
        ASSERT_TRUE(plan_launches(c, e.shape, DeviceLimits{32, 132, 1024, 48 * 1024}, &plan).ok())
            << seed.name << " " << e.shape.name();
      }
    std::vector<std::string> kernels;
    for (const auto& l : c.spec.launches) kernels.push_back(l.kernel);
    std::string cleaned;
    ASSERT_TRUE(check_source(seed.source, kernels, &cleaned).ok()) << seed.name;
    RtcOutput out;
    std::vector<std::string> options = rtc_target_options("90", 32);
    for (const auto& d : parameter_defines(c)) options.push_back(d);
    ASSERT_TRUE(rtc_compile(assemble_source(problem(), cleaned), options, &out).ok()) << seed.name;
    EXPECT_TRUE(out.compiled) << seed.name << ": " << out.log;
  }
}

}  // namespace
}  // namespace kopt
