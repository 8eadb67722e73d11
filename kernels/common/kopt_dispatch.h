// The host side every problem's library shares (ggml-style dispatch): the
// device's architecture, the choice of a kernel for (architecture, shape)
// from the generated tables, and the load-time preparation of weights (the
// entry's re-layout, the zeroed workspace). Each library's C API (e.g.
// the generated kopt_<lib>_api.cpp) builds its tables from its dispatch.inc with
// kopt_dispatch_tables.inc and calls these.
// Host pass only.
#pragma once

#include <string>

#include "kopt_generic_rule.h"
#include "kopt_launch.h"

#if KOPT_HOST_PASS
// In the library's own namespace (kopt_launch.h says why).
inline namespace KOPT_LIBRARY_NAMESPACE {

// The canonical weight blobs put each array on a 256-byte boundary (as the
// problems' layouts and the kernels' kopt_align256 do).
inline size_t kopt_align256_host(size_t v) { return (v + 255) & ~size_t{255}; }

// A tuned entry serves its exact shape on a device of its target architecture.
struct KoptTunedEntry {
  const KoptKernelEntry* entry;
  const char* target;
};

// An entry the library built again for the other dtype pairs of the C API
// (kKoptNativeIo, kopt_library.h; kopt_entry_pair.h): pairs[i] reads x and
// writes y in pair i, pairs[0] the entry itself.
struct KoptEntryPairs {
  const KoptKernelEntry* entry;
  const KoptKernelEntry* pairs[3];
};

// The generated tables of one library.
struct KoptDispatchTables {
  const KoptTunedEntry* tuned;            // ends with {nullptr, nullptr}
  const KoptKernelEntry* const* generic;  // ends with nullptr
  const KoptGenericProbe* probes;
  int probe_count;
  const char* rule_device;            // where the probes were measured ("" when none)
  const KoptEntryPairs* entry_pairs;  // ends with {nullptr, {}}
};

// The builds of `entry` for every dtype pair; nullptr where the library has
// none.
inline const KoptKernelEntry* const* kopt_entry_pairs(const KoptDispatchTables& t,
                                                      const KoptKernelEntry* entry) {
  for (const KoptEntryPairs* p = t.entry_pairs; p && p->entry; ++p)
    if (p->entry == entry) return p->pairs;
  return nullptr;
}

// The device's architecture as kopt names targets: sm_90, gfx906.
inline hipError_t kopt_device_arch(int device, std::string* arch) {
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

// The current device's warp size and multiprocessors into `args`, and its
// architecture.
inline hipError_t kopt_query_device(KoptShapeArgs* args, std::string* arch) {
  int device = 0, warp = 0, sms = 0;
  hipError_t e = hipGetDevice(&device);
  if (e == hipSuccess) e = hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, device);
  if (e == hipSuccess)
    e = hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, device);
  if (e == hipSuccess) e = kopt_device_arch(device, arch);
  args->warp = warp;
  args->sms = sms;
  return e;
}

// The tuned entry for this shape on this architecture, else the generic
// variant the measured rule picks, else the first generic one that runs it;
// nullptr when none runs it. `why` says which.
inline const KoptKernelEntry* kopt_choose_entry(const KoptDispatchTables& t,
                                                const KoptShapeArgs& args, const std::string& arch,
                                                std::string* why) {
  for (const KoptTunedEntry* e = t.tuned; e->entry; ++e)
    if (kopt_same_shape(e->entry->shape, args) && arch == e->target && e->entry->supported(args)) {
      *why = "tuned for " + arch + ": ";
      return e->entry;
    }
  bool supported[KOPT_MAX_GENERIC_VARIANTS] = {};
  int count = 0;
  for (; t.generic[count] && count < KOPT_MAX_GENERIC_VARIANTS; ++count)
    supported[count] = t.generic[count]->supported(args);
  const int chosen = kopt_choose_generic(kopt_rule_x(args), kopt_rule_y(args), t.probes,
                                         t.probe_count, count, supported);
  if (chosen < 0) return nullptr;
  *why = t.probe_count > 0 ? std::string("generic, by the rule measured on ") + t.rule_device + ": "
                           : std::string("generic: ");
  return t.generic[chosen];
}

// Weights ready for calls: the entry's own layout and its workspace.
struct KoptPreparedWeights {
  unsigned char* weights = nullptr;
  float* workspace = nullptr;
};

