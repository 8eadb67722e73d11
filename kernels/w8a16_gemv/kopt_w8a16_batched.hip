// The library's batched kernels: the w8a16_batch problem's `lanes` seed
// (seeds/w8a16_batch/lanes.hip, included as it is) built for each M bucket
// (kopt_w8a16_batched_plan.h) and each dtype pair of kKoptNativeIo, and the
// hooks of kopt_w8a16's extension (kopt_w8a16_extension.h) that run them
// behind kopt_w8a16_gemm.
#include <algorithm>
#include <string>

#include "kopt_launch.h"
#include "kopt_prelude.h"
#include "kopt_w8a16_internal.h"

// Each bucket, in each dtype pair of kKoptNativeIo.
#define KOPT_LANES_BUCKET 1
#include "kopt_w8a16_lanes_pairs.inc"
#define KOPT_LANES_BUCKET 2
#include "kopt_w8a16_lanes_pairs.inc"
#define KOPT_LANES_BUCKET 4
#include "kopt_w8a16_lanes_pairs.inc"
#define KOPT_LANES_BUCKET 8
#include "kopt_w8a16_lanes_pairs.inc"
#define KOPT_LANES_BUCKET 16
#include "kopt_w8a16_lanes_pairs.inc"
// The tuned builds (kKoptW8a16Tuned), on NVIDIA only, where they were
// measured (their entries take a warp of 32).
#if !defined(KOPT_AMD)
#define KOPT_LANES_BUCKET 2
#define KOPT_LANES_COLS 1
#define KOPT_LANES_LPC 16
#define KOPT_LANES_TAG _c1_l16
#include "kopt_w8a16_lanes_pairs.inc"
#endif

#if KOPT_HOST_PASS
namespace {

// The builds in kKoptW8a16Buckets's order, each in kKoptNativeIo's order.
constexpr KoptW8a16LanesCall kLanesCalls[][KoptW8a16Batched::kIoPairs] = {
    {kopt_w8a16_lanes_m1_io0_build::call, kopt_w8a16_lanes_m1_io1_build::call,
     kopt_w8a16_lanes_m1_io2_build::call},
    {kopt_w8a16_lanes_m2_io0_build::call, kopt_w8a16_lanes_m2_io1_build::call,
     kopt_w8a16_lanes_m2_io2_build::call},
    {kopt_w8a16_lanes_m4_io0_build::call, kopt_w8a16_lanes_m4_io1_build::call,
     kopt_w8a16_lanes_m4_io2_build::call},
    {kopt_w8a16_lanes_m8_io0_build::call, kopt_w8a16_lanes_m8_io1_build::call,
     kopt_w8a16_lanes_m8_io2_build::call},
    {kopt_w8a16_lanes_m16_io0_build::call, kopt_w8a16_lanes_m16_io1_build::call,
     kopt_w8a16_lanes_m16_io2_build::call}};
static_assert(sizeof kLanesCalls / sizeof kLanesCalls[0] == KoptW8a16Batched::kBuckets &&
                  sizeof kLanesCalls[0] / sizeof kLanesCalls[0][0] == KoptW8a16Batched::kIoPairs,
              "a build per bucket and dtype pair");

// The tuned builds: a bucket's columns and lanes of kKoptW8a16Tuned, each
// in kKoptNativeIo's order.
struct KoptLanesTunedBuild {
  long long rows, cols, lanes;
  KoptW8a16LanesCall calls[KoptW8a16Batched::kIoPairs];
};
#if !defined(KOPT_AMD)
constexpr KoptLanesTunedBuild kLanesTuned[] = {
    {2, 1, 16,
     {kopt_w8a16_lanes_m2_c1_l16_io0_build::call, kopt_w8a16_lanes_m2_c1_l16_io1_build::call,
      kopt_w8a16_lanes_m2_c1_l16_io2_build::call}}};
static_assert(kopt_each_entry_has_a_build(kKoptW8a16Tuned, kLanesTuned,
                                          [](const KoptLanesTunedBuild& b, const KoptW8a16Tuned& t) {
                                            return b.rows == t.bucket && b.cols == t.cols &&
                                                   b.lanes == t.lanes;
                                          }),
              "a kKoptW8a16Tuned entry has no build");
#else
// None on AMD: one entry of no bucket (C++ has no empty arrays).
constexpr KoptLanesTunedBuild kLanesTuned[] = {{0, 0, 0, {nullptr, nullptr, nullptr}}};
#endif

// The call of `bucket`'s build (kKoptW8a16Buckets's index) for K x N in
// dtype pair `io`: a tuned build where kopt_w8a16_choice picks one.
KoptW8a16LanesCall lanes_call(int bucket, int io, long long K, long long N, long long warp) {
  const long long rows = kKoptW8a16Buckets[bucket];
  const KoptW8a16Lanes p = kopt_w8a16_choice(rows, K, N, warp);
  for (const KoptLanesTunedBuild& b : kLanesTuned)
    if (b.rows == rows && b.cols == p.cols && b.lanes == p.lanes) return b.calls[io];
  return kLanesCalls[bucket][io];
}

}  // namespace

