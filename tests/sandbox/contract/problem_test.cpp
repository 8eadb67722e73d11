#include "sandbox/contract/problem.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "problems/common/blob_layout.h"
#include "problems/w4a16_gemv/w4a16_gemv.h"

namespace kopt {
namespace {

TEST(ProblemTest, ContestSuiteHasFourteenShapesAnd140MB) {
  auto shapes = w4a16::contest_suite();
  ASSERT_EQ(shapes.size(), 14u);
  int64_t total = 0;
  for (const auto& s : shapes) total += shape_bytes(s);
  // The contest's byte counts: 140.1 MB over the 14 shapes; 7168x9216 alone is 37.21 MB.
  EXPECT_NEAR(static_cast<double>(total) / 1e6, 140.1, 0.05);
  EXPECT_NEAR(static_cast<double>(shape_bytes(w4a16::shape(7168, 9216, 64))) / 1e6, 37.21, 0.01);
  EXPECT_EQ(shapes[0].name(), "7168x9216");
}

TEST(ProblemTest, ParseShapeAcceptsAndRejects) {
  Shape s;
  ASSERT_TRUE(parse_shape("", "5120x256", {{"G", 64}}, &s).ok());
  EXPECT_EQ(s.var("K"), 5120);
  EXPECT_EQ(s.var("N"), 256);
  ASSERT_TRUE(parse_shape("", "4096x7168/g128", {{"G", 64}}, &s).ok());
  EXPECT_EQ(s.var("G"), 128);
  EXPECT_EQ(s.name(), "4096x7168/g128");
  for (const char* bad : {"", "x", "5120", "5120x", "x256", "-5x7", "0x256", "5120x0", "abcxdef",
                          "100x100", "99999999x2", "5120x256/g", "5120x256/g48"})
    EXPECT_FALSE(parse_shape("", bad, {{"G", 64}}, &s).ok()) << bad;
  EXPECT_FALSE(parse_shape("", "96x10", {{"G", 64}}, &s).ok());  // G does not divide K
  EXPECT_TRUE(parse_shape("", "96x10", {{"G", 32}}, &s).ok());
}

TEST(ProblemTest, HalfConversionRoundTripsEveryFiniteHalf) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    uint16_t bits = static_cast<uint16_t>(h);
    float f = half_to_float(bits);
    if (std::isnan(f)) continue;
    EXPECT_EQ(float_to_half(f), bits) << std::hex << h;
  }
  EXPECT_EQ(float_to_half(1.0f), 0x3C00);
  EXPECT_EQ(float_to_half(65504.0f), 0x7BFF);
  EXPECT_EQ(float_to_half(1e6f), 0x7C00);                // overflow to inf
  EXPECT_EQ(float_to_half(1.0f + 1.0f / 4096), 0x3C00);  // ties to even
  EXPECT_EQ(float_to_half(5.96e-8f), 0x0001);            // smallest subnormal
}

TEST(ProblemTest, CanonicalLayoutIsAlignedAndSized) {
  w4a16::CanonicalLayout l = w4a16::CanonicalLayout::of(w4a16::shape(384, 5120, 64));
  EXPECT_EQ(l.scales_offset % 256, 0u);
  EXPECT_EQ(l.offsets_offset % 256, 0u);
  EXPECT_GE(l.scales_offset, 5120u * 192);
  EXPECT_GE(l.offsets_offset - l.scales_offset, 5120u * 6 * 2);
  EXPECT_GE(l.total_bytes - l.offsets_offset, 5120u * 6 * 2);
}

// The blob's layout is read from the arrays the library is generated from:
// each array on a 256-byte boundary in their order, the size last.
TEST(ProblemTest, TheBlobLayoutIsTheLibrarysWeightArrays) {
  for (const Shape& s : {w4a16::shape(384, 5120, 64), w4a16::shape(4, 2, 4)}) {
    const std::vector<size_t> at =
        blob_offsets(find_problem(w4a16::kId)->library().weight_arrays, s);
    const w4a16::CanonicalLayout l = w4a16::CanonicalLayout::of(s);
    ASSERT_EQ(at.size(), 4u);
    EXPECT_EQ(at[0], l.qweight_offset);
    EXPECT_EQ(at[1], l.scales_offset);
    EXPECT_EQ(at[2], l.offsets_offset);
    EXPECT_EQ(at[3], l.total_bytes);
  }
  // 4 x 2 with one group: 4 bytes of q, 4 of scales, 4 of offsets.
  EXPECT_EQ(w4a16::CanonicalLayout::of(w4a16::shape(4, 2, 4)).total_bytes, 768u);
  // A size that does not evaluate counts nothing.
  EXPECT_EQ(blob_offsets({{"a", "M * 2", ""}, {"b", "N", ""}}, w4a16::shape(4, 300, 4)),
            (std::vector<size_t>{0, 0, 512}));
}

