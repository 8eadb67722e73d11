// Host-side importers of the int4 weight formats engines load (AWQ, GPTQ,
// GGUF Q4_0/Q4_1) into kopt's canonical arrays. Plain C++: no GPU runtime, so it is built and
// tested anywhere.
//
// Every format is w = scale·q + offset for kopt: AWQ and GPTQ store
// w = s·(q − z), so offset = −z·s; Q4_0 stores w = d·(q − 8), offset = −8d;
// Q4_1 stores w = d·q + m, offset = m. The formats' definitions these follow:
// AutoAWQ's GEMM packing (eight nibbles per int32 in the column order
// 0, 2, 4, 6, 1, 3, 5, 7), AutoGPTQ's packing (eight consecutive k per int32,
// low nibble first; zeros packed along N, stored as z − 1 by the original
// format), ggml's block_q4_0 / block_q4_1 (32 values per block, the first 16
// in the low nibbles, the next 16 in the high ones).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kopt_w4a16.h"
#include "kopt_w4a16_errors.h"

namespace {

// IEEE half <-> float, round to nearest even (host only; no GPU header).
float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1F, mant = h & 0x3FF, bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      exp = 127 - 15 + 1;
      while (!(mant & 0x400)) mant <<= 1, --exp;
      bits = sign | (exp << 23) | ((mant & 0x3FF) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7F800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  const uint32_t abs = x & 0x7FFFFFFF;
  if (abs >= 0x7F800000) return sign | 0x7C00 | (abs > 0x7F800000 ? 0x200 : 0);  // inf, nan
  if (abs >= 0x477FF000) return sign | 0x7C00;  // rounds past 65504: inf
  if (abs < 0x38800000) {                       // subnormal or zero in half
    const uint32_t shift = 113 - (abs >> 23);
    if (shift > 24) return sign;
    const uint32_t mant = (abs & 0x7FFFFF) | 0x800000;
    uint32_t h = mant >> (shift + 13);
    const uint32_t rest = mant & ((1u << (shift + 13)) - 1), half = 1u << (shift + 12);
    if (rest > half || (rest == half && (h & 1))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = ((abs - 0x38000000) >> 13);
  const uint32_t rest = abs & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;
  return static_cast<uint16_t>(sign | h);
}

int invalid(const std::string& what) { return kopt_w4a16_fail(KOPT_W4A16_INVALID_ARGUMENT, what); }

// Checks the sizes every importer shares and allocates `out`.
int start(int K, int N, int G, kopt_w4a16_host_weights* out, const char* format) {
  if (!out) return invalid(std::string(format) + ": null output");
  std::memset(out, 0, sizeof *out);
  if (K < 2 || N < 1 || G < 2 || K % 2 != 0 || G % 2 != 0 || K % G != 0)
    return invalid(std::string(format) +
                   ": need K >= 2 even, N >= 1, G even and dividing K; got K=" + std::to_string(K) +
                   " N=" + std::to_string(N) + " G=" + std::to_string(G));
  const size_t groups = static_cast<size_t>(N) * static_cast<size_t>(K / G);
  if (static_cast<double>(N) * K > 4e11) return invalid(std::string(format) + ": K·N too large");
  out->K = K;
  out->N = N;
  out->G = G;
  out->qweight = static_cast<unsigned char*>(std::calloc(static_cast<size_t>(N) * (K / 2), 1));
  out->scales = static_cast<unsigned short*>(std::calloc(groups, 2));
  out->offsets = static_cast<unsigned short*>(std::calloc(groups, 2));
  if (!out->qweight || !out->scales || !out->offsets) {
    kopt_w4a16_host_weights_free(out);
    return kopt_w4a16_fail(KOPT_W4A16_GPU_ERROR, std::string(format) + ": out of host memory");
  }
  return KOPT_W4A16_OK;
}

void set_nibble(kopt_w4a16_host_weights* h, int n, int k, unsigned q) {
  unsigned char& b = h->qweight[static_cast<size_t>(n) * (h->K / 2) + k / 2];
  b = static_cast<unsigned char>(k % 2 ? (b & 0x0F) | (q << 4) : (b & 0xF0) | q);
}

// scale and offset = −z·s for group g of column n; the offset is rounded to
// fp16 once, and the largest rounding is recorded.
void set_group(kopt_w4a16_host_weights* h, int n, int g, uint16_t scale_bits, float offset) {
  const size_t at = static_cast<size_t>(n) * (h->K / h->G) + g;
  h->scales[at] = scale_bits;
  h->offsets[at] = float_to_half(offset);
  const float err = std::fabs(half_to_float(h->offsets[at]) - offset);
  if (err > h->max_offset_rounding) h->max_offset_rounding = err;
}

bool finite_half(uint16_t bits) { return (bits & 0x7C00) != 0x7C00; }

}  // namespace

extern "C" {

void kopt_w4a16_host_weights_free(kopt_w4a16_host_weights* h) {
  if (!h) return;
  std::free(h->qweight);
  std::free(h->scales);
  std::free(h->offsets);
  std::free(h->k_order);
  h->qweight = nullptr;
  h->scales = h->offsets = nullptr;
  h->k_order = nullptr;
}

int kopt_w4a16_import_awq(const int32_t* qweight, const int32_t* qzeros, const uint16_t* scales,
                          int K, int N, int G, kopt_w4a16_host_weights* out) {
  if (!qweight || !qzeros || !scales) return invalid("AWQ: null pointer");
  if (N % 8 != 0) return invalid("AWQ: N must be a multiple of 8 (eight columns per int32)");
  if (int r = start(K, N, G, out, "AWQ")) return r;
  // Column t of a word sits in nibble kReverse[t] (AutoAWQ packs column
  // order[i] into nibble i, order = 0, 2, 4, 6, 1, 3, 5, 7).
  static const int kReverse[8] = {0, 4, 1, 5, 2, 6, 3, 7};
  const int words = N / 8;
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n) {
      const uint32_t word = static_cast<uint32_t>(qweight[static_cast<size_t>(k) * words + n / 8]);
      set_nibble(out, n, k, (word >> (4 * kReverse[n % 8])) & 15);
    }
  for (int g = 0; g < K / G; ++g)
    for (int n = 0; n < N; ++n) {
      const uint32_t word = static_cast<uint32_t>(qzeros[static_cast<size_t>(g) * words + n / 8]);
      const unsigned z = (word >> (4 * kReverse[n % 8])) & 15;
      const uint16_t s = scales[static_cast<size_t>(g) * N + n];
      if (!finite_half(s)) {
        kopt_w4a16_host_weights_free(out);
        return invalid("AWQ: scale of group " + std::to_string(g) + ", column " +
                       std::to_string(n) + " is not finite");
      }
      set_group(out, n, g, s, -static_cast<float>(z) * half_to_float(s));
    }
  return KOPT_W4A16_OK;
}

int kopt_w4a16_import_gptq(const int32_t* qweight, const int32_t* qzeros, const uint16_t* scales,
                           const int32_t* g_idx, int K, int N, int G, int zeros_minus_one,
                           kopt_w4a16_host_weights* out) {
  if (!qweight || !qzeros || !scales) return invalid("GPTQ: null pointer");
  if (K % 8 != 0) return invalid("GPTQ: K must be a multiple of 8 (eight k per int32)");
  if (N % 8 != 0) return invalid("GPTQ: N must be a multiple of 8 (eight zeros per int32)");
  if (int r = start(K, N, G, out, "GPTQ")) return r;
  const int groups = K / G;
  // kopt's K order: the original k sorted by group (stable), so that each
  // group is G consecutive positions. Without act-order it is the identity.
  std::vector<int> order(static_cast<size_t>(K));
  for (int k = 0; k < K; ++k) order[static_cast<size_t>(k)] = k;
  bool permuted = false;
  if (g_idx) {
    std::vector<int> members(static_cast<size_t>(groups), 0);
    for (int k = 0; k < K; ++k) {
      if (g_idx[k] < 0 || g_idx[k] >= groups) {
        kopt_w4a16_host_weights_free(out);
        return invalid("GPTQ: g_idx[" + std::to_string(k) + "] = " + std::to_string(g_idx[k]) +
                       " is not a group of " + std::to_string(groups));
      }
      ++members[static_cast<size_t>(g_idx[k])];
    }
    for (int g = 0; g < groups; ++g)
      if (members[static_cast<size_t>(g)] != G) {
        kopt_w4a16_host_weights_free(out);
        return invalid("GPTQ: group " + std::to_string(g) + " has " +
                       std::to_string(members[static_cast<size_t>(g)]) +
                       " rows in g_idx, not G = " + std::to_string(G) +
                       "; kopt needs groups of equal size");
      }
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return g_idx[a] < g_idx[b]; });
    for (int j = 0; j < K && !permuted; ++j) permuted = order[static_cast<size_t>(j)] != j;
  }
  for (int j = 0; j < K; ++j) {
    const int k = order[static_cast<size_t>(j)];
    for (int n = 0; n < N; ++n) {
      const uint32_t word = static_cast<uint32_t>(qweight[static_cast<size_t>(k / 8) * N + n]);
      set_nibble(out, n, j, (word >> (4 * (k % 8))) & 15);
    }
  }
  const int words = N / 8;
  for (int g = 0; g < groups; ++g)
    for (int n = 0; n < N; ++n) {
      const uint32_t word = static_cast<uint32_t>(qzeros[static_cast<size_t>(g) * words + n / 8]);
      // The original format stores z − 1 in four bits (15 wraps to z = 16);
      // newer tools store z.
      const unsigned z = ((word >> (4 * (n % 8))) & 15) + (zeros_minus_one ? 1 : 0);
      const uint16_t s = scales[static_cast<size_t>(g) * N + n];
      if (!finite_half(s)) {
        kopt_w4a16_host_weights_free(out);
        return invalid("GPTQ: scale of group " + std::to_string(g) + ", column " +
                       std::to_string(n) + " is not finite");
      }
      set_group(out, n, g, s, -static_cast<float>(z) * half_to_float(s));
    }
  if (permuted) {
    out->k_order = static_cast<int*>(std::malloc(sizeof(int) * static_cast<size_t>(K)));
    if (!out->k_order) {
      kopt_w4a16_host_weights_free(out);
      return kopt_w4a16_fail(KOPT_W4A16_GPU_ERROR, "GPTQ: out of host memory");
    }
    std::copy(order.begin(), order.end(), out->k_order);
  }
  return KOPT_W4A16_OK;
}

