// What every library's example does per shape once its weights are on the
// GPU: one call through several weight handles checked against an fp64
// reference (|y - ref| <= 1e-2 + 1e-2·|ref|), then timed like `kopt bench`
// (weight copies rotated past 4x the L2, a captured graph of calls cycling
// over them, replayed between events, median of the replays). The library's
// C API is reached through KoptExampleLibrary, so one harness serves all.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kopt_gpu_runtime.h"

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

struct KoptExampleLibrary {
  std::function<bool(void** handle)> create;  // prints what failed
  std::function<int(void* handle, const void* x, void* y, hipStream_t stream)> gemv;  // 0: ok
  int y_dtype = 0;  // what gemv writes: 0 fp32, 1 fp16, 2 bf16 (the C APIs' codes)
  std::function<void(void* handle)> destroy;
  std::function<const char*(void* handle)> kernel;
  std::function<const char*()> last_error;
  bool check(int rc, const char* what) const {
    if (rc != 0) std::fprintf(stderr, "%s failed: %s\n", what, last_error());
    return rc == 0;
  }
};

// The numbers of rows of `--rows M,M,...` (1 to 4096 each); false, said on
// stderr, for a malformed list.
inline bool kopt_example_parse_rows(const char* text, std::vector<int>* rows) {
  rows->clear();
  for (const char* p = text; *p;) {
    char* end = nullptr;
    const long m = std::strtol(p, &end, 10);
    if (end == p || m < 1 || m > 4096) {
      std::fprintf(stderr, "bad --rows '%s' (expected numbers 1 to 4096, e.g. 1,2,8)\n", text);
      return false;
    }
    rows->push_back(static_cast<int>(m));
    p = *end == ',' ? end + 1 : end;
  }
  return !rows->empty();
}

// The first GPU, as an example needs it: its L2 size (to size the weight
// rotation) and one stream for the whole program, as an engine has. False
// (said once on stderr) when there is no GPU or no stream: the example then
// exits 3 rather than failing every shape.
inline bool kopt_example_open_device(int* l2_bytes, hipStream_t* stream) {
  int devices = 0;
  const hipError_t found = hipGetDeviceCount(&devices);
  if (found != hipSuccess || devices == 0) {
    std::fprintf(stderr, "no GPU: %s\n",
                 found != hipSuccess ? hipGetErrorString(found) : "no device found");
    return false;
  }
  *l2_bytes = 0;
  hipDeviceGetAttribute(l2_bytes, hipDeviceAttributeL2CacheSize, 0);
  if (hipStreamCreate(stream) != hipSuccess) {
    std::fprintf(stderr, "cannot create a stream\n");
    return false;
  }
  return true;
}

// A bf16's value from its bits: the upper half of an fp32.
inline float kopt_example_bf16_value(unsigned short bits) {
  const unsigned word = static_cast<unsigned>(bits) << 16;
  float v;
  std::memcpy(&v, &word, 4);
  return v;
}

// The dtypes of x and y a call reads and writes (the C APIs' codes: 0 fp32,
// 1 fp16, 2 bf16): fp16 and fp32 unless `--io X-Y` says otherwise.
struct KoptExampleIo {
  int x = 1, y = 0;
};

// `--io`'s pair: fp16-fp32, fp16-fp16, bf16-bf16 or bf16-fp32; false, said
// on stderr, for any other.
inline bool kopt_example_parse_io(const std::string& pair, KoptExampleIo* io) {
  const struct {
    const char* name;
    KoptExampleIo io;
  } pairs[] = {
      {"fp16-fp32", {1, 0}}, {"fp16-fp16", {1, 1}}, {"bf16-bf16", {2, 2}}, {"bf16-fp32", {2, 0}}};
  for (const auto& p : pairs)
    if (pair == p.name) {
      *io = p.io;
      return true;
    }
  std::fprintf(stderr, "bad --io '%s' (expected fp16-fp32, fp16-fp16, bf16-bf16 or bf16-fp32)\n",
               pair.c_str());
  return false;
}

// v as x's 16 bits in `dtype` (fp16, or bf16 to nearest even by its bits),
// and those bits' value.
inline __half kopt_example_x_bits(float v, int dtype) {
  if (dtype == 1) return __float2half(v);
  unsigned u;
  std::memcpy(&u, &v, 4);
  __half_raw raw;
  raw.x = static_cast<unsigned short>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
  return __half(raw);
}
inline double kopt_example_x_value(__half h, int dtype) {
  if (dtype == 1) return __half2float(h);
  return kopt_example_bf16_value(static_cast<__half_raw>(h).x);
}

// Element i of y as the library wrote it in `dtype` (lib.y_dtype).
inline double kopt_example_y_at(const std::vector<unsigned char>& y, size_t i, int dtype) {
  if (dtype == 0) {
    float v;
    std::memcpy(&v, y.data() + 4 * i, 4);
    return v;
  }
  unsigned short bits;
  std::memcpy(&bits, y.data() + 2 * i, 2);
  if (dtype == 1) {
    __half_raw raw;
    raw.x = bits;
    return __half2float(__half(raw));
  }
  return kopt_example_bf16_value(bits);
}

