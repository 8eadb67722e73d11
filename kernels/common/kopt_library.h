// The C API every problem's library shares, written once: create, gemv,
// gemm (M rows, fp16 or bf16 x, fp32, fp16 or bf16 y), destroy and devices
// over the generated dispatch tables. Each library's extern "C" functions are
// generated at build time (kernels/common/template, cmake/KoptLibrary.cmake)
// from its problem's description and call these. A library with kernels of
// its own beside the dispatch table (kopt_w4a16's batched kernels) passes
// them as its Extension; KoptNoExtension says what an extension provides.
// Included by the C API source of each library (and its extension).
#pragma once

#include <cstdint>
#include <string>

#include "kopt_dispatch.h"

// The codes and element types every library's header names with its own
// prefix (KOPT_W4A16_OK, KOPT_W4A16_F16, ...); the generated C API checks
// that they agree.
constexpr int kKoptOk = 0, kKoptInvalidArgument = 1, kKoptNoKernel = 2, kKoptGpuError = 3;
constexpr int kKoptF32 = 0, kKoptF16 = 1, kKoptBf16 = 2;

// The (x, y) dtype pairs a library's own batched kernels are built for, each
// a kernel of its own: the problems' fp16 x and fp32 y, and the pairs
// engines run models in, so their calls launch no conversion kernels around
// the batched one (an extension's `native`).
struct KoptNativeIo {
  int x, y;
};
constexpr KoptNativeIo kKoptNativeIo[] = {
    {kKoptF16, kKoptF32}, {kKoptF16, kKoptF16}, {kKoptBf16, kKoptBf16}};
#if KOPT_HOST_PASS
static_assert(sizeof kKoptNativeIo / sizeof kKoptNativeIo[0] ==
                  sizeof KoptEntryPairs::pairs / sizeof KoptEntryPairs::pairs[0],
              "an entry's builds are one per pair of kKoptNativeIo");
#endif
// The index of x_dtype and y_dtype in kKoptNativeIo; -1 for a pair not built.
constexpr int kopt_native_io(int x_dtype, int y_dtype) {
  int i = 0;
  for (const KoptNativeIo& io : kKoptNativeIo) {
    if (io.x == x_dtype && io.y == y_dtype) return i;
    ++i;
  }
  return -1;
}

// The kernels of the C API (device and host pass alike).
namespace {  // each including source its own copy (unused but in the C API)

// Row blockIdx.y of x (row stride K) in the weights' K order, as fp16, or in
// its own dtype where `keep` (a gather for kernels that read it). bf16 to
// fp16 is converted by its bits (the upper half of an fp32), the same on
// both platforms, and saturated to fp16's range rather than turned into inf.
[[maybe_unused]] __global__ void kopt_library_stage_x(const void* x, int dtype, bool keep,
                                                      const int* order, void* out, int K) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= K) return;
  const size_t row = static_cast<size_t>(blockIdx.y) * K;
  const int k = order ? order[j] : j;
  const unsigned short bits = static_cast<const unsigned short*>(x)[row + k];
  if (dtype == kKoptBf16 && !keep) {
    const float v = __uint_as_float(static_cast<unsigned>(bits) << 16);
    static_cast<__half*>(out)[row + j] = __float2half(fminf(fmaxf(v, -65504.f), 65504.f));
  } else {
    static_cast<unsigned short*>(out)[row + j] = bits;
  }
}