// From the canonical weights in device memory (`canonical`, which this takes
// over: it becomes the weights or is freed): the entry's load-time re-layout
// when it has one, then the workspace, zeroed once as the contract says.
// Synchronises `stream`. On failure everything is freed and `what` says
// which step failed.
inline hipError_t kopt_prepare_weights(const KoptKernelEntry* entry, const KoptShapeArgs& args,
                                       unsigned char* canonical, hipStream_t stream,
                                       KoptPreparedWeights* out, const char** what) {
  KoptPreparedWeights w;
  hipError_t e = hipSuccess;
  auto failed = [&](const char* step) {
    *what = step;
    if (w.weights && w.weights != canonical) (void)hipFree(w.weights);
    if (canonical) (void)hipFree(canonical);
    if (w.workspace) (void)hipFree(w.workspace);
    return e;
  };
  if (entry->has_relayout) {
    const long long packed = entry->packed_bytes(args);
    if ((e = hipMalloc(reinterpret_cast<void**>(&w.weights), static_cast<size_t>(packed))) !=
        hipSuccess)
      return failed("allocating re-laid-out weights");
    if ((e = entry->relayout(args, canonical, w.weights, stream)) != hipSuccess ||
        (e = hipStreamSynchronize(stream)) != hipSuccess)
      return failed("re-layout");
    (void)hipFree(canonical);
    canonical = nullptr;
  } else {
    w.weights = canonical;
    canonical = nullptr;
  }
  const size_t ws_bytes = static_cast<size_t>(entry->workspace_bytes(args)) + 256;
  if ((e = hipMalloc(reinterpret_cast<void**>(&w.workspace), ws_bytes)) != hipSuccess ||
      (e = hipMemsetAsync(w.workspace, 0, ws_bytes, stream)) != hipSuccess ||
      (e = hipStreamSynchronize(stream)) != hipSuccess)
    return failed("allocating the workspace");
  *out = w;
  return hipSuccess;
}

// The state behind every library's weights handle (kopt_w4a16_weights,
// kopt_w8a16_weights derive from it): the shape, its entry, the entry's
// weights and workspace, and which kernel serves them.
struct KoptWeights {
  KoptShapeArgs args{};
  const KoptKernelEntry* entry = nullptr;
  // The entry's builds for every dtype pair (KoptEntryPairs::pairs); nullptr
  // where it has none.
  const KoptKernelEntry* const* entry_pairs = nullptr;
  unsigned char* weights = nullptr;  // the canonical blob, or the re-layout's output
  float* workspace = nullptr;
  std::string description;
};

// Fills `w` for `entry` from the canonical weights in device memory, which it
// takes over (kopt_prepare_weights); `why` says how the entry was chosen.
inline hipError_t kopt_weights_init(KoptWeights* w, const KoptKernelEntry* entry,
                                    const KoptShapeArgs& args, const std::string& why,
                                    unsigned char* canonical, hipStream_t stream,
                                    const char** what) {
  KoptPreparedWeights prepared;
  const hipError_t e = kopt_prepare_weights(entry, args, canonical, stream, &prepared, what);
  if (e != hipSuccess) return e;
  w->args = args;
  w->entry = entry;
  w->description = why + entry->description;
  w->weights = prepared.weights;
  w->workspace = prepared.workspace;
  return hipSuccess;
}

// One call on `stream` (asynchronous): the entry's (fp16 x, fp32 y), or
// with `pair` > 0 its build for that dtype pair (w.entry_pairs; y then in
// the pair's dtype).
inline hipError_t kopt_weights_call(const KoptWeights& w, const void* x, void* y, void* stream,
                                    int pair = 0) {
  const KoptKernelEntry* build = pair == 0 ? w.entry : w.entry_pairs[pair];
  return build->call(w.args, static_cast<const __half*>(x), w.weights, static_cast<float*>(y),
                     w.workspace, static_cast<hipStream_t>(stream));
}

// Frees what kopt_weights_init allocated (not `w` itself).
inline void kopt_weights_release(KoptWeights* w) {
  if (w->weights) (void)hipFree(w->weights);
  if (w->workspace) (void)hipFree(w->workspace);
  w->weights = nullptr;
  w->workspace = nullptr;
}

}  // namespace KOPT_LIBRARY_NAMESPACE
#endif  // KOPT_HOST_PASS
