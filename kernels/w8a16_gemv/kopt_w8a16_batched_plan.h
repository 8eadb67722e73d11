// The builds of the w8a16_batch problem's lanes seed (seeds/w8a16_batch/
// lanes.hip) in kopt_w8a16 and their launch, written once from the seed's
// contract in plain C++ (tests/problems/w8a16_batch_test.cpp checks that
// they plan what the contract plans): one build per M bucket, two channels
// a lane group of eight lanes, blocks of 256 threads, x staged in 32 KB of
// shared memory at most, and K cut into as few slices as give every SM four
// blocks (measured on the H200 on five contest shapes at 2, 8 and 16 rows:
// PERFORMANCE.md, 2026-11-29).
#pragma once

#include "../common/kopt_contract_ops.h"

// The row buckets with a build: a call of M rows runs on the smallest that
// holds them (rows past M as zeros).
constexpr int kKoptW8a16Buckets[] = {2, 4, 8, 16};
constexpr long long kKoptW8a16MaxRows = 16;
// The seed's values of SPLIT, in order.
constexpr long long kKoptW8a16Splits[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};

struct KoptW8a16Lanes {
  long long rows, cols, lanes, warps, xt, depth;
};

// The build of bucket `rows` on a warp of `warp` lanes: x staged XT values
// of K at a time, as many as 32 KB hold for the bucket's rows.
constexpr KoptW8a16Lanes kopt_w8a16_lanes(long long rows, long long warp) {
  return {rows, 2, 8, 256 / warp, rows <= 4 ? 2048 : rows == 8 ? 1024 : 512, 2};
}

// Whether the builds serve K: rows of 16-byte loads.
constexpr bool kopt_w8a16_batched_supported(long long K) { return K > 0 && K % 16 == 0; }

// The column blocks of N channels: a block holds WARPS x (WARP / LPC) lane
// groups of COLS channels.
constexpr long long kopt_w8a16_column_blocks(const KoptW8a16Lanes& p, long long N, long long warp) {
  return kopt_cdiv(N, p.warps * (warp / p.lanes) * p.cols);
}

// Slices of K: the fewest of the seed's values that give at least four
// blocks an SM, as long as each lane keeps two steps of 16 a slice.
constexpr long long kopt_w8a16_split(const KoptW8a16Lanes& p, long long K, long long N,
                                     long long warp, long long sms) {
  const long long blocks = kopt_w8a16_column_blocks(p, N, warp);
  long long best = 1;
  for (long long s : kKoptW8a16Splits) {
    if (K / s < 2 * 16 * p.lanes) break;
    best = s;
    if (blocks * s >= 4 * sms) break;
  }
  return best;
}

struct KoptW8a16Launch {
  long long grid_x, grid_y, block, workspace_bytes;
};

// The launch of M rows of K x N on build `p`, as the seed's contract plans
// it (grid, block, workspace: a ticket a column, then the slices' sums).
constexpr KoptW8a16Launch kopt_w8a16_launch(const KoptW8a16Lanes& p, long long M, long long K,
                                            long long N, long long warp, long long sms) {
  const long long split = kopt_w8a16_split(p, K, N, warp, sms);
  return {kopt_w8a16_column_blocks(p, N, warp), split, p.warps * warp,
          kopt_align(N, 64) * 4 + split * M * N * 4};
}

// The workspace one allocation needs for every call of K x N (the most any
// bucket's launch takes).
constexpr long long kopt_w8a16_workspace_bytes(long long K, long long N, long long warp,
                                               long long sms) {
  long long most = 0;
  for (const int b : kKoptW8a16Buckets) {
    const long long bytes =
        kopt_w8a16_launch(kopt_w8a16_lanes(b, warp), b, K, N, warp, sms).workspace_bytes;
    most = kopt_max(most, bytes);
  }
  return most;
}