// v as the bits of an fp16 or a bf16 (nearest even; NaN stays NaN; bf16 by
// its bits, the same on both platforms).
[[maybe_unused]] __device__ unsigned short kopt_library_half_bits(float v, int dtype) {
  if (dtype != kKoptBf16) return __half_as_ushort(__float2half(v));
  const unsigned u = __float_as_uint(v);
  return (u & 0x7FFFFFFFu) > 0x7F800000u
             ? static_cast<unsigned short>((u >> 16) | 0x40)
             : static_cast<unsigned short>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

// lo and hi as two fp16 or two bf16 in a word (lo in the low half), to
// nearest even. NVIDIA rounds both in one instruction (bf16's NaN then comes
// out as its canonical NaN); elsewhere as kopt_library_half_bits.
[[maybe_unused]] __device__ unsigned kopt_library_half2_bits(float lo, float hi, int dtype) {
  unsigned bits;
#if defined(__HIP_PLATFORM_AMD__)
  bits = kopt_library_half_bits(lo, dtype) |
         static_cast<unsigned>(kopt_library_half_bits(hi, dtype)) << 16;
#else
  if (dtype == kKoptBf16) {
    const __nv_bfloat162 pair = __floats2bfloat162_rn(lo, hi);
    __builtin_memcpy(&bits, &pair, sizeof bits);
  } else {
    const __half2 pair = __floats2half2_rn(lo, hi);
    __builtin_memcpy(&bits, &pair, sizeof bits);
  }
#endif
  return bits;
}

// A word of two fp16 or two bf16 (lo in the low half) as floats: kernels
// that read x in the caller's dtype.
[[maybe_unused]] __device__ float2 kopt_library_x_pair(__half2 pair, int dtype) {
  if (dtype != kKoptBf16) return __half22float2(pair);
  unsigned bits;
  __builtin_memcpy(&bits, &pair, sizeof bits);
  return make_float2(__uint_as_float(bits << 16), __uint_as_float(bits & 0xFFFF0000u));
}

// y[at] = v in fp32, fp16 or bf16: kernels that write y in the caller's
// dtype (y then points at 16-bit elements).
[[maybe_unused]] __device__ void kopt_library_store(float* y, size_t at, float v, int dtype) {
  if (dtype == kKoptF32)
    y[at] = v;
  else
    reinterpret_cast<unsigned short*>(y)[at] = kopt_library_half_bits(v, dtype);
}

// Row blockIdx.y of the fp32 y (row stride N) into fp16 or bf16.
[[maybe_unused]] __global__ void kopt_library_store_y(const float* y32, void* y, int dtype, int N) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= N) return;
  const size_t i = static_cast<size_t>(blockIdx.y) * N + n;
  kopt_library_store(static_cast<float*>(y), i, y32[i], dtype);
}

}  // namespace

