// Example and check for the kopt_w8a16 library: for each shape, random int8
// weights with per-channel fp16 scales, y = x·W through the library, compared
// with an fp64 reference (|y - ref| <= 1e-2 + 1e-2·|ref|), then timed like
// `kopt bench` (weight copies rotated past 4x the L2, a captured graph of
// calls between two events, median of the replays). With --rows 1,2,8,...
// each shape also runs at those numbers of rows of x (kopt_w8a16_gemm;
// M = 1 is kopt_w8a16_gemv); --io X-Y reads x and writes y in other dtypes
// (fp16-fp16, bf16-bf16, bf16-fp32; through kopt_w8a16_gemm at every M).
// Usage: kopt_w8a16_example [--rows M,M,...] [--io X-Y] [KxN ...]
//   (default: the contest shapes + 3 untuned)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kopt_example_harness.h"
#include "kopt_gpu_runtime.h"
#include "kopt_w8a16.h"

namespace {

struct Shape {
  int K, N;
};

bool parse(const char* text, Shape* s) {
  char rest = 0;
  return std::sscanf(text, "%dx%d%c", &s->K, &s->N, &rest) == 2 && s->K > 0 && s->N > 0;
}

bool check(int rc, const char* what) {
  if (rc != KOPT_W8A16_OK) std::fprintf(stderr, "%s failed: %s\n", what, kopt_w8a16_last_error());
  return rc == KOPT_W8A16_OK;
}

// Returns false when the shape fails the accuracy check at `rows` rows of x.
bool run_shape(const Shape& s, int rows, KoptExampleIo io, std::mt19937_64& rng, int l2_bytes,
               hipStream_t stream) {
  const size_t qn = static_cast<size_t>(s.N) * s.K;
  std::vector<signed char> q(qn);
  std::vector<__half> scales(s.N), x(static_cast<size_t>(rows) * s.K);
  std::uniform_real_distribution<float> unit(-1.f, 1.f), scale(0.0005f, 0.002f);
  for (auto& b : q) b = static_cast<signed char>(rng());
  for (auto& v : scales) v = __float2half(scale(rng));
  for (auto& v : x) v = kopt_example_x_bits(unit(rng), io.x);

  // fp64 reference from the exact values of x and the scales, row by row.
  std::vector<double> ref(static_cast<size_t>(rows) * s.N);
  for (int m = 0; m < rows; ++m)
    for (int n = 0; n < s.N; ++n) {
      double acc = 0;
      for (int k = 0; k < s.K; ++k)
        acc += kopt_example_x_value(x[static_cast<size_t>(m) * s.K + k], io.x) *
               q[static_cast<size_t>(n) * s.K + k];
      ref[static_cast<size_t>(m) * s.N + n] = static_cast<double>(__half2float(scales[n])) * acc;
    }

  void *dq, *ds;
  GPU(hipMalloc(&dq, qn));
  GPU(hipMalloc(&ds, s.N * 2));
  GPU(hipMemcpy(dq, q.data(), qn, hipMemcpyHostToDevice));
  GPU(hipMemcpy(ds, scales.data(), s.N * 2, hipMemcpyHostToDevice));

  KoptExampleLibrary lib;
  lib.create = [&](void** h) {
    return check(
        kopt_w8a16_create(dq, ds, s.K, s.N, stream, reinterpret_cast<kopt_w8a16_weights**>(h)),
        "kopt_w8a16_create");
  };
  const bool gemv = rows == 1 && io.x == KOPT_W8A16_F16 && io.y == KOPT_W8A16_F32;
  lib.gemv = [rows, io, gemv](void* h, const void* x, void* y, hipStream_t st) {
    auto* weights = static_cast<kopt_w8a16_weights*>(h);
    return gemv ? kopt_w8a16_gemv(weights, x, static_cast<float*>(y), st)
                : kopt_w8a16_gemm(weights, x, io.x, rows, y, io.y, st);
  };
  lib.y_dtype = io.y;
  lib.destroy = [](void* h) { kopt_w8a16_destroy(static_cast<kopt_w8a16_weights*>(h)); };
  lib.kernel = [](void* h) { return kopt_w8a16_kernel(static_cast<kopt_w8a16_weights*>(h)); };
  lib.last_error = kopt_w8a16_last_error;
  char label[64];
  std::snprintf(label, sizeof label, "%5d x %-5d M %-2d io %d-%d", s.K, s.N, rows, io.x, io.y);
  const bool ok = kopt_example_check_and_time(lib, label, s.K, s.N,
                                              qn + 2.0 * s.N + (2.0 * s.K + 4.0 * s.N) * rows, x,
                                              ref, l2_bytes, stream);
  hipFree(dq);
  hipFree(ds);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  return kopt_example_main<Shape>(
      argc, argv, "KxN",
      {{7168, 9216},
       {7168, 1536},
       {7168, 1024},
       {5120, 6144},
       {5120, 3584},
       {5120, 3072},
       {5120, 768},
       {5120, 256},
       {4608, 7168},
       {4096, 7168},
       {3072, 5120},
       {1536, 6144},
       {512, 7168},
       {384, 5120},
       // not tuned: the generic fallbacks (the last two: K not a multiple of 16)
       {4096, 14336},
       {1000, 1000},
       {4095, 33}},
      parse, run_shape);
}
