// kopt_w4a16's extension of the shared C API (kernels/common/kopt_library.h):
// the batched kernels (kopt_w4a16_batched.hip) behind kopt_w4a16_gemm, which
// read the weights once for a block of rows where the shape's weights are
// in a layout they read. Host pass only.
#pragma once

#include "kopt_library.h"
#include "kopt_w4a16_batched.h"

#if KOPT_HOST_PASS
struct KoptW4a16Batched {
  static constexpr int kMaxRows = kKoptBatchedMaxRows;

  int layout = -1;  // the layout the batched kernels read the weights in; -1: none
  int rows = 0;     // the largest bucket served for this shape on this device
  // One row on the register path, in bf16 or in fp16 with fp16 y (after_init says where).
  bool bf16_row = false, fp16_row = false;
  float* workspace = nullptr;
  // Between the hooks: the batched kernels' re-layout of the canonical
  // weights, compared with the entry's once it ran.
  unsigned char* expected = nullptr;

  hipError_t before_init(const KoptKernelEntry* entry, const KoptShapeArgs& args,
                         const unsigned char* canonical, hipStream_t stream);
  hipError_t after_init(KoptWeights& w, hipStream_t stream, const char** step);
  int block_rows(const KoptWeights& w, int remaining, int x_dtype, int y_dtype) const;
  bool native(int x_dtype, int y_dtype) const;
  hipError_t call(const KoptWeights& w, int rows, const void* x, int x_dtype, void* y, int y_dtype,
                  hipStream_t stream) const;
  void release();
};
#endif
