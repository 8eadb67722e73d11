// The C API of the shipped library over the generated dispatch table.
// Compiled as CUDA (NVIDIA) or HIP (AMD); depends on the GPU runtime only.
#include "include/kopt_w4a16.h"

#include <algorithm>
#include <string>
#include <utility>

#include "kopt_dispatch.h"
#include "kopt_prelude.h"
#include "kopt_w4a16_batched.h"
#include "kopt_w4a16_errors.h"

// The tuned kernels, the generic variants and the rule's probe data, from
// `kopt export` (generated/dispatch.inc): kopt_dispatch.
#include "kopt_dispatch_tables.inc"

// The converting prologue and epilogue of kopt_w4a16_gemm: the tuned kernels
// read fp16 x in kopt's K order and write fp32 y, so other dtypes (and a
// GPTQ act-order) meet them here, once per row. bf16 is converted by its
// bits (the upper half of an fp32), the same on both platforms.
__device__ inline float kopt_bf16_to_float(unsigned short b) {
  return __uint_as_float(static_cast<unsigned>(b) << 16);
}
__device__ inline unsigned short kopt_float_to_bf16(float f) {
  const unsigned u = __float_as_uint(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<unsigned short>((u >> 16) | 0x40);  // NaN
  return static_cast<unsigned short>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);  // nearest even
}

// Row blockIdx.y of x (row stride K) into fp16 in kopt's K order.
__global__ void kopt_w4a16_stage_x(const void* x, int dtype, const int* order, __half* out, int K) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= K) return;
  const size_t row = static_cast<size_t>(blockIdx.y) * K;
  const int k = order ? order[j] : j;
  if (dtype == KOPT_W4A16_BF16) {
    // Saturate to fp16's range rather than turn an outlier into inf.
    const float v = kopt_bf16_to_float(static_cast<const unsigned short*>(x)[row + k]);
    out[row + j] = __float2half(fminf(fmaxf(v, -65504.f), 65504.f));
  } else {
    out[row + j] = static_cast<const __half*>(x)[row + k];
  }
}

// Row blockIdx.y of the fp32 y (row stride N) into fp16 or bf16.
__global__ void kopt_w4a16_store_y(const float* y32, void* y, int dtype, int N) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= N) return;
  const size_t i = static_cast<size_t>(blockIdx.y) * N + n;
  if (dtype == KOPT_W4A16_BF16)
    static_cast<unsigned short*>(y)[i] = kopt_float_to_bf16(y32[i]);
  else
    static_cast<__half*>(y)[i] = __float2half(y32[i]);
}

// Sets *differ when a and b (`words` 4-byte words) are not the same bytes.
__global__ void kopt_w4a16_compare(const unsigned* a, const unsigned* b, size_t words,
                                   int* differ) {
  const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < words && a[i] != b[i]) *differ = 1;
}

#if KOPT_HOST_PASS
namespace {

int fail(int code, const std::string& message) { return kopt_w4a16_fail(code, message); }

int gpu_fail(hipError_t e, const char* what) {
  return fail(KOPT_W4A16_GPU_ERROR, std::string(what) + ": " + hipGetErrorString(e));
}

size_t dtype_bytes(int dtype) { return dtype == KOPT_W4A16_F32 ? 4 : 2; }

}  // namespace

// The entry's weights, and what kopt_w4a16_gemm stages rows through: the
// K order of an act-order import, up to kKoptBatchedMaxRows fp16 rows of x
// and fp32 rows of y; and the batched kernels' layout and workspace.
struct kopt_w4a16_weights : KoptWeights {
  int* k_order = nullptr;
  __half* x_rows = nullptr;
  float* y_rows = nullptr;
  int batched_layout = -1;  // the layout the batched kernels read the weights in; -1: none
  int batched_rows = 0;     // the largest bucket served for this shape on this device
  float* batched_ws = nullptr;
};

