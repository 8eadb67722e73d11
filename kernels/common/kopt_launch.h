// Shared by the generated kernel sources and every problem's library: the
// GPU runtime (kopt_gpu_runtime.h), the contract's helpers and the
// dispatch-table entry type.
#pragma once

#include "kopt_gpu_runtime.h"

// 1 in the host compilation pass, 0 in a device pass. clang's HIP device pass
// treats namespace-scope const objects with constant initialisers as device
// constants, so the dispatch entries (host function pointers) and the tables
// of them exist in the host pass only.
#if defined(__HIP_DEVICE_COMPILE__) || defined(__CUDA_ARCH__)
#define KOPT_HOST_PASS 0
#else
#define KOPT_HOST_PASS 1
#endif

// Every C name a generated entry defines (its kernels, its namespace, its
// entry) is written through KOPT_ENTRY_NAME: the name itself, or with
// KOPT_ENTRY_SUFFIX appended where the library builds the entry a second
// time, reading x and writing y in another dtype pair (kopt_entry_pair.h).
#define KOPT_ENTRY_CAT_(a, b) a##b
#define KOPT_ENTRY_CAT(a, b) KOPT_ENTRY_CAT_(a, b)
#ifdef KOPT_ENTRY_SUFFIX
#define KOPT_ENTRY_NAME(name) KOPT_ENTRY_CAT(name, KOPT_ENTRY_SUFFIX)
#else
#define KOPT_ENTRY_NAME(name) name
#endif

// The problem's shape variables, written by `kopt export` beside the entries:
// struct KoptShapeArgs (one long long per variable, then warp and sms),
// kopt_same_shape, and kopt_rule_x / kopt_rule_y (the two variables the
// generic rule measures distance in).
#include "kopt_problem.h"

// The contract's helper functions, on the host.
#include "kopt_contract_ops.h"

// In the library's own namespace (KOPT_LIBRARY_NAMESPACE, kopt_problem.h):
// each library has its own KoptShapeArgs.
inline namespace KOPT_LIBRARY_NAMESPACE {

// One kernel of the library: a tuned shape's or a generic variant's launch
// code. A call's kernels take the four role pointers (x, the weights, y, the
// workspace) and the shape's variables.
struct KoptKernelEntry {
  KoptShapeArgs shape;  // the tuned shape; all 0 for a generic variant
  const char* description;
  bool (*supported)(const KoptShapeArgs&);
  long long (*packed_bytes)(const KoptShapeArgs&);
  long long (*workspace_bytes)(const KoptShapeArgs&);
  hipError_t (*relayout)(const KoptShapeArgs&, const unsigned char* canonical,
                         unsigned char* packed, hipStream_t);
  hipError_t (*call)(const KoptShapeArgs&, const __half* x, const unsigned char* w, float* y,
                     float* ws, hipStream_t);
  bool has_relayout;
};

}  // namespace KOPT_LIBRARY_NAMESPACE