// A 4x2 problem worked by hand: w = s*q + o with one group.
TEST(ProblemTest, ReferenceMatchesHandComputation) {
  ProblemData d;
  d.shape = w4a16::shape(4, 2, 4);
  w4a16::CanonicalLayout l = w4a16::CanonicalLayout::of(d.shape);
  d.weights.assign(l.total_bytes, 0);
  // column 0: q = 1,2,3,4 ; column 1: q = 15,0,7,8
  d.weights[0] = 1 | (2 << 4);
  d.weights[1] = 3 | (4 << 4);
  d.weights[2] = 15 | (0 << 4);
  d.weights[3] = 7 | (8 << 4);
  uint16_t s[2] = {float_to_half(0.5f), float_to_half(2.0f)},
           o[2] = {float_to_half(-1.0f), float_to_half(0.25f)};
  std::memcpy(d.weights.data() + l.scales_offset, s, 4);
  std::memcpy(d.weights.data() + l.offsets_offset, o, 4);
  d.x = {float_to_half(1), float_to_half(-2), float_to_half(0.5f), float_to_half(3)};
  auto y = w4a16::reference_gemv(d);
  // col 0: w = -0.5, 0, 0.5, 1  -> -0.5 + 0 + 0.25 + 3 = 2.75
  // col 1: w = 30.25, 0.25, 14.25, 16.25 -> 30.25 - 0.5 + 7.125 + 48.75 = 85.625
  EXPECT_DOUBLE_EQ(y[0], 2.75);
  EXPECT_DOUBLE_EQ(y[1], 85.625);
  EXPECT_EQ(w4a16::q(d, 1, 0), 15);
  EXPECT_EQ(w4a16::q(d, 1, 3), 8);
}

TEST(ProblemTest, GenerationIsDeterministicAndSeedSensitive) {
  Shape s = w4a16::shape(256, 64, 64);
  auto a = w4a16::generate_problem(s, w4a16::kRandom, 42),
       b = w4a16::generate_problem(s, w4a16::kRandom, 42),
       c = w4a16::generate_problem(s, w4a16::kRandom, 43);
  EXPECT_EQ(a.weights, b.weights);
  EXPECT_EQ(a.x, b.x);
  EXPECT_NE(a.weights, c.weights);
  EXPECT_NE(a.x, c.x);
}

TEST(ProblemTest, RandomOutputsAreWellAboveTolerance) {
  // An all-zero output must fail: nearly every |y| must exceed atol.
  auto d = w4a16::generate_problem(w4a16::shape(384, 512, 64), w4a16::kRandom, 7);
  auto y = w4a16::reference_gemv(d);
  int small = 0;
  for (double v : y) small += std::fabs(v) < 0.02;
  EXPECT_LT(small, 512 / 20);
  std::vector<float> zeros(y.size(), 0.0f);
  EXPECT_FALSE(compare_output(y, zeros.data(), Tolerance{}).ok);
}

TEST(ProblemTest, ExactIntegerSetHasExactSixteenthsAnswers) {
  auto d = w4a16::generate_problem(w4a16::shape(512, 64, 64), w4a16::kExactInteger, 3);
  for (uint16_t h : d.x) EXPECT_EQ(half_to_float(h), std::round(half_to_float(h)));
  for (double v : w4a16::reference_gemv(d)) EXPECT_EQ(v * 16, std::round(v * 16));
}

TEST(ProblemTest, OneHotSelectsOneRowOfW) {
  Shape s = w4a16::shape(128, 16, 32);
  auto d = w4a16::generate_problem(s, w4a16::kOneHot, 11);
  int64_t hot = -1;
  for (int64_t k = 0; k < s.var("K"); ++k)
    if (d.x[static_cast<size_t>(k)] != 0) hot = k;
  ASSERT_GE(hot, 0);
  auto y = w4a16::reference_gemv(d);
  for (int64_t n = 0; n < s.var("N"); ++n) {
    double w = half_to_float(w4a16::scale_bits(d, n, hot / s.var("G"))) * w4a16::q(d, n, hot) +
               half_to_float(w4a16::offset_bits(d, n, hot / s.var("G")));
    EXPECT_DOUBLE_EQ(y[static_cast<size_t>(n)], w);
  }
}

