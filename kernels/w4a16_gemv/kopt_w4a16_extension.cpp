// kopt_w4a16's own part of its C API (the rest is generated from the
// template every library shares, kernels/common): the batched kernels'
// hooks (kopt_w4a16_extension.h) and kopt_w4a16_create_from_host. Compiled
// as CUDA (NVIDIA) or HIP (AMD); depends on the GPU runtime only.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "kopt_w4a16_internal.h"

// Sets *differ when a and b (`words` 4-byte words) are not the same bytes.
__global__ void kopt_w4a16_compare(const unsigned* a, const unsigned* b, size_t words,
                                   int* differ) {
  const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < words && a[i] != b[i]) *differ = 1;
}

// One thread a word of q (8 k, low nibble first) in each of the rows n =
// blockIdx.y, + gridDim.y, ...: w = s·q + o in fp32, rounded once into out
// [N][K] at each k's place in x's order (`order`: kopt's position j holds
// x's k order[j]; null: the same, and the 8 weights are one 16-byte store,
// a warp's 512 contiguous bytes). K and G are multiples of 32, as in every
// layout the batched kernels read. The group's scale and offset are
// `stride` halves apart from one group to the next (2: interleaved pairs,
// 1: arrays of their own).
__global__ void kopt_w4a16_dequantize_kernel(const unsigned char* q, const __half* scales,
                                             const __half* offsets, int stride, const int* order,
                                             void* out, int dtype, int K, int N, int G) {
  const int j0 = (blockIdx.x * blockDim.x + threadIdx.x) * 8;
  if (j0 >= K) return;
  const int group_in_row = j0 / G, groups = K / G;
  for (int n = blockIdx.y; n < N; n += gridDim.y) {
    const size_t row = static_cast<size_t>(n) * K,
                 group = (static_cast<size_t>(n) * groups + group_in_row) * stride;
    const float s = __half2float(scales[group]), o = __half2float(offsets[group]);
    const unsigned word = reinterpret_cast<const unsigned*>(q + row / 2)[j0 / 8];
    auto weight = [&](int e) {  // k j0 + e
      return fmaf(s, static_cast<float>((word >> (4 * e)) & 15u), o);
    };
    unsigned pairs[4];
#pragma unroll
    for (int p = 0; p < 4; ++p)
      pairs[p] = kopt_library_half2_bits(weight(2 * p), weight(2 * p + 1), dtype);
    auto* to = static_cast<unsigned short*>(out) + row;
    if (!order) {
      *reinterpret_cast<uint4*>(to + j0) = make_uint4(pairs[0], pairs[1], pairs[2], pairs[3]);
      continue;
    }
#pragma unroll
    for (int e = 0; e < 8; ++e)
      to[order[j0 + e]] = static_cast<unsigned short>(pairs[e / 2] >> (16 * (e % 2)));
  }
}