namespace {

// Which layout of the batched kernels (0: dot's and gen's packed layout, 1:
// the canonical blob) the entry's weights are in, decided on the bytes: the
// entry's own re-layout of `canonical` is compared with the batched kernels'
// re-layout of it. -1 when neither (rows then run one by one), or when no
// bucket serves the shape (`rows`: the largest that does, 0: none).
int batched_layout_of(const KoptKernelEntry* entry, const KoptShapeArgs& args, long long rows,
                      const unsigned char* canonical, hipStream_t stream,
                      unsigned char** expected) {
  *expected = nullptr;
  const KoptBatchedKernel* k = kopt_batched_kernel(rows, 0);
  if (!k || rows == 0) return -1;
  if (!entry->has_relayout) return 1;
  const long long N = args.N, K = args.K, G = args.G;
  const long long pairs_bytes =
      static_cast<long long>(kopt_align256_host(N * (K / 2))) + N * (K / G) * 4;
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
  const size_t q_bytes = static_cast<size_t>(args.N) * (args.K / 2),
               pairs_at = kopt_align256_host(q_bytes),
               pair_bytes = static_cast<size_t>(args.N) * (args.K / args.G) * 4;
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

}  // namespace

extern "C" {

int kopt_w4a16_create(const void* qweight, const void* scales, const void* offsets, int K, int N,
                      int G, void* stream_ptr, kopt_w4a16_weights** out) {
  if (!out || !qweight || !scales || !offsets)
    return fail(KOPT_W4A16_INVALID_ARGUMENT, "null pointer");
  *out = nullptr;
  if (K < 2 || N < 1 || K % 2 != 0 || G < 2 || G % 2 != 0 || K % G != 0)
    return fail(KOPT_W4A16_INVALID_ARGUMENT,
                "need K >= 2 even, N >= 1, G even and dividing K; got K=" + std::to_string(K) +
                    " N=" + std::to_string(N) + " G=" + std::to_string(G));
  hipStream_t stream = static_cast<hipStream_t>(stream_ptr);
  KoptShapeArgs args{K, N, G, 0, 0};
  std::string arch, kind;
  hipError_t e = kopt_query_device(&args, &arch);
  if (e != hipSuccess) return gpu_fail(e, "reading the device");
  const KoptKernelEntry* entry = kopt_choose_entry(kopt_dispatch, args, arch, &kind);
  if (!entry) return fail(KOPT_W4A16_NO_KERNEL, "no kernel supports this shape");

  // The canonical blob: qweight, scales, offsets, each 256-byte aligned.
  const size_t q_bytes = static_cast<size_t>(N) * (K / 2),
               g_bytes = static_cast<size_t>(N) * (K / G) * 2;
  const size_t scales_at = kopt_align256_host(q_bytes),
               offsets_at = scales_at + kopt_align256_host(g_bytes);
  const size_t blob_bytes = offsets_at + kopt_align256_host(g_bytes);
  unsigned char* blob = nullptr;
  if ((e = hipMalloc(reinterpret_cast<void**>(&blob), blob_bytes)) != hipSuccess)
    return gpu_fail(e, "allocating weights");
  if ((e = hipMemcpyAsync(blob, qweight, q_bytes, hipMemcpyDeviceToDevice, stream)) != hipSuccess ||
      (e = hipMemcpyAsync(blob + scales_at, scales, g_bytes, hipMemcpyDeviceToDevice, stream)) !=
          hipSuccess ||
      (e = hipMemcpyAsync(blob + offsets_at, offsets, g_bytes, hipMemcpyDeviceToDevice, stream)) !=
          hipSuccess) {
    (void)hipFree(blob);  // the first error is the one reported
    return gpu_fail(e, "copying weights");
  }
  auto* w = new kopt_w4a16_weights();
  unsigned char* expected = nullptr;
  w->batched_rows = static_cast<int>(
      std::min(kopt_batched_max_rows(K, args.G, args.warp), kopt_batched_built_rows()));
  w->batched_layout = batched_layout_of(entry, args, w->batched_rows, blob, stream, &expected);
  const char* step = "";
  if ((e = kopt_weights_init(w, entry, args, kind, blob, stream, &step)) != hipSuccess) {
    if (expected) (void)hipFree(expected);
    delete w;
    return gpu_fail(e, step);
  }
  if (expected) {
    if (!same_pairs(expected, w->weights, args, stream)) w->batched_layout = -1;
    (void)hipFree(expected);
  }
  // The staging rows, and the batched kernels' workspace for the largest
  // bucket (zeroed once: its tickets start at zero and are rearmed by every
  // call), allocated here so that calls allocate nothing (stream capture).
  const size_t rows = kKoptBatchedMaxRows;
  if ((e = hipMalloc(reinterpret_cast<void**>(&w->x_rows), sizeof(__half) * K * rows)) !=
          hipSuccess ||
      (e = hipMalloc(reinterpret_cast<void**>(&w->y_rows), sizeof(float) * N * rows)) !=
          hipSuccess) {
    kopt_w4a16_destroy(w);
    return gpu_fail(e, "allocating the staging rows");
  }
  if (w->batched_layout >= 0) {
    const KoptBatchedKernel* k = kopt_batched_kernel(w->batched_rows, w->batched_layout);
    const size_t ws = static_cast<size_t>(
        kopt_batched_launch(k->params, w->batched_rows, K, N, args.warp, args.sms).workspace_bytes);
    if ((e = hipMalloc(reinterpret_cast<void**>(&w->batched_ws), ws)) != hipSuccess ||
        (e = hipMemsetAsync(w->batched_ws, 0, ws, stream)) != hipSuccess ||
        (e = hipStreamSynchronize(stream)) != hipSuccess) {
      kopt_w4a16_destroy(w);
      return gpu_fail(e, "allocating the batched workspace");
    }
    if (w->batched_layout == 0 && kopt_xrows_kernel(2, K, args.G, args.warp))
      w->description += kopt_xrows_preferred(4, K, N) && kopt_xrows_kernel(4, K, args.G, args.warp)
                            ? " (M 2-4: xrows, M >= 5: klanes; batched)"
                            : " (M 2: xrows, M >= 3: klanes; batched)";
    else
      w->description += " (M >= " + std::to_string(kopt_batched_min_rows(K)) + ": klanes, batched)";
  }
  *out = w;
  return KOPT_W4A16_OK;
}

int kopt_w4a16_gemv(const kopt_w4a16_weights* w, const void* x, float* y, void* stream) {
  if (!w || !x || !y) return fail(KOPT_W4A16_INVALID_ARGUMENT, "null pointer");
  // Weights in another K order (GPTQ act-order) need x gathered first.
  if (w->k_order) return kopt_w4a16_gemm(w, x, KOPT_W4A16_F16, 1, y, KOPT_W4A16_F32, stream);
  const hipError_t e = kopt_weights_call(*w, x, y, stream);
  return e == hipSuccess ? KOPT_W4A16_OK : gpu_fail(e, "gemv launch");
}

int kopt_w4a16_gemm(const kopt_w4a16_weights* w, const void* x, int x_dtype, int M, void* y,
                    int y_dtype, void* stream_ptr) {
  if (!w || !x || !y) return fail(KOPT_W4A16_INVALID_ARGUMENT, "null pointer");
  if (x_dtype != KOPT_W4A16_F16 && x_dtype != KOPT_W4A16_BF16)
    return fail(KOPT_W4A16_INVALID_ARGUMENT,
                "x must be fp16 (1) or bf16 (2); got dtype " + std::to_string(x_dtype));
  if (y_dtype != KOPT_W4A16_F32 && y_dtype != KOPT_W4A16_F16 && y_dtype != KOPT_W4A16_BF16)
    return fail(KOPT_W4A16_INVALID_ARGUMENT,
                "y must be fp32 (0), fp16 (1) or bf16 (2); got dtype " + std::to_string(y_dtype));
  if (M < 1) return fail(KOPT_W4A16_INVALID_ARGUMENT, "M must be >= 1; got " + std::to_string(M));
  hipStream_t stream = static_cast<hipStream_t>(stream_ptr);
  const int K = w->args.K, N = w->args.N;
  const bool stage_x = x_dtype != KOPT_W4A16_F16 || w->k_order;
  // Blocks of rows: up to the largest bucket at once on the batched kernels
  // (the weights read once per block) where they serve this shape and the
  // block has enough rows to gain, else one row at a time on the entry. 2 to
  // 4 rows run on the register path (xrows) where it serves the shape and is
  // the faster (kopt_xrows_preferred): it reads the packed layout, with as
  // many warps a block as K needs.
  for (int m0 = 0, rows = 1; m0 < M; m0 += rows) {
    rows = M - m0 < w->batched_rows ? M - m0 : w->batched_rows;
    const KoptXrowsKernel* in_registers = w->batched_layout == 0 && rows >= 2 &&
                                                  rows <= kKoptXrowsMaxRows &&
                                                  kopt_xrows_preferred(rows, K, N)
                                              ? kopt_xrows_kernel(rows, K, w->args.G, w->args.warp)
                                              : nullptr;
    if (!in_registers && (w->batched_layout < 0 || rows < kopt_batched_min_rows(K))) rows = 1;
    const char* x_m =
        static_cast<const char*>(x) + static_cast<size_t>(m0) * K * dtype_bytes(x_dtype);
    char* y_m = static_cast<char*>(y) + static_cast<size_t>(m0) * N * dtype_bytes(y_dtype);
    const void* x_in = x_m;
    if (stage_x) {
      kopt_w4a16_stage_x<<<dim3((K + 255) / 256, rows), 256, 0, stream>>>(x_m, x_dtype, w->k_order,
                                                                          w->x_rows, K);
      x_in = w->x_rows;
    }
    float* y_out = y_dtype == KOPT_W4A16_F32 ? reinterpret_cast<float*>(y_m) : w->y_rows;
    hipError_t e = hipGetLastError();
    if (e == hipSuccess && rows == 1) {
      e = kopt_weights_call(*w, x_in, y_out, stream);
    } else if (e == hipSuccess && in_registers) {
      e = in_registers->call(rows, K, N, w->args.G, w->args.warp, w->args.sms,
                             static_cast<const __half*>(x_in), w->weights, y_out, stream);
    } else if (e == hipSuccess) {
      const KoptBatchedKernel* k = kopt_batched_kernel(rows, w->batched_layout);
      e = k->call(rows, K, N, w->args.G, w->args.warp, w->args.sms,
                  static_cast<const __half*>(x_in), w->weights, y_out, w->batched_ws, stream);
    }
    if (e == hipSuccess && y_dtype != KOPT_W4A16_F32) {
      kopt_w4a16_store_y<<<dim3((N + 255) / 256, rows), 256, 0, stream>>>(w->y_rows, y_m, y_dtype,
                                                                          N);
      e = hipGetLastError();
    }
    if (e != hipSuccess) return gpu_fail(e, "gemm launch");
  }
  return KOPT_W4A16_OK;
}

int kopt_w4a16_create_from_host(const kopt_w4a16_host_weights* h, void* stream_ptr,
                                kopt_w4a16_weights** out) {
  if (!h || !out || !h->qweight || !h->scales || !h->offsets)
    return fail(KOPT_W4A16_INVALID_ARGUMENT, "null pointer");
  *out = nullptr;
  if (h->K < 2 || h->N < 1 || h->G < 2 || h->K % 2 != 0 || h->K % h->G != 0)
    return fail(KOPT_W4A16_INVALID_ARGUMENT, "host weights with K=" + std::to_string(h->K) +
                                                 " N=" + std::to_string(h->N) +
                                                 " G=" + std::to_string(h->G) + " are not valid");
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
                          : gpu_fail(e, "uploading host weights");
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
    return gpu_fail(e, "uploading the K order");
  }
  return KOPT_W4A16_OK;
}

void kopt_w4a16_destroy(kopt_w4a16_weights* w) {
  if (!w) return;
  kopt_weights_release(w);
  for (void* p : {static_cast<void*>(w->k_order), static_cast<void*>(w->x_rows),
                  static_cast<void*>(w->y_rows), static_cast<void*>(w->batched_ws)})
    if (p) (void)hipFree(p);
  delete w;
}

int kopt_w4a16_devices(void) {
  int count = 0;
  const hipError_t e = hipGetDeviceCount(&count);
  if (e != hipSuccess) {
    (void)hipGetLastError();  // clear it: no device is an answer, not a fault
    return fail(0, std::string("no GPU: ") + hipGetErrorString(e));
  }
  return count;
}

const char* kopt_w4a16_kernel(const kopt_w4a16_weights* w) {
  return w ? w->description.c_str() : "";
}

}  // extern "C"

#endif  // KOPT_HOST_PASS
