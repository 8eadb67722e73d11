// kopt_w8a16_dequantize (include/kopt_w8a16_extras.h): the canonical int8
// weights as fp16 or bf16 on the GPU. Compiled as CUDA (NVIDIA) or HIP
// (AMD); depends on the GPU runtime only.
#include <algorithm>
#include <cstdint>
#include <string>

#include "kopt_w8a16_internal.h"

// One thread eight weights k .. k + 7 of the rows n = blockIdx.y,
// + gridDim.y, ...: w = s·q in fp32, rounded once into out [N][K]. Where K
// is a multiple of 8 the eight are one 8-byte load and one 16-byte store (a
// warp's 512 contiguous bytes of out; one weight at a time took 103 us for
// 4096x14336 on an H200, 1.7 TB/s); otherwise one at a time, the row's last
// thread stopping at K.
__global__ void kopt_w8a16_dequantize_kernel(const signed char* q, const __half* scales, void* out,
                                             int dtype, int K, int N) {
  const int k = (blockIdx.x * blockDim.x + threadIdx.x) * 8;
  if (k >= K) return;
  auto* to = static_cast<unsigned short*>(out);
  for (int n = blockIdx.y; n < N; n += gridDim.y) {
    const size_t at = static_cast<size_t>(n) * K + k;
    const float s = __half2float(scales[n]);
    if (K % 8 == 0) {
      const uint2 bytes = *reinterpret_cast<const uint2*>(q + at);
      auto weight = [&](int e) {  // k + e: byte e % 4 of word e / 4, signed
        const unsigned word = e < 4 ? bytes.x : bytes.y;
        return s * static_cast<float>(static_cast<signed char>(word >> (8 * (e % 4))));
      };
      unsigned pairs[4];
#pragma unroll
      for (int p = 0; p < 4; ++p)
        pairs[p] = kopt_library_half2_bits(weight(2 * p), weight(2 * p + 1), dtype);
      *reinterpret_cast<uint4*>(to + at) = make_uint4(pairs[0], pairs[1], pairs[2], pairs[3]);
      continue;
    }
    for (int e = 0; e < 8 && k + e < K; ++e)
      to[at + e] = static_cast<unsigned short>(
          kopt_library_half2_bits(s * static_cast<float>(q[at + e]), 0.f, dtype));
  }
}

#if KOPT_HOST_PASS
extern "C" {

int kopt_w8a16_dequantize(const kopt_w8a16_weights* w, void* out, int out_dtype, void* stream) {
  if (KoptResult r = kopt_library_check_dequantize(w, out, out_dtype); r.code != kKoptOk)
    return kopt_w8a16_record(r);
  if (!w->entry || w->entry->has_relayout)
    return kopt_w8a16_fail(KOPT_W8A16_NO_KERNEL,
                           "these weights are in their kernel's own layout, which the "
                           "dequantiser does not read: " +
                               w->description);
  const KoptShapeArgs& a = w->args;
  // The canonical blob: q int8 [N][K], then the scales fp16 [N] from the
  // next 256-byte boundary (the problem's layout, kopt_w8_scales).
  const size_t q_bytes = static_cast<size_t>(a.N) * a.K;
  const auto* scales = reinterpret_cast<const __half*>(w->weights + (q_bytes + 255) / 256 * 256);
  // Threads over a row's eights, blocks over rows (at most 65535: the rest
  // in turn).
  const dim3 grid(static_cast<unsigned>((a.K + 8 * 256 - 1) / (8 * 256)),
                  static_cast<unsigned>(std::min<long long>(a.N, 65535)));
  kopt_w8a16_dequantize_kernel<<<grid, 256, 0, static_cast<hipStream_t>(stream)>>>(
      reinterpret_cast<const signed char*>(w->weights), scales, out, out_dtype,
      static_cast<int>(a.K), static_cast<int>(a.N));
  const hipError_t e = hipGetLastError();
  return e == hipSuccess ? KOPT_W8A16_OK
                         : kopt_w8a16_record(kopt_gpu_error(e, "dequantize launch"));
}

}  // extern "C"
#endif  // KOPT_HOST_PASS