// The batched kernels read the canonical weights, so they serve wherever the
// entry keeps them (no re-layout) and K is a multiple of 16.
hipError_t KoptW8a16Batched::after_init(KoptWeights& w, hipStream_t stream, const char** step) {
  serves = !w.entry->has_relayout && kopt_w8a16_batched_supported(w.args.K);
  if (!serves) return hipSuccess;
  // The workspace for every bucket, zeroed once: its tickets start at zero
  // and are rearmed by every call.
  const size_t bytes = static_cast<size_t>(
      kopt_w8a16_workspace_bytes(w.args.K, w.args.N, w.args.warp, w.args.sms));
  hipError_t e;
  if ((e = hipMalloc(reinterpret_cast<void**>(&workspace), bytes)) != hipSuccess ||
      (e = hipMemsetAsync(workspace, 0, bytes, stream)) != hipSuccess ||
      (e = hipStreamSynchronize(stream)) != hipSuccess) {
    *step = "allocating the batched workspace";
    return e;
  }
  for (int bucket = 0; bucket < kBuckets; ++bucket)
    for (int io = 0; io < kIoPairs; ++io)
      calls[bucket][io] = lanes_call(bucket, io, w.args.K, w.args.N, w.args.warp);
  // One bf16 row on the 1-row build only where the entry has no build of
  // its own for bf16 (w.entry_pairs: the C API runs a single row on those).
  bf16_row = !w.entry_pairs && kopt_w8a16_one_bf16_row(w.args.K, w.args.N, w.args.warp, w.args.sms);
  w.description += bf16_row ? " (M >= 2, one bf16 row: lanes, batched)" : " (M >= 2: lanes, batched)";
  return hipSuccess;
}

// From two rows, up to the largest bucket at once (the weights read once per
// block): on the contest shapes two rows in one call took 0.57 to 0.81 times
// two batch-1 calls, 0.66 summed (PERFORMANCE.md, 2026-11-29, H200). One
// row in bf16 too where it is the faster (kopt_w8a16_one_bf16_row): the
// batch-1 kernels read fp16 x and write fp32 y, so such a call converts both
// around them (2.1-2.4 us a call on the H200), which the 1-row build,
// reading and writing bf16 itself, does not. fp16 x keeps the batch-1
// kernels, which need no conversion of x.
int KoptW8a16Batched::block_rows(const KoptWeights&, int remaining, int x_dtype,
                                 int y_dtype) const {
  if (!serves) return 0;
  if (remaining == 1) return bf16_row && x_dtype == kKoptBf16 && y_dtype == kKoptBf16 ? 1 : 0;
  return std::min(remaining, kMaxRows);
}

// Every build reads and writes the pairs of kKoptNativeIo itself.
bool KoptW8a16Batched::native(int x_dtype, int y_dtype) const {
  return kopt_native_io(x_dtype, y_dtype) >= 0;
}

hipError_t KoptW8a16Batched::call(const KoptWeights& w, int rows, const void* x, int x_dtype,
                                  void* y, int y_dtype, hipStream_t stream) const {
  const int io = kopt_native_io(x_dtype, y_dtype);
  const int bucket = kopt_bucket_index(kKoptW8a16Buckets, rows);
  if (io < 0 || bucket < 0) return hipErrorInvalidValue;
  return calls[bucket][io](rows, w.args.K, w.args.N, w.args.warp, w.args.sms, x, w.weights, y,
                           workspace, stream);
}

void KoptW8a16Batched::release() {
  if (workspace) (void)hipFree(workspace);
  workspace = nullptr;
}
#endif  // KOPT_HOST_PASS