int kopt_w4a16_import_gguf(const void* data, size_t bytes, int type, int K, int N,
                           kopt_w4a16_host_weights* out) {
  if (!data) return invalid("GGUF: null pointer");
  if (type != KOPT_GGML_TYPE_Q4_0 && type != KOPT_GGML_TYPE_Q4_1)
    return invalid("GGUF: tensor type " + std::to_string(type) +
                   " is not Q4_0 (2) or Q4_1 (3); other types are not int4 with one scale per "
                   "block of 32");
  if (K % 32 != 0)
    return invalid("GGUF: a row of K = " + std::to_string(K) + " values is not whole blocks of 32");
  if (int r = start(K, N, 32, out, "GGUF")) return r;
  const bool q4_1 = type == KOPT_GGML_TYPE_Q4_1;
  const size_t block_bytes = q4_1 ? 20 : 18, blocks = static_cast<size_t>(K / 32);
  if (bytes != block_bytes * blocks * static_cast<size_t>(N)) {
    kopt_w4a16_host_weights_free(out);
    return invalid("GGUF: " + std::to_string(bytes) + " bytes, but " + std::to_string(N) +
                   " rows of " + std::to_string(blocks) + " " + (q4_1 ? "Q4_1" : "Q4_0") +
                   " blocks are " + std::to_string(block_bytes * blocks * N));
  }
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (int n = 0; n < N; ++n)
    for (size_t b = 0; b < blocks; ++b, p += block_bytes) {
      uint16_t d, m = 0;
      std::memcpy(&d, p, 2);
      if (q4_1) std::memcpy(&m, p + 2, 2);
      if (!finite_half(d) || !finite_half(m)) {
        kopt_w4a16_host_weights_free(out);
        return invalid("GGUF: block " + std::to_string(b) + " of row " + std::to_string(n) +
                       " has a scale that is not finite");
      }
      const unsigned char* qs = p + (q4_1 ? 4 : 2);
      const int k0 = static_cast<int>(b) * 32;
      for (int j = 0; j < 16; ++j) {
        set_nibble(out, n, k0 + j, qs[j] & 15);
        set_nibble(out, n, k0 + j + 16, qs[j] >> 4);
      }
      // Q4_0: −8d is exact in fp16 (a power-of-two multiple) unless it
      // overflows; Q4_1: m is stored as it is.
      set_group(out, n, static_cast<int>(b), d, q4_1 ? half_to_float(m) : -8.0f * half_to_float(d));
      if (!finite_half(out->offsets[static_cast<size_t>(n) * blocks + b])) {
        kopt_w4a16_host_weights_free(out);
        return invalid("GGUF: −8·d of block " + std::to_string(b) + " of row " + std::to_string(n) +
                       " overflows fp16");
      }
    }
  return KOPT_W4A16_OK;
}

}  // extern "C"
