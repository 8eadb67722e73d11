// The C API of the shipped library over the generated dispatch table.
// Compiled as CUDA (NVIDIA) or HIP (AMD); depends on the GPU runtime only.
#include "include/kopt_w4a16.h"

#include <string>

#include "kopt_generic_rule.h"
#include "kopt_launch.h"
#include "kopt_prelude.h"

// The tuned kernels, the generic variants and the rule's probe data, from
// `kopt export`.
#define KOPT_ENTRY(entry, target) extern const KoptKernelEntry entry;
#define KOPT_GENERIC(entry) extern const KoptKernelEntry entry;
#include "dispatch.inc"
KOPT_GENERIC_ENTRIES
#undef KOPT_ENTRY
#undef KOPT_GENERIC

#if KOPT_HOST_PASS
namespace {

// A tuned entry serves its exact shape on a device of its target architecture.
struct TunedEntry {
  const KoptKernelEntry* entry;
  const char* target;
};
#define KOPT_ENTRY(entry, target) {&entry, target},
#define KOPT_GENERIC(entry) &entry,
const TunedEntry kTuned[] = {
#include "dispatch.inc"
    {nullptr, nullptr}};
const KoptKernelEntry* const kGeneric[] = {KOPT_GENERIC_ENTRIES nullptr};
#undef KOPT_ENTRY
#undef KOPT_GENERIC
const KoptGenericProbe kProbes[] = {KOPT_GENERIC_PROBES{0, 0, 0, {0}}};
const int kProbeCount = static_cast<int>(sizeof kProbes / sizeof kProbes[0]) - 1;

thread_local std::string g_last_error;

int fail(int code, const std::string& message) {
  g_last_error = message;
  return code;
}

int gpu_fail(hipError_t e, const char* what) {
  return fail(KOPT_W4A16_GPU_ERROR, std::string(what) + ": " + hipGetErrorString(e));
}

size_t align256(size_t v) { return (v + 255) & ~size_t{255}; }

// The device's architecture as kopt names targets: sm_90, gfx906.
hipError_t device_arch(int device, std::string* arch) {
#if defined(__HIP_PLATFORM_AMD__)
  hipDeviceProp_t prop;
  hipError_t e = hipGetDeviceProperties(&prop, device);
  if (e != hipSuccess) return e;
  *arch = prop.gcnArchName;
  *arch = arch->substr(0, arch->find(':'));  // "gfx906:sramecc+:xnack-"
#else
  int major = 0, minor = 0;
  hipError_t e = hipDeviceGetAttribute(&major, hipDeviceAttributeComputeCapabilityMajor, device);
  if (e == hipSuccess)
    e = hipDeviceGetAttribute(&minor, hipDeviceAttributeComputeCapabilityMinor, device);
  if (e != hipSuccess) return e;
  *arch = "sm_" + std::to_string(major * 10 + minor);
#endif
  return hipSuccess;
}

// The tuned entry for this shape on this architecture, else the generic
// variant the measured rule picks, else the first generic one that runs it.
const KoptKernelEntry* choose_entry(const KoptShapeArgs& args, const std::string& arch,
                                    std::string* why) {
  for (const TunedEntry* t = kTuned; t->entry; ++t)
    if (t->entry->K == args.K && t->entry->N == args.N && t->entry->G == args.G &&
        arch == t->target && t->entry->supported(args)) {
      *why = "tuned for " + arch + ": ";
      return t->entry;
    }
  bool supported[KOPT_MAX_GENERIC_VARIANTS] = {};
  int count = 0;
  for (; kGeneric[count] && count < KOPT_MAX_GENERIC_VARIANTS; ++count)
    supported[count] = kGeneric[count]->supported(args);
  const int chosen = kopt_choose_generic(args.K, args.N, kProbes, kProbeCount, count, supported);
  if (chosen < 0) return nullptr;
  *why = kProbeCount > 0
             ? std::string("generic, by the rule measured on ") + KOPT_GENERIC_RULE_DEVICE + ": "
             : std::string("generic: ");
  return kGeneric[chosen];
}

}  // namespace