#if KOPT_HOST_PASS
namespace {

// Where the layouts the batched kernels read (KoptW4a16Batched::layout)
// hold each part of the weights: q as canonical [N][K/2] from byte 0, then
// after a 256-byte boundary either (scale, offset) pairs [N][K/G] (layout 0)
// or the canonical blob's scales [N][K/G] and, after another boundary, its
// offsets (layout 1).
struct BatchedRegions {
  size_t q_bytes;      // q, from byte 0
  size_t groups_at;    // the pairs, or the scales
  size_t group_bytes;  // one half a group: the scales' bytes (the pairs' are twice)
  size_t offsets_at;   // layout 1's offsets
};
BatchedRegions batched_regions(const KoptShapeArgs& a) {
  BatchedRegions r{};
  r.q_bytes = static_cast<size_t>(a.N) * (a.K / 2);
  r.groups_at = kopt_align256_host(r.q_bytes);
  r.group_bytes = static_cast<size_t>(a.N) * (a.K / a.G) * 2;
  r.offsets_at = r.groups_at + kopt_align256_host(r.group_bytes);
  return r;
}

// Which layout of the batched kernels (0: dot's and gen's packed layout, 1:
// the canonical blob) the entry's weights are in, decided on the bytes: the
// entry's own re-layout of `canonical` is compared with the batched kernels'
// re-layout of it. -1 when neither (rows then run one by one), or when no
// bucket serves the shape (`rows`: the largest that does, 0: none).
int batched_layout_of(const KoptKernelEntry* entry, const KoptShapeArgs& args, long long rows,
                      const unsigned char* canonical, hipStream_t stream,
                      unsigned char** expected) {
  *expected = nullptr;
  const KoptBatchedKernel* k = kopt_batched_kernel(rows, 0, args.K, args.N, args.warp);
  if (!k || rows == 0) return -1;
  if (!entry->has_relayout) return 1;
  const long long N = args.N, K = args.K, G = args.G;
  const BatchedRegions regions = batched_regions(args);
  const long long pairs_bytes = static_cast<long long>(regions.groups_at + 2 * regions.group_bytes);
  if (entry->packed_bytes(args) != pairs_bytes) return -1;
  if (hipMalloc(reinterpret_cast<void**>(expected), static_cast<size_t>(pairs_bytes)) !=
          hipSuccess ||
      k->lay_out(K, N, G, canonical, *expected, stream) != hipSuccess) {
    (void)hipGetLastError();
    if (*expected) (void)hipFree(*expected);
    *expected = nullptr;
    return -1;
  }
  return 0;  // if the bytes agree (same_pairs, once the entry's re-layout ran)
}

// Whether the packed layouts `a` and `b` of the pairs layout hold the same
// q bytes and (scale, offset) pairs (the padding between is not compared).
bool same_pairs(const unsigned char* a, const unsigned char* b, const KoptShapeArgs& args,
                hipStream_t stream) {
  const BatchedRegions regions = batched_regions(args);
  const size_t q_bytes = regions.q_bytes, pairs_at = regions.groups_at,
               pair_bytes = 2 * regions.group_bytes;
  int* differ = nullptr;
  int host = 1;
  bool ok = q_bytes % 4 == 0 &&
            hipMalloc(reinterpret_cast<void**>(&differ), sizeof(int)) == hipSuccess &&
            hipMemsetAsync(differ, 0, sizeof(int), stream) == hipSuccess;
  for (const auto& [at, bytes] : {std::pair<size_t, size_t>{0, q_bytes}, {pairs_at, pair_bytes}}) {
    const size_t words = bytes / 4;
    if (!ok || words == 0) continue;
    kopt_w4a16_compare<<<static_cast<unsigned>((words + 255) / 256), 256, 0, stream>>>(
        reinterpret_cast<const unsigned*>(a + at), reinterpret_cast<const unsigned*>(b + at), words,
        differ);
    ok = hipGetLastError() == hipSuccess;
  }
  ok = ok &&
       hipMemcpyAsync(&host, differ, sizeof(int), hipMemcpyDeviceToHost, stream) == hipSuccess &&
       hipStreamSynchronize(stream) == hipSuccess;
  if (differ) (void)hipFree(differ);
  (void)hipGetLastError();
  return ok && host == 0;
}

// The xrows build that takes a block of `rows` rows, where the register
// path serves the shape and is the faster (kopt_xrows_kernel); nullptr
// otherwise.
const KoptXrowsKernel* in_registers(const KoptW4a16Batched& b, const KoptWeights& w, int rows) {
  const long long K = w.args.K, N = w.args.N;
  return b.layout == 0 && rows >= 1 && rows <= kKoptXrowsMaxRows
             ? kopt_xrows_kernel(rows, K, N, w.args.G, w.args.warp)
             : nullptr;
}

}  // namespace

hipError_t KoptW4a16Batched::before_init(const KoptKernelEntry* entry, const KoptShapeArgs& args,
                                         const unsigned char* canonical, hipStream_t stream) {
  rows = static_cast<int>(
      std::min(kopt_batched_max_rows(args.K, args.G, args.warp), kopt_batched_built_rows()));
  layout = batched_layout_of(entry, args, rows, canonical, stream, &expected);
  return hipSuccess;  // no batched kernels is an answer: rows run one by one
}

