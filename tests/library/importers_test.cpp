// The importers of engines' weight formats against each format's own
// dequantisation: fixtures are packed here as the formats' writers pack them
// (AutoAWQ's GEMM layout, AutoGPTQ's with both zero conventions and
// act-order, ggml's Q4_0 and Q4_1 blocks), dequantised by each format's
// formula, and compared with w = scale·q + offset of the imported arrays.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "kopt_w4a16.h"

namespace {

// fp16 <-> float for the fixtures (the test's own, not the importer's).
float half_bits_to_float(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 31, mant = h & 1023;
  float v = exp == 0 ? std::ldexp(static_cast<float>(mant), -24)
                     : std::ldexp(static_cast<float>(mant | 1024), exp - 25);
  return sign ? -v : v;
}
// A value exactly representable in fp16 (v·2^-10 with |v| < 2048, scaled).
uint16_t half_of(float f) {
  for (uint16_t h = 0; h < 0x7C00; ++h)
    if (half_bits_to_float(h) == std::fabs(f))
      return static_cast<uint16_t>(h | (f < 0 ? 0x8000 : 0));
  ADD_FAILURE() << f << " is not an fp16 value";
  return 0;
}

struct Dense {  // the format's own dequantised weights, w[k][n]
  int K, N;
  std::vector<double> w;
  double at(int k, int n) const { return w[static_cast<size_t>(k) * N + n]; }
};

// w of the imported arrays at kopt's position j (K order) and column n.
double imported(const kopt_w4a16_host_weights& h, int j, int n) {
  const unsigned char b = h.qweight[static_cast<size_t>(n) * (h.K / 2) + j / 2];
  const int q = j % 2 ? b >> 4 : b & 15;
  const size_t g = static_cast<size_t>(n) * (h.K / h.G) + j / h.G;
  return static_cast<double>(half_bits_to_float(h.scales[g])) * q +
         half_bits_to_float(h.offsets[g]);
}

// Every weight within the recorded offset rounding, which is at most half
// an fp16 unit of the largest offset (|z·s| <= 16·|s|).
void expect_same_weights(const kopt_w4a16_host_weights& h, const Dense& ref, double max_scale) {
  ASSERT_EQ(h.K, ref.K);
  ASSERT_EQ(h.N, ref.N);
  EXPECT_LE(h.max_offset_rounding, std::ldexp(16 * max_scale, -11) * 1.0001);
  double worst = 0;
  for (int j = 0; j < h.K; ++j)
    for (int n = 0; n < h.N; ++n) {
      const int k = h.k_order ? h.k_order[j] : j;
      worst = std::max(worst, std::fabs(imported(h, j, n) - ref.at(k, n)));
    }
  EXPECT_LE(worst, h.max_offset_rounding + 1e-7) << "largest difference from the format's own w";
}

struct GroupQuant {  // q [K][N], z and s per (group, column)
  int K, N, G;
  std::vector<int> q, z;
  std::vector<float> s;
  std::vector<int> g_idx;  // k -> group
};

GroupQuant random_group_quant(int K, int N, int G, uint32_t seed, bool act_order) {
  std::mt19937 rng(seed);
  GroupQuant g{K,
               N,
               G,
               std::vector<int>(static_cast<size_t>(K) * N),
               std::vector<int>(static_cast<size_t>(K / G) * N),
               std::vector<float>(static_cast<size_t>(K / G) * N),
               std::vector<int>(K)};
  for (int& v : g.q) v = static_cast<int>(rng() % 16);
  for (int& v : g.z) v = static_cast<int>(rng() % 16);
  // Scales that are exact fp16 values (subnormal ones included), 3e-5..2e-3.
  for (float& v : g.s)
    v = std::ldexp(static_cast<float>(512 + rng() % 512), -static_cast<int>(19 + rng() % 6));
  std::vector<int> perm(K);
  std::iota(perm.begin(), perm.end(), 0);
  if (act_order) std::shuffle(perm.begin(), perm.end(), rng);
  // GPTQ act-order: rows quantised in the order perm, groups of G in that order.
  for (int i = 0; i < K; ++i) g.g_idx[perm[i]] = i / G;
  return g;
}

Dense dequantise(const GroupQuant& g) {  // w = (q − z)·s, the formats' formula
  Dense d{g.K, g.N, std::vector<double>(static_cast<size_t>(g.K) * g.N)};
  for (int k = 0; k < g.K; ++k)
    for (int n = 0; n < g.N; ++n) {
      const size_t gi = static_cast<size_t>(g.g_idx[k]) * g.N + n;
      d.w[static_cast<size_t>(k) * g.N + n] =
          (g.q[static_cast<size_t>(k) * g.N + n] - g.z[gi]) * static_cast<double>(g.s[gi]);
    }
  return d;
}

std::vector<uint16_t> scale_bits(const GroupQuant& g) {
  std::vector<uint16_t> out(g.s.size());
  for (size_t i = 0; i < g.s.size(); ++i) out[i] = half_of(g.s[i]);
  return out;
}

double max_scale(const GroupQuant& g) {
  double m = 0;
  for (float v : g.s) m = std::max(m, std::fabs(static_cast<double>(v)));
  return m;
}

TEST(ImportersTest, AwqGemmLayoutMatchesItsDequantisation) {
  const int K = 256, N = 64, G = 64;
  GroupQuant g = random_group_quant(K, N, G, 1, false);
  // AutoAWQ packs column order[i] of each group of eight into nibble i.
  const int order[8] = {0, 2, 4, 6, 1, 3, 5, 7};
  std::vector<int32_t> qweight(static_cast<size_t>(K) * N / 8),
      qzeros(static_cast<size_t>(K / G) * N / 8);
  for (int k = 0; k < K; ++k)
    for (int c = 0; c < N / 8; ++c)
      for (int i = 0; i < 8; ++i) {
        const uint32_t q =
            static_cast<uint32_t>(g.q[static_cast<size_t>(k) * N + c * 8 + order[i]]);
        qweight[static_cast<size_t>(k) * (N / 8) + c] |= static_cast<int32_t>(q << (4 * i));
      }
  for (int gr = 0; gr < K / G; ++gr)
    for (int c = 0; c < N / 8; ++c)
      for (int i = 0; i < 8; ++i) {
        const uint32_t z =
            static_cast<uint32_t>(g.z[static_cast<size_t>(gr) * N + c * 8 + order[i]]);
        qzeros[static_cast<size_t>(gr) * (N / 8) + c] |= static_cast<int32_t>(z << (4 * i));
      }
  const std::vector<uint16_t> scales = scale_bits(g);
  kopt_w4a16_host_weights h;
  ASSERT_EQ(kopt_w4a16_import_awq(qweight.data(), qzeros.data(), scales.data(), K, N, G, &h),
            KOPT_W4A16_OK)
      << kopt_w4a16_last_error();
  EXPECT_EQ(h.G, G);
  EXPECT_EQ(h.k_order, nullptr);
  expect_same_weights(h, dequantise(g), max_scale(g));
  kopt_w4a16_host_weights_free(&h);
}

// GPTQ, both zero conventions, with and without act-order.
TEST(ImportersTest, GptqMatchesItsDequantisationInBothZeroConventionsAndActOrder) {
  const int K = 256, N = 32, G = 32;
  for (bool act_order : {false, true})
    for (int zeros_minus_one : {1, 0}) {
      SCOPED_TRACE(std::string(act_order ? "act-order" : "in order") +
                   (zeros_minus_one ? ", stored z-1" : ", stored z"));
      GroupQuant g = random_group_quant(K, N, G, 7 + zeros_minus_one, act_order);
      if (zeros_minus_one)
        for (int& z : g.z) z = std::max(z, 1);  // z − 1 must fit four bits
      std::vector<int32_t> qweight(static_cast<size_t>(K / 8) * N),
          qzeros(static_cast<size_t>(K / G) * N / 8);
      for (int k = 0; k < K; ++k)
        for (int n = 0; n < N; ++n)
          qweight[static_cast<size_t>(k / 8) * N + n] |= static_cast<int32_t>(
              static_cast<uint32_t>(g.q[static_cast<size_t>(k) * N + n]) << (4 * (k % 8)));
      for (int gr = 0; gr < K / G; ++gr)
        for (int n = 0; n < N; ++n) {
          const uint32_t stored =
              static_cast<uint32_t>(g.z[static_cast<size_t>(gr) * N + n] - zeros_minus_one);
          qzeros[static_cast<size_t>(gr) * (N / 8) + n / 8] |=
              static_cast<int32_t>(stored << (4 * (n % 8)));
        }
      const std::vector<uint16_t> scales = scale_bits(g);
      kopt_w4a16_host_weights h;
      ASSERT_EQ(kopt_w4a16_import_gptq(qweight.data(), qzeros.data(), scales.data(),
                                       act_order ? g.g_idx.data() : nullptr, K, N, G,
                                       zeros_minus_one, &h),
                KOPT_W4A16_OK)
          << kopt_w4a16_last_error();
      EXPECT_EQ(h.k_order != nullptr, act_order);
      expect_same_weights(h, dequantise(g), max_scale(g));
      // y = x·W is the same in kopt's K order with x gathered by k_order.
      std::mt19937 rng(3);
      std::vector<double> x(K);
      for (double& v : x) v = static_cast<int>(rng() % 17) - 8;
      const Dense ref = dequantise(g);
      for (int n = 0; n < N; n += 7) {
        double want = 0, got = 0;
        for (int k = 0; k < K; ++k) want += x[k] * ref.at(k, n);
        for (int j = 0; j < K; ++j) got += x[h.k_order ? h.k_order[j] : j] * imported(h, j, n);
        EXPECT_NEAR(got, want, K * 8 * h.max_offset_rounding + 1e-6) << "column " << n;
      }
      kopt_w4a16_host_weights_free(&h);
    }
}

// ggml's blocks: 32 values, the first 16 in the low nibbles.
std::vector<unsigned char> gguf_blocks(int K, int N, bool q4_1, const std::vector<int>& q,
                                       const std::vector<float>& d, const std::vector<float>& m) {
  std::vector<unsigned char> out;
  for (int n = 0; n < N; ++n)
    for (int b = 0; b < K / 32; ++b) {
      const size_t bi = static_cast<size_t>(n) * (K / 32) + b;
      const uint16_t dh = half_of(d[bi]);
      out.push_back(static_cast<unsigned char>(dh & 255));
      out.push_back(static_cast<unsigned char>(dh >> 8));
      if (q4_1) {
        const uint16_t mh = half_of(m[bi]);
        out.push_back(static_cast<unsigned char>(mh & 255));
        out.push_back(static_cast<unsigned char>(mh >> 8));
      }
      for (int j = 0; j < 16; ++j) {
        const int lo = q[static_cast<size_t>(n) * K + b * 32 + j],
                  hi = q[static_cast<size_t>(n) * K + b * 32 + j + 16];
        out.push_back(static_cast<unsigned char>(lo | (hi << 4)));
      }
    }
  return out;
}

TEST(ImportersTest, GgufQ4_0AndQ4_1MatchGgmlsDequantisationWithNegativeScales) {
  const int K = 128, N = 8;
  std::mt19937 rng(11);
  std::vector<int> q(static_cast<size_t>(K) * N);
  for (int& v : q) v = static_cast<int>(rng() % 16);
  std::vector<float> d(static_cast<size_t>(N) * K / 32), m(d.size());
  for (size_t i = 0; i < d.size(); ++i) {
    d[i] = std::ldexp(static_cast<float>(512 + rng() % 512), -16) * (i % 3 == 0 ? -1.f : 1.f);
    m[i] = std::ldexp(static_cast<float>(512 + rng() % 512), -14) * (i % 2 ? -1.f : 1.f);
  }
  for (bool q4_1 : {false, true}) {
    SCOPED_TRACE(q4_1 ? "Q4_1" : "Q4_0");
    const std::vector<unsigned char> blocks = gguf_blocks(K, N, q4_1, q, d, m);
    Dense ref{K, N, std::vector<double>(static_cast<size_t>(K) * N)};
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < K; ++k) {
        const size_t bi = static_cast<size_t>(n) * (K / 32) + k / 32;
        const int qv = q[static_cast<size_t>(n) * K + k];
        ref.w[static_cast<size_t>(k) * N + n] =
            q4_1 ? static_cast<double>(d[bi]) * qv + m[bi] : static_cast<double>(d[bi]) * (qv - 8);
      }
    kopt_w4a16_host_weights h;
    ASSERT_EQ(kopt_w4a16_import_gguf(blocks.data(), blocks.size(),
                                     q4_1 ? KOPT_GGML_TYPE_Q4_1 : KOPT_GGML_TYPE_Q4_0, K, N, &h),
              KOPT_W4A16_OK)
        << kopt_w4a16_last_error();
    EXPECT_EQ(h.G, 32);
    EXPECT_EQ(h.max_offset_rounding, 0.f) << "−8d and m are exact in fp16";
    expect_same_weights(h, ref, 1);
    kopt_w4a16_host_weights_free(&h);
  }
}

