// The batched kernels of kopt_w4a16 (kopt_w4a16_batched.hip): M > 1 rows
// of x in one call that reads the weights once. Host pass only.
#pragma once

#include "kopt_launch.h"
#include "kopt_library.h"
#include "kopt_w4a16_batched_plan.h"

#if KOPT_HOST_PASS
struct KoptBatchedKernel {
  KoptBatchedParams params;
  // M rows (at most params.rows) of x [M][K] into y [M][N], in dtype pair
  // `io` (kKoptNativeIo's index), K cut into slices of `xs` steps (the
  // seed's XS, a launch's choice: 0 the contract's own slices).
  hipError_t (*call)(int io, long long xs, long long M, long long K, long long N, long long G,
                     long long warp, long long sms, const void* x, const unsigned char* w, void* y,
                     float* ws, hipStream_t stream);
  // The canonical blob into the layout this kernel reads.
  hipError_t (*lay_out)(long long K, long long N, long long G, const unsigned char* canonical,
                        unsigned char* packed, hipStream_t stream);
};

// The register path (xrows) for up to 8 rows, in the packed layout only.
struct KoptXrowsKernel {
  KoptXrowsParams params;
  bool tuned;  // built for the shapes of kKoptXrowsTuned only
  hipError_t (*call)(int io, long long M, long long K, long long N, long long G, long long warp,
                     long long sms, const void* x, const unsigned char* w, void* y,
                     hipStream_t stream);
};

// The xrows build for `rows` rows of K x N: the one tuned for the shape
// (kopt_xrows_tuned) where this library has it; else, where the register
// path is the faster (kopt_xrows_preferred), the default build of the
// smallest bucket that holds the rows with the warps K needs; where its
// rules admit K and G on this warp size. nullptr where none does (klanes
// preferred, K past 8 x 32 chunks of 32, or too many registers).
const KoptXrowsKernel* kopt_xrows_kernel(long long rows, long long K, long long N, long long G,
                                         long long warp);

// The build for the smallest bucket that holds `rows` rows in `layout`
// (kKoptBatchedBuckets in order) with the column groups, columns, warps and
// OCC K x N and the rows take on this warp size (kopt_batched_choice; the
// usual build where those are not built); nullptr past the last bucket.
// `xs`, where given, receives the steps a slice of K the choice takes (its
// xs; 0 where the usual build serves).
const KoptBatchedKernel* kopt_batched_kernel(long long rows, long long layout, long long K,
                                             long long N, long long warp, long long* xs = nullptr);

// The workspace one allocation needs for every call of K x N with up to
// `rows` rows in `layout`: the most any bucket's build takes (the buckets may
// differ in column groups, columns and spread; their tickets' regions are
// the same size).
long long kopt_batched_workspace_bytes(long long rows, long long layout, long long K, long long N,
                                       long long warp, long long sms);

// The largest bucket this library has builds for (16; 8 in an AMD build,
// whose 16-row build is left out: see kopt_w4a16_batched.hip).
long long kopt_batched_built_rows();
#endif