TEST(ProblemTest, OutlierSetHasLargeChannels) {
  auto d = w4a16::generate_problem(w4a16::shape(1024, 8, 64), w4a16::kOutliers, 5);
  int large = 0;
  for (uint16_t h : d.x) large += std::fabs(half_to_float(h)) >= 32;
  EXPECT_GE(large, 1);
  EXPECT_LE(large, 8);
}

TEST(ProblemTest, IntegerZeroConversionMatchesDequantisation) {
  w4a16::IntegerZeroWeights w;
  w.shape = w4a16::shape(64, 3, 32);
  for (int i = 0; i < 64 * 3; ++i) w.q.push_back(static_cast<uint8_t>((i * 7) % 16));
  for (int i = 0; i < 6; ++i) {
    w.zeros.push_back(static_cast<uint8_t>(i + 5));
    w.scales.push_back(float_to_half(0.01f * (i + 1)));
  }
  std::vector<uint16_t> x(64);
  for (int k = 0; k < 64; ++k) x[static_cast<size_t>(k)] = float_to_half(k % 5 - 2.0f);
  ProblemData d = w4a16::from_integer_zero(w, x);
  auto y = w4a16::reference_gemv(d);
  for (int n = 0; n < 3; ++n) {
    double exact = 0, bound = 0;
    for (int k = 0; k < 64; ++k) {
      int g = n * 2 + k / 32;
      double s = half_to_float(w.scales[static_cast<size_t>(g)]);
      exact += half_to_float(x[static_cast<size_t>(k)]) *
               (w.q[static_cast<size_t>(n * 64 + k)] - w.zeros[static_cast<size_t>(g)]) * s;
      // offset = -z*s rounded once to fp16: at most half an ulp of |z*s|.
      bound += std::fabs(half_to_float(x[static_cast<size_t>(k)])) *
               w.zeros[static_cast<size_t>(g)] * s * std::ldexp(1.0, -11);
    }
    EXPECT_NEAR(y[static_cast<size_t>(n)], exact, bound + 1e-12);
    EXPECT_EQ(w4a16::q(d, n, 5), w.q[static_cast<size_t>(n * 64 + 5)]);
  }
}

TEST(ToleranceTest, AcceptsWithinAndRejectsOutside) {
  std::vector<double> ref = {1.0, -100.0, 0.0};
  std::vector<float> good = {1.015f, -100.9f, 0.0099f};
  EXPECT_TRUE(compare_output(ref, good.data(), Tolerance{}).ok);
  std::vector<float> bad = {1.025f, -100.0f, 0.0f};  // 0.025 > 0.01 + 0.01
  Comparison c = compare_output(ref, bad.data(), Tolerance{});
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.bad, 1);
  EXPECT_EQ(c.first_bad, 0);
  EXPECT_DOUBLE_EQ(c.expected, 1.0);
}

TEST(ToleranceTest, NaNAndPoisonAreCaught) {
  std::vector<double> ref = {1.0, 2.0, 3.0};
  std::vector<float> y = {1.0f, 2.0f, 3.0f};
  uint32_t poison = 0xFFFFFFFFu;
  std::memcpy(&y[1], &poison, 4);
  y[2] = std::numeric_limits<float>::quiet_NaN();
  Comparison c = compare_output(ref, y.data(), Tolerance{});
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.bad, 2);
  EXPECT_EQ(c.not_written, 1);
  EXPECT_EQ(c.first_bad, 1);
  y = {1.0f, std::numeric_limits<float>::infinity(), 3.0f};
  EXPECT_FALSE(compare_output(ref, y.data(), Tolerance{}).ok);
}

TEST(ToleranceTest, ZeroVariance) {
  std::vector<float> same(10, 3.5f), varied = {1, 2, 3};
  EXPECT_TRUE(zero_variance(same.data(), same.size()));
  EXPECT_FALSE(zero_variance(varied.data(), varied.size()));
}

}  // namespace
}  // namespace kopt