hipError_t KoptW4a16Batched::after_init(KoptWeights& w, hipStream_t stream, const char** step) {
  if (expected) {
    if (!same_pairs(expected, w.weights, w.args, stream)) layout = -1;
    (void)hipFree(expected);
    expected = nullptr;
  }
  if (layout < 0) return hipSuccess;
  // The workspace for every bucket, zeroed once: its tickets start at zero
  // and are rearmed by every call.
  const long long K = w.args.K, N = w.args.N;
  const size_t ws = static_cast<size_t>(
      kopt_batched_workspace_bytes(rows, layout, K, N, w.args.warp, w.args.sms));
  hipError_t e;
  if ((e = hipMalloc(reinterpret_cast<void**>(&workspace), ws)) != hipSuccess ||
      (e = hipMemsetAsync(workspace, 0, ws, stream)) != hipSuccess ||
      (e = hipStreamSynchronize(stream)) != hipSuccess) {
    *step = "allocating the batched workspace";
    return e;
  }
  // One row where the register path is the faster for its dtypes
  // (kopt_xrows_one_bf16_row, kopt_xrows_one_fp16_row), decided here once;
  // only for an entry without builds of its own for those dtypes
  // (w.entry_pairs: the C API runs a single row on those first).
  const bool one_row = !w.entry_pairs && in_registers(*this, w, 1) != nullptr;
  const bool batch1_tuned = w.entry->shape.K != 0;  // a generic variant's shape is all 0
  bf16_row = one_row && kopt_xrows_one_bf16_row(K, N, batch1_tuned);
  fp16_row = one_row && kopt_xrows_one_fp16_row(K, N);
  if (fp16_row)
    w.description += " (one bf16 or fp16-to-fp16 row: xrows)";
  else if (bf16_row)
    w.description += " (one bf16 row: xrows)";
  // The register path serves blocks of 2 rows up to its largest bucket that
  // it serves from 2 rows on without a gap (the buckets after 1: 2, 4, 8).
  int xrows_top = 0;
  for (const int bucket : kKoptXrowsBuckets)
    if (bucket > 1) {
      if (!in_registers(*this, w, bucket)) break;
      xrows_top = bucket;
    }
  if (xrows_top > 0)
    w.description += " (M 2" + (xrows_top > 2 ? "-" + std::to_string(xrows_top) : "") +
                     ": xrows, M >= " + std::to_string(xrows_top + 1) + ": klanes; batched)";
  else
    w.description += " (M >= " + std::to_string(kopt_batched_min_rows(K)) + ": klanes, batched)";
  return hipSuccess;
}

// Up to the largest bucket at once (the weights read once per block) where
// the batched kernels serve this shape and the block has enough rows to gain;
// 2 to 4 rows (5 to 8 on the shapes tuned for them) on the register path
// where it serves the shape and is the faster. One row in bf16, or fp16 with
// fp16 y, on the register path too where it is the faster (bf16_row,
// fp16_row) and the entry has no builds of its own for those dtypes (the C
// API runs the row on those first): the batch-1 kernel then reads fp16 x and
// writes fp32 y, so such a call converts y after it, and bf16 x before it
// (2.1-2.4 us a call for both on the H200, measured on kopt_w8a16's), which
// the 1-row build, reading and writing those dtypes itself, does not: one
// bf16 row of the contest shapes took 78.48 us summed against 92.64 before,
// 0.62-0.96 of the time on the twelve it serves (H200, PERFORMANCE.md,
// 2026-11-29; the entries' own builds since: 63.56).
int KoptW4a16Batched::block_rows(const KoptWeights& w, int remaining, int x_dtype,
                                 int y_dtype) const {
  // One row: fp16 x with fp32 y keeps the batch-1 kernels, which convert nothing.
  if (remaining == 1)
    return (x_dtype == kKoptBf16 && y_dtype == kKoptBf16 && bf16_row) ||
                   (x_dtype == kKoptF16 && y_dtype == kKoptF16 && fp16_row)
               ? 1
               : 0;
  const int block = std::min(remaining, rows);
  if (!in_registers(*this, w, block) && (layout < 0 || block < kopt_batched_min_rows(w.args.K)))
    return 0;
  return block;
}

// Every batched build reads and writes the pairs of kKoptNativeIo itself.
bool KoptW4a16Batched::native(int x_dtype, int y_dtype) const {
  return kopt_native_io(x_dtype, y_dtype) >= 0;
}

hipError_t KoptW4a16Batched::call(const KoptWeights& w, int block, const void* x, int x_dtype,
                                  void* y, int y_dtype, hipStream_t stream) const {
  const KoptShapeArgs& a = w.args;
  const int io = kopt_native_io(x_dtype, y_dtype);
  if (io < 0) return hipErrorInvalidValue;
  if (const KoptXrowsKernel* k = in_registers(*this, w, block))
    return k->call(io, block, a.K, a.N, a.G, a.warp, a.sms, x, w.weights, y, stream);
  long long xs = 0;
  const KoptBatchedKernel* k = kopt_batched_kernel(block, layout, a.K, a.N, a.warp, &xs);
  return k->call(io, xs, block, a.K, a.N, a.G, a.warp, a.sms, x, w.weights, y, workspace, stream);
}

void KoptW4a16Batched::release() {
  for (void* p : {static_cast<void*>(expected), static_cast<void*>(workspace)})
    if (p) (void)hipFree(p);
  expected = nullptr;
  workspace = nullptr;
}

