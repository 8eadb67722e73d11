// kopt_w8a16's extension of the shared C API (kernels/common/kopt_library.h):
// the batched kernels (kopt_w8a16_batched.hip) behind kopt_w8a16_gemm, which
// read the canonical weights once for a block of 2 to 16 rows. Host pass
// only.
#pragma once

#include "kopt_library.h"
#include "kopt_w8a16_batched_plan.h"

#if KOPT_HOST_PASS
// A build's launch of M rows (kopt_w8a16_batched.hip).
using KoptW8a16LanesCall = hipError_t (*)(long long M, long long K, long long N, long long warp,
                                          long long sms, const void* x, const unsigned char* w,
                                          void* y, float* ws, hipStream_t stream);

struct KoptW8a16Batched {
  static constexpr int kMaxRows = kKoptW8a16MaxRows;
  static constexpr int kBuckets = sizeof kKoptW8a16Buckets / sizeof kKoptW8a16Buckets[0];
  static constexpr int kIoPairs = sizeof kKoptNativeIo / sizeof kKoptNativeIo[0];

  bool serves = false;    // the weights stay canonical and K is a multiple of 16
  bool bf16_row = false;  // one bf16 row runs on the 1-row build (kopt_w8a16_one_bf16_row)
  float* workspace = nullptr;
  // The build of each bucket in each dtype pair for these weights' shape
  // (tuned or usual), looked up once at create rather than on every call.
  KoptW8a16LanesCall calls[kBuckets][kIoPairs] = {};

  hipError_t before_init(const KoptKernelEntry*, const KoptShapeArgs&, const unsigned char*,
                         hipStream_t) {
    return hipSuccess;
  }
  hipError_t after_init(KoptWeights& w, hipStream_t stream, const char** step);
  int block_rows(const KoptWeights& w, int remaining, int x_dtype, int y_dtype) const;
  bool native(int x_dtype, int y_dtype) const;
  hipError_t call(const KoptWeights& w, int rows, const void* x, int x_dtype, void* y, int y_dtype,
                  hipStream_t stream) const;
  void release();
};
#endif