// Every importer error is one clear line naming what is wrong.
TEST(ImportersTest, BadInputIsOneClearLine) {
  kopt_w4a16_host_weights h;
  std::vector<int32_t> words(4096);
  std::vector<uint16_t> scales(4096, 0x3C00);
  std::vector<unsigned char> blocks(18 * 4);
  struct Case {
    int code;
    const char* words;
  };
  auto expect = [&](int code, const std::string& needle) {
    EXPECT_EQ(code, KOPT_W4A16_INVALID_ARGUMENT);
    const std::string message = kopt_w4a16_last_error();
    EXPECT_NE(message.find(needle), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  };
  expect(kopt_w4a16_import_awq(words.data(), words.data(), scales.data(), 128, 12, 64, &h),
         "AWQ: N must be a multiple of 8");
  expect(kopt_w4a16_import_awq(words.data(), words.data(), scales.data(), 100, 16, 64, &h),
         "G even and dividing K");
  expect(kopt_w4a16_import_awq(nullptr, words.data(), scales.data(), 128, 16, 64, &h),
         "AWQ: null pointer");
  std::vector<int32_t> g_idx(128, 0);
  expect(kopt_w4a16_import_gptq(words.data(), words.data(), scales.data(), g_idx.data(), 128, 16,
                                64, 1, &h),
         "group 0 has 128 rows in g_idx, not G = 64");
  g_idx[5] = 9;
  expect(kopt_w4a16_import_gptq(words.data(), words.data(), scales.data(), g_idx.data(), 128, 16,
                                64, 1, &h),
         "g_idx[5] = 9 is not a group of 2");
  expect(kopt_w4a16_import_gguf(blocks.data(), blocks.size(), 8, 64, 2, &h),
         "type 8 is not Q4_0 (2) or Q4_1 (3)");
  expect(kopt_w4a16_import_gguf(blocks.data(), blocks.size() - 1, KOPT_GGML_TYPE_Q4_0, 64, 2, &h),
         "71 bytes, but 2 rows of 2 Q4_0 blocks are 72");
  expect(kopt_w4a16_import_gguf(blocks.data(), blocks.size(), KOPT_GGML_TYPE_Q4_0, 48, 2, &h),
         "not whole blocks of 32");
  std::vector<uint16_t> inf_scales(4096, 0x7C00);
  expect(kopt_w4a16_import_awq(words.data(), words.data(), inf_scales.data(), 128, 16, 64, &h),
         "is not finite");
}

}  // namespace
