// The C API of the W8A16 library over its generated dispatch table (the
// shared dispatch is kernels/common/kopt_dispatch.h). Compiled as CUDA (NVIDIA) or
// HIP (AMD); depends on the GPU runtime only.
#include "include/kopt_w8a16.h"

#include <string>

#include "kopt_dispatch.h"
#include "kopt_prelude.h"

// The tuned kernels, the generic variants and the rule's probe data, from
// `kopt export --problem w8a16_gemv` (generated/dispatch.inc): kopt_dispatch.
#include "kopt_dispatch_tables.inc"

#if KOPT_HOST_PASS
namespace {

thread_local std::string g_last_error;

int fail(int code, const std::string& message) {
  g_last_error = message;
  return code;
}

int gpu_fail(hipError_t e, const char* what) {
  return fail(KOPT_W8A16_GPU_ERROR, std::string(what) + ": " + hipGetErrorString(e));
}

}  // namespace

struct kopt_w8a16_weights : KoptWeights {};

extern "C" {

int kopt_w8a16_create(const void* qweight, const void* scales, int K, int N, void* stream_ptr,
                      kopt_w8a16_weights** out) {
  if (!out || !qweight || !scales) return fail(KOPT_W8A16_INVALID_ARGUMENT, "null pointer");
  *out = nullptr;
  if (K < 1 || N < 1)
    return fail(KOPT_W8A16_INVALID_ARGUMENT,
                "need K >= 1 and N >= 1; got K=" + std::to_string(K) + " N=" + std::to_string(N));
  hipStream_t stream = static_cast<hipStream_t>(stream_ptr);
  KoptShapeArgs args{K, N, 0, 0};
  std::string arch, kind;
  hipError_t e = kopt_query_device(&args, &arch);
  if (e != hipSuccess) return gpu_fail(e, "reading the device");
  const KoptKernelEntry* entry = kopt_choose_entry(kopt_dispatch, args, arch, &kind);
  if (!entry) return fail(KOPT_W8A16_NO_KERNEL, "no kernel supports this shape");

  // The canonical blob: int8 q [N][K], then fp16 scales [N] 256-byte aligned.
  const size_t q_bytes = static_cast<size_t>(N) * K, scales_at = kopt_align256_host(q_bytes);
  const size_t blob_bytes = scales_at + kopt_align256_host(static_cast<size_t>(N) * 2);
  unsigned char* blob = nullptr;
  if ((e = hipMalloc(reinterpret_cast<void**>(&blob), blob_bytes)) != hipSuccess)
    return gpu_fail(e, "allocating weights");
  if ((e = hipMemcpyAsync(blob, qweight, q_bytes, hipMemcpyDeviceToDevice, stream)) != hipSuccess ||
      (e = hipMemcpyAsync(blob + scales_at, scales, static_cast<size_t>(N) * 2,
                          hipMemcpyDeviceToDevice, stream)) != hipSuccess) {
    (void)hipFree(blob);  // the first error is the one reported
    return gpu_fail(e, "copying weights");
  }
  auto* w = new kopt_w8a16_weights();
  const char* step = "";
  if ((e = kopt_weights_init(w, entry, args, kind, blob, stream, &step)) != hipSuccess) {
    delete w;
    return gpu_fail(e, step);
  }
  *out = w;
  return KOPT_W8A16_OK;
}

int kopt_w8a16_gemv(const kopt_w8a16_weights* w, const void* x, float* y, void* stream) {
  if (!w || !x || !y) return fail(KOPT_W8A16_INVALID_ARGUMENT, "null pointer");
  const hipError_t e = kopt_weights_call(*w, x, y, stream);
  return e == hipSuccess ? KOPT_W8A16_OK : gpu_fail(e, "gemv launch");
}

void kopt_w8a16_destroy(kopt_w8a16_weights* w) {
  if (!w) return;
  kopt_weights_release(w);
  delete w;
}

const char* kopt_w8a16_kernel(const kopt_w8a16_weights* w) {
  return w ? w->description.c_str() : "";
}

const char* kopt_w8a16_last_error(void) { return g_last_error.c_str(); }

}  // extern "C"

#endif  // KOPT_HOST_PASS
