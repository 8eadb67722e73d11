// Example and check for the kopt_w4a16 library: for each shape, random
// weights in the canonical format, y = x·W through the library, compared
// with an fp64 reference (|y - ref| <= 1e-2 + 1e-2·|ref|), then timed like
// `kopt bench` (weight copies rotated past 4x the L2, a captured graph of
// calls between two events, median of the replays).
// With --rows 1,2,8,... each shape also runs at those numbers of rows of x
// (kopt_w4a16_gemm; M = 1 is kopt_w4a16_gemv); --io X-Y reads x and writes
// y in other dtypes (fp16-fp16, bf16-bf16, bf16-fp32; through
// kopt_w4a16_gemm at every M).
// Usage: kopt_w4a16_example [--rows M,M,...] [--io X-Y] [KxN[/gG] ...]
//        (default: M = 1 on the contest shapes + 3 untuned)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "kopt_example_harness.h"
#include "kopt_gpu_runtime.h"
#include "kopt_w4a16.h"

namespace {

struct Shape {
  int K, N, G;
};

bool parse(const char* text, Shape* s) {
  s->G = 64;
  return std::sscanf(text, "%dx%d/g%d", &s->K, &s->N, &s->G) >= 2;
}

bool check(int rc, const char* what) {
  if (rc != KOPT_W4A16_OK) std::fprintf(stderr, "%s failed: %s\n", what, kopt_w4a16_last_error());
  return rc == KOPT_W4A16_OK;
}

// Returns false when the shape fails the accuracy check at `rows` rows of x.
bool run_shape(const Shape& s, int rows, KoptExampleIo io, std::mt19937_64& rng, int l2_bytes,
               hipStream_t stream) {
  const size_t qn = static_cast<size_t>(s.N) * (s.K / 2),
               gn = static_cast<size_t>(s.N) * (s.K / s.G);
  std::vector<unsigned char> q(qn);
  std::vector<__half> scales(gn), offsets(gn), x(static_cast<size_t>(rows) * s.K);
  std::uniform_real_distribution<float> unit(-1.f, 1.f), scale(0.005f, 0.02f),
      jitter(-0.01f, 0.01f);
  for (auto& b : q) b = static_cast<unsigned char>(rng());
  for (size_t i = 0; i < gn; ++i) {
    float sc = scale(rng);
    scales[i] = __float2half(sc);
    offsets[i] = __float2half(-8.f * sc + jitter(rng));
  }
  for (auto& v : x) v = kopt_example_x_bits(unit(rng), io.x);

  // fp64 reference from the exact values of x, the scales and the offsets, row by row.
  std::vector<double> ref(static_cast<size_t>(rows) * s.N), w(s.K);
  for (int n = 0; n < s.N; ++n) {
    for (int k = 0; k < s.K; ++k) {
      unsigned char b = q[static_cast<size_t>(n) * (s.K / 2) + k / 2];
      int qv = (k & 1) ? (b >> 4) : (b & 15);
      size_t g = static_cast<size_t>(n) * (s.K / s.G) + k / s.G;
      w[k] = static_cast<double>(__half2float(scales[g])) * qv +
             static_cast<double>(__half2float(offsets[g]));
    }
    for (int m = 0; m < rows; ++m) {
      double acc = 0;
      for (int k = 0; k < s.K; ++k)
        acc += kopt_example_x_value(x[static_cast<size_t>(m) * s.K + k], io.x) * w[k];
      ref[static_cast<size_t>(m) * s.N + n] = acc;
    }
  }

  void *dq, *ds, *dofs;
  GPU(hipMalloc(&dq, qn));
  GPU(hipMalloc(&ds, gn * 2));
  GPU(hipMalloc(&dofs, gn * 2));
  GPU(hipMemcpy(dq, q.data(), qn, hipMemcpyHostToDevice));
  GPU(hipMemcpy(ds, scales.data(), gn * 2, hipMemcpyHostToDevice));
  GPU(hipMemcpy(dofs, offsets.data(), gn * 2, hipMemcpyHostToDevice));

  KoptExampleLibrary lib;
  lib.create = [&](void** h) {
    return check(kopt_w4a16_create(dq, ds, dofs, s.K, s.N, s.G, stream,
                                   reinterpret_cast<kopt_w4a16_weights**>(h)),
                 "kopt_w4a16_create");
  };
  const bool gemv = rows == 1 && io.x == KOPT_W4A16_F16 && io.y == KOPT_W4A16_F32;
  lib.gemv = [rows, io, gemv](void* h, const void* x, void* y, hipStream_t st) {
    auto* weights = static_cast<kopt_w4a16_weights*>(h);
    return gemv ? kopt_w4a16_gemv(weights, x, static_cast<float*>(y), st)
                : kopt_w4a16_gemm(weights, x, io.x, rows, y, io.y, st);
  };
  lib.y_dtype = io.y;
  lib.destroy = [](void* h) { kopt_w4a16_destroy(static_cast<kopt_w4a16_weights*>(h)); };
  lib.kernel = [](void* h) { return kopt_w4a16_kernel(static_cast<kopt_w4a16_weights*>(h)); };
  lib.last_error = kopt_w4a16_last_error;
  char label[64];
  if (io.x == KOPT_W4A16_F16 && io.y == KOPT_W4A16_F32)
    std::snprintf(label, sizeof label, "%5d x %-5d g%-3d M %-2d", s.K, s.N, s.G, rows);
  else
    std::snprintf(label, sizeof label, "%5d x %-5d g%-3d M %-2d io %d-%d", s.K, s.N, s.G, rows,
                  io.x, io.y);
  const bool ok = kopt_example_check_and_time(lib, label, s.K, s.N,
                                              qn + 4.0 * gn + (2.0 * s.K + 4.0 * s.N) * rows, x,
                                              ref, l2_bytes, stream);
  hipFree(dq);
  hipFree(ds);
  hipFree(dofs);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  return kopt_example_main<Shape>(argc, argv, "KxN or KxN/gG",
                                  {{7168, 9216, 64},
                                   {7168, 1536, 64},
                                   {7168, 1024, 64},
                                   {5120, 6144, 64},
                                   {5120, 3584, 64},
                                   {5120, 3072, 64},
                                   {5120, 768, 64},
                                   {5120, 256, 64},
                                   {4608, 7168, 64},
                                   {4096, 7168, 64},
                                   {3072, 5120, 64},
                                   {1536, 6144, 64},
                                   {512, 7168, 64},
                                   {384, 5120, 64},
                                   // not tuned: the generic fallbacks
                                   {2048, 2880, 64},
                                   {4096, 7168, 128},
                                   {96, 10, 32}},
                                  parse, run_shape);
}
