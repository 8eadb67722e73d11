// Example and check for the kopt_w8a16 library: for each shape, random int8
// weights with per-channel fp16 scales, y = x·W through the library, compared
// with an fp64 reference (|y - ref| <= 1e-2 + 1e-2·|ref|), then timed like
// `kopt bench` (weight copies rotated past 4x the L2, a captured graph of
// calls between two events, median of the replays).
// Usage: kopt_w8a16_example [KxN ...]   (default: the contest shapes + 3 untuned)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

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

// Every GPU call is checked: the first failure names the call and the
// driver's reason, and the shape counts as failed.
#define GPU(call)                                                                    \
  do {                                                                               \
    hipError_t gpu_error_ = (call);                                                  \
    if (gpu_error_ != hipSuccess) {                                                  \
      std::fprintf(stderr, "%s failed: %s\n", #call, hipGetErrorString(gpu_error_)); \
      return false;                                                                  \
    }                                                                                \
  } while (0)

bool check(int rc, const char* what) {
  if (rc != KOPT_W8A16_OK) std::fprintf(stderr, "%s failed: %s\n", what, kopt_w8a16_last_error());
  return rc == KOPT_W8A16_OK;
}

// Returns false when the shape fails the accuracy check.
bool run_shape(const Shape& s, std::mt19937_64& rng, int l2_bytes, hipStream_t stream) {
  const size_t qn = static_cast<size_t>(s.N) * s.K;
  std::vector<signed char> q(qn);
  std::vector<__half> scales(s.N), x(s.K);
  std::uniform_real_distribution<float> unit(-1.f, 1.f), scale(0.0005f, 0.002f);
  for (auto& b : q) b = static_cast<signed char>(rng());
  for (auto& v : scales) v = __float2half(scale(rng));
  for (auto& v : x) v = __float2half(unit(rng));

  // fp64 reference from the exact fp16 values.
  std::vector<double> ref(s.N);
  for (int n = 0; n < s.N; ++n) {
    double acc = 0;
    for (int k = 0; k < s.K; ++k)
      acc += static_cast<double>(__half2float(x[k])) * q[static_cast<size_t>(n) * s.K + k];
    ref[n] = static_cast<double>(__half2float(scales[n])) * acc;
  }

  void *dq, *ds, *dx;
  float* dy;
  GPU(hipMalloc(&dq, qn));
  GPU(hipMalloc(&ds, s.N * 2));
  GPU(hipMalloc(&dx, s.K * 2));
  GPU(hipMalloc(reinterpret_cast<void**>(&dy), s.N * 4));
  GPU(hipMemcpy(dq, q.data(), qn, hipMemcpyHostToDevice));
  GPU(hipMemcpy(ds, scales.data(), s.N * 2, hipMemcpyHostToDevice));
  GPU(hipMemcpy(dx, x.data(), s.K * 2, hipMemcpyHostToDevice));

  // Enough copies of the weights that the calls stream from memory, not L2.
  const double bytes = qn + 2.0 * s.N + 2.0 * s.K + 4.0 * s.N;
  const int copies = std::max(2, static_cast<int>(std::ceil(4.0 * l2_bytes / bytes)));
  std::vector<kopt_w8a16_weights*> handles(copies, nullptr);
  for (auto& h : handles)
    if (!check(kopt_w8a16_create(dq, ds, s.K, s.N, stream, &h), "kopt_w8a16_create")) return false;

  // Accuracy, through every handle's first call.
  std::vector<float> y(s.N);
  bool ok = true;
  double max_err = 0;
  for (int c = 0; c < copies && ok; c += std::max(1, copies / 3)) {
    GPU(hipMemcpy(dy, std::vector<float>(s.N, std::nanf("")).data(), s.N * 4,
                  hipMemcpyHostToDevice));
    if (!check(kopt_w8a16_gemv(handles[c], dx, dy, stream), "kopt_w8a16_gemv")) return false;
    GPU(hipStreamSynchronize(stream));
    GPU(hipMemcpy(y.data(), dy, s.N * 4, hipMemcpyDeviceToHost));
    for (int n = 0; n < s.N; ++n) {
      double err = std::fabs(y[n] - ref[n]);
      if (!(err <= 1e-2 + 1e-2 * std::fabs(ref[n]))) {
        std::printf("  %dx%d: y[%d] = %g, expected %g\n", s.K, s.N, n, y[n], ref[n]);
        ok = false;
        break;
      }
      max_err = std::max(max_err, err);
    }
  }

  // Timing: a graph of calls cycling over the copies, replayed between events.
  // Each copy has its own x and y too, as each layer of a model has.
  std::vector<void*> xs(copies, nullptr);
  std::vector<float*> ys(copies, nullptr);
  for (int c = 0; c < copies; ++c) {
    GPU(hipMalloc(&xs[c], s.K * 2));
    GPU(hipMalloc(reinterpret_cast<void**>(&ys[c]), s.N * 4));
    GPU(hipMemcpy(xs[c], x.data(), s.K * 2, hipMemcpyHostToDevice));
  }
  const int calls = copies * std::max(1, (64 + copies - 1) / copies);
  hipGraph_t graph;
  hipGraphExec_t exec;
  GPU(hipStreamBeginCapture(stream, hipStreamCaptureModeThreadLocal));
  for (int c = 0; c < calls; ++c)
    kopt_w8a16_gemv(handles[c % copies], xs[c % copies], ys[c % copies], stream);
  GPU(hipStreamEndCapture(stream, &graph));
  GPU(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
  hipEvent_t start, stop;
  GPU(hipEventCreate(&start));
  GPU(hipEventCreate(&stop));
  // Warm-up, as kopt's timing does: 50 ms of replays, so the clocks have
  // left idle (the fp64 reference above leaves the GPU idle for a while).
  const auto warm_start = std::chrono::steady_clock::now();
  do {
    GPU(hipGraphLaunch(exec, stream));
    GPU(hipStreamSynchronize(stream));
  } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - warm_start).count() <
           0.05);
  std::vector<double> us;
  for (int rep = 0; rep < 12; ++rep) {
    GPU(hipEventRecord(start, stream));
    GPU(hipGraphLaunch(exec, stream));
    GPU(hipEventRecord(stop, stream));
    GPU(hipEventSynchronize(stop));
    float ms = 0;
    GPU(hipEventElapsedTime(&ms, start, stop));
    if (rep >= 2) us.push_back(ms * 1000.0 / calls);
  }
  std::sort(us.begin(), us.end());
  std::printf("%5d x %-5d %-4s %8.2f us  max err %.2e  %s\n", s.K, s.N, ok ? "ok" : "FAIL",
              us[us.size() / 2], max_err, kopt_w8a16_kernel(handles[0]));
  for (auto* h : handles) kopt_w8a16_destroy(h);
  for (int c = 0; c < copies; ++c) {
    hipFree(xs[c]);
    hipFree(ys[c]);
  }
  hipGraphExecDestroy(exec);
  hipGraphDestroy(graph);
  hipEventDestroy(start);
  hipEventDestroy(stop);
  hipFree(dq);
  hipFree(ds);
  hipFree(dx);
  hipFree(dy);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Shape> shapes;
  for (int i = 1; i < argc; ++i) {
    Shape s;
    if (!parse(argv[i], &s)) {
      std::fprintf(stderr, "bad shape '%s' (expected KxN)\n", argv[i]);
      return 2;
    }
    shapes.push_back(s);
  }
  if (shapes.empty())
    shapes = {{7168, 9216},
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
              {4095, 33}};
  // Without a GPU, say so once rather than failing every shape.
  int devices = 0;
  const hipError_t found = hipGetDeviceCount(&devices);
  if (found != hipSuccess || devices == 0) {
    std::fprintf(stderr, "no GPU: %s\n",
                 found != hipSuccess ? hipGetErrorString(found) : "no device found");
    return 3;
  }
  int l2 = 0;
  hipDeviceGetAttribute(&l2, hipDeviceAttributeL2CacheSize, 0);
  std::mt19937_64 rng(20261122);
  int failures = 0;
  // One stream for the whole program, as an engine has.
  hipStream_t stream;
  if (hipStreamCreate(&stream) != hipSuccess) {
    std::fprintf(stderr, "cannot create a stream\n");
    return 3;
  }
  for (const auto& s : shapes) failures += run_shape(s, rng, l2, stream) ? 0 : 1;
  hipStreamDestroy(stream);
  std::printf("%d of %zu shapes failed the 1e-2 check\n", failures, shapes.size());
  return failures == 0 ? 0 : 1;
}
