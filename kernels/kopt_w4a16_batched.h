// The batched kernels of kopt_w4a16 (kopt_w4a16_batched.hip): M > 1 rows
// of x in one call that reads the weights once. Host pass only.
#pragma once

#include "kopt_launch.h"
#include "kopt_w4a16_batched_plan.h"

#if KOPT_HOST_PASS
struct KoptBatchedKernel {
  KoptBatchedParams params;
  // M rows (at most params.rows) of fp16 x [M][K] into fp32 y [M][N].
  hipError_t (*call)(long long M, long long K, long long N, long long G, long long warp,
                     long long sms, const __half* x, const unsigned char* w, float* y, float* ws,
                     hipStream_t stream);
  // The canonical blob into the layout this kernel reads.
  hipError_t (*lay_out)(long long K, long long N, long long G, const unsigned char* canonical,
                        unsigned char* packed, hipStream_t stream);
};

// The build for the smallest bucket that holds `rows` rows in `layout`
// (kKoptBatchedBuckets in order); nullptr past the last bucket.
const KoptBatchedKernel* kopt_batched_kernel(long long rows, long long layout);
#endif