struct kopt_w4a16_weights {
  KoptShapeArgs args;
  const KoptKernelEntry* entry = nullptr;
  unsigned char* weights = nullptr;  // the canonical blob, or the re-layout's output
  float* workspace = nullptr;
  std::string description;
};

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
  int device = 0, warp = 0, sms = 0;
  hipError_t e = hipGetDevice(&device);
  if (e == hipSuccess) e = hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, device);
  if (e == hipSuccess)
    e = hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, device);
  std::string arch, kind;
  if (e == hipSuccess) e = device_arch(device, &arch);
  if (e != hipSuccess) return gpu_fail(e, "reading the device");
  KoptShapeArgs args{K, N, G, warp, sms};
  const KoptKernelEntry* entry = choose_entry(args, arch, &kind);
  if (!entry) return fail(KOPT_W4A16_NO_KERNEL, "no kernel supports this shape");

  // The canonical blob: qweight, scales, offsets, each 256-byte aligned.
  const size_t q_bytes = static_cast<size_t>(N) * (K / 2),
               g_bytes = static_cast<size_t>(N) * (K / G) * 2;
  const size_t scales_at = align256(q_bytes), offsets_at = scales_at + align256(g_bytes);
  const size_t blob_bytes = offsets_at + align256(g_bytes);
  auto* w = new kopt_w4a16_weights();
  w->args = args;
  w->entry = entry;
  w->description = kind + entry->description;
  unsigned char* blob = nullptr;
  auto cleanup = [&](int code) {
    if (blob && blob != w->weights)
      (void)hipFree(blob);  // cleanup: the first error is the one reported
    kopt_w4a16_destroy(w);
    return code;
  };
  if ((e = hipMalloc(reinterpret_cast<void**>(&blob), blob_bytes)) != hipSuccess)
    return cleanup(gpu_fail(e, "allocating weights"));
  if ((e = hipMemcpyAsync(blob, qweight, q_bytes, hipMemcpyDeviceToDevice, stream)) != hipSuccess ||
      (e = hipMemcpyAsync(blob + scales_at, scales, g_bytes, hipMemcpyDeviceToDevice, stream)) !=
          hipSuccess ||
      (e = hipMemcpyAsync(blob + offsets_at, offsets, g_bytes, hipMemcpyDeviceToDevice, stream)) !=
          hipSuccess)
    return cleanup(gpu_fail(e, "copying weights"));
  if (entry->has_relayout) {
    const long long packed = entry->packed_bytes(args);
    if ((e = hipMalloc(reinterpret_cast<void**>(&w->weights), static_cast<size_t>(packed))) !=
        hipSuccess)
      return cleanup(gpu_fail(e, "allocating re-laid-out weights"));
    if ((e = entry->relayout(args, blob, w->weights, stream)) != hipSuccess)
      return cleanup(gpu_fail(e, "re-layout"));
    if ((e = hipStreamSynchronize(stream)) != hipSuccess) return cleanup(gpu_fail(e, "re-layout"));
    (void)hipFree(blob);
    blob = nullptr;
  } else {
    w->weights = blob;
  }
  // Workspace persists between calls and is zeroed once, as the contract says.
  const size_t ws_bytes = static_cast<size_t>(entry->workspace_bytes(args)) + 256;
  if ((e = hipMalloc(reinterpret_cast<void**>(&w->workspace), ws_bytes)) != hipSuccess ||
      (e = hipMemsetAsync(w->workspace, 0, ws_bytes, stream)) != hipSuccess ||
      (e = hipStreamSynchronize(stream)) != hipSuccess)
    return cleanup(gpu_fail(e, "allocating the workspace"));
  *out = w;
  return KOPT_W4A16_OK;
}

int kopt_w4a16_gemv(const kopt_w4a16_weights* w, const void* x, float* y, void* stream) {
  if (!w || !x || !y) return fail(KOPT_W4A16_INVALID_ARGUMENT, "null pointer");
  hipError_t e = w->entry->gemv(w->args, static_cast<const __half*>(x), w->weights, y, w->workspace,
                                static_cast<hipStream_t>(stream));
  return e == hipSuccess ? KOPT_W4A16_OK : gpu_fail(e, "gemv launch");
}

void kopt_w4a16_destroy(kopt_w4a16_weights* w) {
  if (!w) return;
  if (w->weights) (void)hipFree(w->weights);
  if (w->workspace) (void)hipFree(w->workspace);
  delete w;
}

const char* kopt_w4a16_kernel(const kopt_w4a16_weights* w) {
  return w ? w->description.c_str() : "";
}

const char* kopt_w4a16_last_error(void) { return g_last_error.c_str(); }

}  // extern "C"

#endif  // KOPT_HOST_PASS