extern "C" {

int kopt_w4a16_create_from_host(const kopt_w4a16_host_weights* h, void* stream_ptr,
                                kopt_w4a16_weights** out) {
  if (!h || !out || !h->qweight || !h->scales || !h->offsets)
    return kopt_w4a16_fail(KOPT_W4A16_INVALID_ARGUMENT, "null pointer");
  *out = nullptr;
  if (h->K < 2 || h->N < 1 || h->G < 2 || h->K % 2 != 0 || h->K % h->G != 0)
    return kopt_w4a16_fail(KOPT_W4A16_INVALID_ARGUMENT,
                           "host weights with K=" + std::to_string(h->K) +
                               " N=" + std::to_string(h->N) + " G=" + std::to_string(h->G) +
                               " are not valid");
  hipStream_t stream = static_cast<hipStream_t>(stream_ptr);
  const size_t q_bytes = static_cast<size_t>(h->N) * (h->K / 2),
               g_bytes = static_cast<size_t>(h->N) * (h->K / h->G) * 2;
  unsigned char *q = nullptr, *s = nullptr, *o = nullptr;
  hipError_t e = hipMalloc(reinterpret_cast<void**>(&q), q_bytes);
  if (e == hipSuccess) e = hipMalloc(reinterpret_cast<void**>(&s), g_bytes);
  if (e == hipSuccess) e = hipMalloc(reinterpret_cast<void**>(&o), g_bytes);
  if (e == hipSuccess) e = hipMemcpy(q, h->qweight, q_bytes, hipMemcpyHostToDevice);
  if (e == hipSuccess) e = hipMemcpy(s, h->scales, g_bytes, hipMemcpyHostToDevice);
  if (e == hipSuccess) e = hipMemcpy(o, h->offsets, g_bytes, hipMemcpyHostToDevice);
  int r = e == hipSuccess ? kopt_w4a16_create(q, s, o, h->K, h->N, h->G, stream, out)
                          : kopt_w4a16_record(kopt_gpu_error(e, "uploading host weights"));
  if (r == KOPT_W4A16_OK) (void)hipStreamSynchronize(stream);
  for (unsigned char* p : {q, s, o})
    if (p) (void)hipFree(p);
  if (r != KOPT_W4A16_OK || !h->k_order) return r;
  kopt_w4a16_weights* w = *out;
  if ((e = hipMalloc(reinterpret_cast<void**>(&w->k_order), sizeof(int) * h->K)) != hipSuccess ||
      (e = hipMemcpy(w->k_order, h->k_order, sizeof(int) * h->K, hipMemcpyHostToDevice)) !=
          hipSuccess) {
    kopt_w4a16_destroy(w);
    *out = nullptr;
    return kopt_w4a16_record(kopt_gpu_error(e, "uploading the K order"));
  }
  return KOPT_W4A16_OK;
}

int kopt_w4a16_dequantize(const kopt_w4a16_weights* w, void* out, int out_dtype, void* stream) {
  if (KoptResult r = kopt_library_check_dequantize(w, out, out_dtype); r.code != kKoptOk)
    return kopt_w4a16_record(r);
  const KoptShapeArgs& a = w->args;
  const int layout = w->extension.layout;
  if (layout < 0 || a.K % 32 != 0 || a.G % 32 != 0)
    return kopt_w4a16_fail(KOPT_W4A16_NO_KERNEL,
                           "these weights are in their kernel's own layout, which the "
                           "dequantiser does not read: " +
                               w->description);
  const BatchedRegions regions = batched_regions(a);
  const auto* scales = reinterpret_cast<const __half*>(w->weights + regions.groups_at);
  const __half* offsets =
      layout == 0 ? scales + 1 : reinterpret_cast<const __half*>(w->weights + regions.offsets_at);
  // Threads over a row's words, blocks over rows (at most 65535: the rest
  // in turn).
  const dim3 grid(static_cast<unsigned>((a.K / 8 + 255) / 256),
                  static_cast<unsigned>(std::min<long long>(a.N, 65535)));
  kopt_w4a16_dequantize_kernel<<<grid, 256, 0, static_cast<hipStream_t>(stream)>>>(
      w->weights, scales, offsets, layout == 0 ? 2 : 1, w->k_order, out, out_dtype,
      static_cast<int>(a.K), static_cast<int>(a.N), static_cast<int>(a.G));
  const hipError_t e = hipGetLastError();
  return e == hipSuccess ? KOPT_W4A16_OK
                         : kopt_w4a16_record(kopt_gpu_error(e, "dequantize launch"));
}

}  // extern "C"

#endif  // KOPT_HOST_PASS
