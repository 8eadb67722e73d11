// How the library launches its batched kernels (the w4a16_batch problem's
// `lanes` seed, one build per M bucket): the seed's contract expressions
// written as C++, with the parameters the library builds it with. Plain C++
// (no GPU runtime), so the tests compare it with the contract's own plan.
#pragma once

#include "kopt_contract_ops.h"

// The M buckets: a call of M rows runs the smallest bucket that holds them
// (rows past M are skipped inside the kernel); more than the last bucket
// runs in blocks of it.
constexpr int kKoptBatchedBuckets[] = {4, 8, 16};
constexpr int kKoptBatchedMaxRows = 16;
// Fewer rows than the first bucket run one by one on the batch-1 kernel: measured on an H100
// (2026-11-25, PERFORMANCE.md), the batched kernel at 2 rows took 1.5-3x
// two batch-1 calls on 13 of the 14 contest shapes, at 4 rows less than
// four calls on 12 of 13, at 8 and 16 rows less on all.
constexpr int kKoptBatchedMinRows = kKoptBatchedBuckets[0];

// The seed's parameters in the library (every bucket): COLS columns per lane,
// WARPS warps per block, SPLIT 0 (the contract's automatic K slices).
struct KoptBatchedParams {
  long long rows;    // MR
  long long layout;  // LAYOUT: 0 dot's and gen's packed layout, 1 the canonical arrays
  long long cols = 2, warps = 4, split = 0;
};

struct KoptBatchedLaunch {
  long long grid_x, grid_y, block, shared_bytes, workspace_bytes;
};

// The contract's "requires" without the row capacity (the caller picks a
// bucket that holds M): K and G in whole chunks of 32, the shared memory.
inline bool kopt_batched_supported(const KoptBatchedParams& p, long long K, long long G,
                                   long long warp) {
  const long long shared = p.warps * p.rows * kopt_max(64, p.cols * warp) * 4;
  return K % 32 == 0 && G % 32 == 0 && p.rows * p.cols <= 64 && shared <= 49152;
}

// grid, block, dynamic shared memory and workspace for M rows of K x N.
inline KoptBatchedLaunch kopt_batched_launch(const KoptBatchedParams& p, long long M, long long K,
                                             long long N, long long warp, long long sms) {
  const long long groups = kopt_cdiv(N, warp * p.cols);
  const long long automatic = kopt_max(
      1, kopt_min(8, kopt_min(kopt_cdiv(2 * sms, groups), kopt_cdiv(K / 32, 2) / (2 * p.warps))));
  const long long slices = kopt_max(p.split, (1 - kopt_min(p.split, 1)) * automatic);
  KoptBatchedLaunch l;
  l.grid_x = groups;
  l.grid_y = slices;
  l.block = p.warps * warp;
  l.shared_bytes = p.warps * p.rows * kopt_max(64, p.cols * warp) * 4;
  l.workspace_bytes = kopt_cdiv(N, 64) * 64 * 4 + slices * M * N * 4;
  return l;
}