// One shape: x (M rows of K 16-bit values in the dtype the library's call
// reads, M = x.size() / K) and the reference y (M rows of N values), `bytes`
// the bytes one call moves; the library's call takes all M rows. False when
// a GPU call fails or y is wrong.
inline bool kopt_example_check_and_time(const KoptExampleLibrary& lib, const std::string& label,
                                        int K, int N, double bytes, const std::vector<__half>& x,
                                        const std::vector<double>& ref, int l2_bytes,
                                        hipStream_t stream) {
  const size_t x_bytes = x.size() * 2, y_count = ref.size(),
               y_bytes = y_count * (lib.y_dtype == 0 ? 4 : 2);
  if (x.size() % static_cast<size_t>(K) != 0 || ref.size() * K != x.size() * N) {
    std::fprintf(stderr, "%s: x and the reference hold different numbers of rows\n", label.c_str());
    return false;
  }
  void* dx = nullptr;
  void* dy = nullptr;
  GPU(hipMalloc(&dx, x_bytes));
  GPU(hipMalloc(&dy, y_bytes));
  GPU(hipMemcpy(dx, x.data(), x_bytes, hipMemcpyHostToDevice));
  // Enough copies of the weights that the calls stream from memory, not L2.
  // (At most 256: a tiny shape would otherwise make hundreds of thousands.)
  const int copies = std::clamp(static_cast<int>(std::ceil(4.0 * l2_bytes / bytes)), 2, 256);
  std::vector<void*> handles(copies, nullptr);
  for (auto& h : handles)
    if (!lib.create(&h)) return false;

  // Accuracy, through every handle's first call.
  std::vector<unsigned char> y(y_bytes);
  bool ok = true;
  double max_err = 0;
  for (int c = 0; c < copies && ok; c += std::max(1, copies / 3)) {
    // All ones: NaN in every dtype, so an element not written fails.
    GPU(hipMemcpy(dy, std::vector<unsigned char>(y_bytes, 0xFF).data(), y_bytes,
                  hipMemcpyHostToDevice));
    if (!lib.check(lib.gemv(handles[c], dx, dy, stream), "gemv")) return false;
    GPU(hipStreamSynchronize(stream));
    GPU(hipMemcpy(y.data(), dy, y_bytes, hipMemcpyDeviceToHost));
    for (size_t n = 0; n < y_count; ++n) {
      const double got = kopt_example_y_at(y, n, lib.y_dtype);
      double err = std::fabs(got - ref[n]);
      if (!(err <= 1e-2 + 1e-2 * std::fabs(ref[n]))) {
        std::printf("  %s: y[%zu] (row %zu) = %g, expected %g\n", label.c_str(), n % N, n / N, got,
                    ref[n]);
        ok = false;
        break;
      }
      max_err = std::max(max_err, err);
    }
  }

  // Timing: a graph of calls cycling over the copies, replayed between events.
  // Each copy has its own x and y too, as each layer of a model has.
  std::vector<void*> xs(copies, nullptr);
  std::vector<void*> ys(copies, nullptr);
  for (int c = 0; c < copies; ++c) {
    GPU(hipMalloc(&xs[c], x_bytes));
    GPU(hipMalloc(&ys[c], y_bytes));
    GPU(hipMemcpy(xs[c], x.data(), x_bytes, hipMemcpyHostToDevice));
  }
  const int calls = copies * std::max(1, (64 + copies - 1) / copies);
  hipGraph_t graph;
  hipGraphExec_t exec;
  GPU(hipStreamBeginCapture(stream, hipStreamCaptureModeThreadLocal));
  for (int c = 0; c < calls; ++c)
    lib.gemv(handles[c % copies], xs[c % copies], ys[c % copies], stream);
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
  std::printf("%-18s %-4s %8.2f us  max err %.2e  %s\n", label.c_str(), ok ? "ok" : "FAIL",
              us[us.size() / 2], max_err, lib.kernel(handles[0]));
  for (void* h : handles) lib.destroy(h);
  for (int c = 0; c < copies; ++c) {
    hipFree(xs[c]);
    hipFree(ys[c]);
  }
  hipGraphExecDestroy(exec);
  hipGraphDestroy(graph);
  hipEventDestroy(start);
  hipEventDestroy(stop);
  hipFree(dx);
  hipFree(dy);
  return ok;
}

// An example's command line and loop: `[--rows M,M,...] [--io X-Y] [shape
// ...]`, each shape read by `parse` (`syntax` says what a malformed one
// should look like; `defaults` when none is given), then run at each M by
// `run(shape, rows, io, rng, l2_bytes, stream)`, which says whether y was
// within 1e-2. Prints how many (shape, M) failed and returns the exit code:
// 0 none failed, 1 some did, 2 a malformed argument, 3 no GPU.
template <class Shape, class Parse, class Run>
int kopt_example_main(int argc, char** argv, const char* syntax, std::vector<Shape> shapes,
                      Parse parse, Run run) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each shape's line as it is measured
  std::vector<Shape> given;
  std::vector<int> rows = {1};
  KoptExampleIo io;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--rows" && i + 1 < argc) {
      if (!kopt_example_parse_rows(argv[++i], &rows)) return 2;
      continue;
    }
    if (std::string(argv[i]) == "--io" && i + 1 < argc) {
      if (!kopt_example_parse_io(argv[++i], &io)) return 2;
      continue;
    }
    Shape s;
    if (!parse(argv[i], &s)) {
      std::fprintf(stderr, "bad shape '%s' (expected %s)\n", argv[i], syntax);
      return 2;
    }
    given.push_back(s);
  }
  if (!given.empty()) shapes = given;
  int l2 = 0;
  hipStream_t stream;
  if (!kopt_example_open_device(&l2, &stream)) return 3;
  std::mt19937_64 rng(20261122);
  int failures = 0;
  for (const Shape& s : shapes)
    for (int m : rows) failures += run(s, m, io, rng, l2, stream) ? 0 : 1;
  hipStreamDestroy(stream);
  std::printf("%d of %zu (shape, M) failed the 1e-2 check\n", failures,
              shapes.size() * rows.size());
  return failures == 0 ? 0 : 1;
}