#if KOPT_HOST_PASS
// In the library's own namespace (kopt_launch.h says why).
inline namespace KOPT_LIBRARY_NAMESPACE {

// A call's outcome: a code of the C API and, when it failed, why.
struct KoptResult {
  int code = kKoptOk;
  std::string message;
};

inline KoptResult kopt_invalid_argument(const std::string& message) {
  return {kKoptInvalidArgument, message};
}
inline KoptResult kopt_gpu_error(hipError_t e, const std::string& what) {
  return {kKoptGpuError, what + ": " + hipGetErrorString(e)};
}

// What a library without kernels of its own beside the dispatch table does
// at each hook: nothing, and every row runs on the dispatch table's entry.
struct KoptNoExtension {
  // The most rows one call of the extension takes (the staging buffers hold
  // as many).
  static constexpr int kMaxRows = 1;
  // Before the entry's re-layout takes over the canonical weights.
  hipError_t before_init(const KoptKernelEntry*, const KoptShapeArgs&, const unsigned char*,
                         hipStream_t) {
    return hipSuccess;
  }
  // After: the prepared weights are in `w`; may add to its description.
  hipError_t after_init(KoptWeights&, hipStream_t, const char**) { return hipSuccess; }
  // How many of `remaining` rows (>= 1) of a call with these dtypes the next
  // block runs on the extension; 0: one row on the entry.
  int block_rows(const KoptWeights&, int, int /*x_dtype*/, int /*y_dtype*/) const { return 0; }
  // Whether `call` reads x in x_dtype and writes y in y_dtype itself;
  // otherwise it gets x in fp16 and writes fp32 y, and the C API converts
  // around it. Either way x comes in the weights' K order.
  bool native(int, int) const { return false; }
  // `rows` rows of x into y, in dtypes `native` admits or fp16 and fp32.
  hipError_t call(const KoptWeights&, int, const void*, int, void*, int, hipStream_t) const {
    return hipErrorInvalidValue;
  }
  void release() {}
};

// The state behind a library's weights handle: the entry's (KoptWeights),
// the K order of an import that reorders K (GPTQ act-order; x is gathered
// so), the staging rows of kopt_library_gemm, and the extension's own.
template <class Extension>
struct KoptLibraryWeights : KoptWeights {
  int* k_order = nullptr;
  __half* x_rows = nullptr;  // x staged: fp16, or a gather's bf16 bits
  float* y_rows = nullptr;
  Extension extension;
};

// Frees what kopt_library_create allocated (not `w` itself).
template <class Extension>
void kopt_library_release(KoptLibraryWeights<Extension>* w) {
  kopt_weights_release(w);
  w->extension.release();
  for (void* p : {static_cast<void*>(w->k_order), static_cast<void*>(w->x_rows),
                  static_cast<void*>(w->y_rows)})
    if (p) (void)hipFree(p);
  w->k_order = nullptr;
  w->x_rows = nullptr;
  w->y_rows = nullptr;
}

// Fills `w` for the shape `args` from the canonical arrays in device memory
// (`arrays`, kKoptWeightArrays of them, in the blob's order): the kernel for
// this shape on this device, the canonical blob, the entry's re-layout, the
// extension's preparation and the staging rows. On failure the caller
// releases `w` (kopt_library_release).
template <class Extension>
KoptResult kopt_library_create(const KoptDispatchTables& tables, const void* const* arrays,
                               KoptShapeArgs args, hipStream_t stream,
                               KoptLibraryWeights<Extension>* w) {
  for (int i = 0; i < kKoptWeightArrays; ++i)
    if (!arrays[i]) return kopt_invalid_argument("null pointer");
  if (!kopt_valid_shape(args))
    return kopt_invalid_argument(std::string("need ") + kKoptValidShapeText + "; got " +
                                 kopt_shape_text(args));
  std::string arch, why;
  hipError_t e = kopt_query_device(&args, &arch);
  if (e != hipSuccess) return kopt_gpu_error(e, "reading the device");
  const KoptKernelEntry* entry = kopt_choose_entry(tables, args, arch, &why);
  if (!entry) return {kKoptNoKernel, "no kernel supports this shape"};

  // The canonical blob: the arrays one after another, each 256-byte aligned.
  size_t blob_bytes = 0;
  for (int i = 0; i < kKoptWeightArrays; ++i)
    blob_bytes += kopt_align256_host(static_cast<size_t>(kopt_weight_array_bytes(args, i)));
  unsigned char* blob = nullptr;
  if ((e = hipMalloc(reinterpret_cast<void**>(&blob), blob_bytes)) != hipSuccess)
    return kopt_gpu_error(e, "allocating weights");
  for (size_t i = 0, at = 0; i < static_cast<size_t>(kKoptWeightArrays) && e == hipSuccess; ++i) {
    const size_t bytes = static_cast<size_t>(kopt_weight_array_bytes(args, static_cast<int>(i)));
    e = hipMemcpyAsync(blob + at, arrays[i], bytes, hipMemcpyDeviceToDevice, stream);
    at += kopt_align256_host(bytes);
  }
  if (e != hipSuccess) {
    (void)hipFree(blob);  // the first error is the one reported
    return kopt_gpu_error(e, "copying weights");
  }
  if ((e = w->extension.before_init(entry, args, blob, stream)) != hipSuccess) {
    (void)hipFree(blob);
    return kopt_gpu_error(e, "preparing the extension's kernels");
  }
  const char* step = "";
  if ((e = kopt_weights_init(w, entry, args, why, blob, stream, &step)) != hipSuccess)
    return kopt_gpu_error(e, step);
  w->entry_pairs = kopt_entry_pairs(tables, entry);
  if (w->entry_pairs) w->description += " (one fp16-fp16 or bf16-bf16 row: its own builds)";
  if ((e = w->extension.after_init(*w, stream, &step)) != hipSuccess)
    return kopt_gpu_error(e, step);
  // The staging rows, allocated here so that calls allocate nothing (stream
  // capture).
  const size_t rows = Extension::kMaxRows;
  if ((e = hipMalloc(reinterpret_cast<void**>(&w->x_rows), sizeof(__half) * args.K * rows)) !=
          hipSuccess ||
      (e = hipMalloc(reinterpret_cast<void**>(&w->y_rows), sizeof(float) * args.N * rows)) !=
          hipSuccess)
    return kopt_gpu_error(e, "allocating the staging rows");
  return {};
}

// Whether x and y start where the kernels can read and write them: x on a
// 16-byte boundary where K is a multiple of 8 (the kernels for such K read x
// 16 bytes at a time, and a misaligned read would be a fault that ends the
// process's GPU context, not an error code; the kernels for other K read it
// by element), y on its element's.
inline KoptResult kopt_library_check_alignment(long long K, const void* x, const void* y,
                                               int y_dtype) {
  const auto misaligned = [](const void* p, uintptr_t bytes) {
    return reinterpret_cast<uintptr_t>(p) % bytes != 0;
  };
  if (misaligned(x, K % 8 == 0 ? 16 : 2))
    return kopt_invalid_argument(
        "x must start on a 16-byte boundary (2 where K is not a multiple of 8); got address " +
        std::to_string(reinterpret_cast<uintptr_t>(x)));
  if (misaligned(y, y_dtype == kKoptF32 ? 4 : 2))
    return kopt_invalid_argument("y must start on a boundary of its element size; got address " +
                                 std::to_string(reinterpret_cast<uintptr_t>(y)));
  return {};
}

// A dequantiser's arguments (every library's <name>_dequantize): the weights
// and out given, out fp16 or bf16 and on a 16-byte boundary (its kernels
// store 16 bytes at a time).
inline KoptResult kopt_library_check_dequantize(const void* weights, const void* out, int dtype) {
  if (!weights || !out) return kopt_invalid_argument("null pointer");
  if (dtype != kKoptF16 && dtype != kKoptBf16)
    return kopt_invalid_argument("out must be fp16 (1) or bf16 (2); got dtype " +
                                 std::to_string(dtype));
  if (reinterpret_cast<uintptr_t>(out) % 16 != 0)
    return kopt_invalid_argument("out must be 16-byte aligned");
  return {};
}

// y[m] = x[m] · W for the M rows of x (row stride K) into y (row stride N),
// on `stream`: blocks of rows on the extension where it takes them, else one
// row at a time on the entry. x and y go to the extension's kernels in their
// own dtypes where it reads and writes those itself (x gathered first where
// the weights are in another K order); otherwise x is converted to fp16 in
// the weights' K order and y from fp32 through the staging rows where the
// dtypes or the K order ask for it.
template <class Extension>
KoptResult kopt_library_gemm(const KoptLibraryWeights<Extension>& w, const void* x, int x_dtype,
                             int M, void* y, int y_dtype, hipStream_t stream) {
  if (x_dtype != kKoptF16 && x_dtype != kKoptBf16)
    return kopt_invalid_argument("x must be fp16 (1) or bf16 (2); got dtype " +
                                 std::to_string(x_dtype));
  if (y_dtype != kKoptF32 && y_dtype != kKoptF16 && y_dtype != kKoptBf16)
    return kopt_invalid_argument("y must be fp32 (0), fp16 (1) or bf16 (2); got dtype " +
                                 std::to_string(y_dtype));
  if (M < 1) return kopt_invalid_argument("M must be >= 1; got " + std::to_string(M));
  if (KoptResult r = kopt_library_check_alignment(w.args.K, x, y, y_dtype); r.code != kKoptOk)
    return r;
  const int K = static_cast<int>(w.args.K), N = static_cast<int>(w.args.N);
  const size_t x_bytes = 2, y_bytes = y_dtype == kKoptF32 ? 4 : 2;
  // A single row runs on the entry's build for the call's dtypes where it has
  // one (x in the weights' K order): the entry's own kernel, no conversions.
  const int pair = kopt_native_io(x_dtype, y_dtype);
  const bool own_pair = w.entry_pairs && pair >= 0 && !w.k_order;
  for (int m0 = 0, rows = 1; m0 < M; m0 += rows) {
    const int block = w.extension.block_rows(w, M - m0, x_dtype, y_dtype);
    rows = block > 0 ? block : 1;
    const char* x_m = static_cast<const char*>(x) + static_cast<size_t>(m0) * K * x_bytes;
    char* y_m = static_cast<char*>(y) + static_cast<size_t>(m0) * N * y_bytes;
    if (rows == 1 && own_pair) {
      const hipError_t e = kopt_weights_call(w, x_m, y_m, stream, pair);
      if (e != hipSuccess) return kopt_gpu_error(e, "gemm launch");
      continue;
    }
    const bool native = block > 0 && w.extension.native(x_dtype, y_dtype);
    const bool stage_x = w.k_order || (!native && x_dtype != kKoptF16);
    const bool convert_y = !native && y_dtype != kKoptF32;
    const void* x_in = x_m;
    if (stage_x) {
      kopt_library_stage_x<<<dim3((K + 255) / 256, rows), 256, 0, stream>>>(x_m, x_dtype, native,
                                                                            w.k_order, w.x_rows, K);
      x_in = w.x_rows;
    }
    void* y_out = convert_y ? static_cast<void*>(w.y_rows) : y_m;
    hipError_t e = hipGetLastError();
    if (e == hipSuccess)
      e = block > 0 ? w.extension.call(w, rows, x_in, native ? x_dtype : kKoptF16, y_out,
                                       native ? y_dtype : kKoptF32, stream)
                    : kopt_weights_call(w, x_in, y_out, stream);
    if (e == hipSuccess && convert_y) {
      kopt_library_store_y<<<dim3((N + 255) / 256, rows), 256, 0, stream>>>(w.y_rows, y_m, y_dtype,
                                                                            N);
      e = hipGetLastError();
    }
    if (e != hipSuccess) return kopt_gpu_error(e, "gemm launch");
  }
  return {};
}

// y = x · W for one fp16 row into fp32, on `stream`.
template <class Extension>
KoptResult kopt_library_gemv(const KoptLibraryWeights<Extension>* w, const void* x, float* y,
                             hipStream_t stream) {
  if (!w || !x || !y) return kopt_invalid_argument("null pointer");
  if (KoptResult r = kopt_library_check_alignment(w->args.K, x, y, kKoptF32); r.code != kKoptOk)
    return r;
  // Weights in another K order need x gathered first.
  if (w->k_order) return kopt_library_gemm(*w, x, kKoptF16, 1, y, kKoptF32, stream);
  const hipError_t e = kopt_weights_call(*w, x, y, stream);
  return e == hipSuccess ? KoptResult{} : kopt_gpu_error(e, "gemv launch");
}

// The GPUs the library sees; 0 without a GPU or a driver, with the reason.
inline int kopt_library_devices(std::string* why) {
  int count = 0;
  const hipError_t e = hipGetDeviceCount(&count);
  if (e != hipSuccess) {
    (void)hipGetLastError();  // clear it: no device is an answer, not a fault
    *why = std::string("no GPU: ") + hipGetErrorString(e);
    return 0;
  }
  return count;
}

}  // namespace KOPT_LIBRARY_NAMESPACE
#endif  // KOPT_HOST_PASS
