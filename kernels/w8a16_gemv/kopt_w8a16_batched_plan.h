// The builds of the w8a16_batch problem's lanes seed (seeds/w8a16_batch/
// lanes.hip) in kopt_w8a16 and their launch, written once from the seed's
// contract in plain C++ (tests/problems/w8a16_batch_test.cpp checks that
// they plan what the contract plans): one build per M bucket (and the builds
// tuned for some shapes), two channels a lane group of eight lanes, blocks
// of 256 threads, x staged in 32 KB of shared memory at most (measured on
// the H200 on five contest shapes at 2, 8 and 16 rows: PERFORMANCE.md,
// 2026-11-29), and K cut into slices by a model of the busiest SM
// (kopt_w8a16_split).
#pragma once

#include "../common/kopt_contract_ops.h"

// The row buckets with a build: a call of M rows runs on the smallest that
// holds them (rows past M as zeros). One row runs there only in bf16
// (KoptW8a16Batched::block_rows says why).
constexpr int kKoptW8a16Buckets[] = {1, 2, 4, 8, 16};
constexpr int kKoptW8a16MaxRows = kopt_largest_bucket(kKoptW8a16Buckets);
// The seed's values of SPLIT, in order.
constexpr long long kKoptW8a16Splits[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};

struct KoptW8a16Lanes {
  long long rows, cols, lanes, warps, xt, depth, x16;
};

// The build of bucket `rows` on a warp of `warp` lanes: x staged XT values
// of K at a time, as many as 32 KB of fp32 hold for the bucket's rows; from
// four rows, integer dots (X16: on the H200 the contest shapes took 0.90,
// 0.76 and 0.77 of the fp32 dots' time at 4, 8 and 16 rows, and the same
// at 2, where the fp32 dots stay).
constexpr KoptW8a16Lanes kopt_w8a16_lanes(long long rows, long long warp) {
  return {rows, 2, 8, 256 / warp, rows <= 4 ? 2048 : rows == 8 ? 1024 : 512, 2, rows >= 4 ? 1 : 0};
}

// The builds tuned for some contest shapes on a warp of 32: one channel a
// lane group of sixteen lanes at 2 rows, where the usual build's column
// blocks (96 for 132 SMs) leave SMs idle. Measured on the H200 (2026-11-29,
// PERFORMANCE.md), the seed at 2 rows, each setting at its slice rule's
// split: 1536x6144 6.80 against the usual build's 8.46 us; on the other
// contest shapes within 2% (7168x1536, 7168x1024, 5120x768, 5120x256) or
// slower by 5 to 40% (7168x9216 40.80 against 29.22).
struct KoptW8a16Tuned {
  long long bucket, K, N, cols, lanes;
};
constexpr KoptW8a16Tuned kKoptW8a16Tuned[] = {{2, 1536, 6144, 1, 16}};

// Whether an entry of kKoptW8a16Tuned takes bucket `rows` with these
// columns and lanes.
constexpr bool kopt_w8a16_tuned_columns(long long rows, long long cols, long long lanes) {
  for (const KoptW8a16Tuned& t : kKoptW8a16Tuned)
    if (t.bucket == rows && t.cols == cols && t.lanes == lanes) return true;
  return false;
}

// The build a call of bucket `rows` runs on for K x N: kopt_w8a16_lanes's,
// or a tuned entry's columns and lanes.
constexpr KoptW8a16Lanes kopt_w8a16_choice(long long rows, long long K, long long N,
                                           long long warp) {
  KoptW8a16Lanes p = kopt_w8a16_lanes(rows, warp);
  for (const KoptW8a16Tuned& t : kKoptW8a16Tuned)
    if (warp == 32 && t.bucket == rows && t.K == K && t.N == N) {
      p.cols = t.cols;
      p.lanes = t.lanes;
    }
  return p;
}

// Whether the builds serve K: rows of 16-byte loads.
constexpr bool kopt_w8a16_batched_supported(long long K) { return K > 0 && K % 16 == 0; }

// The column blocks of N channels: a block holds WARPS x (WARP / LPC) lane
// groups of COLS channels.
constexpr long long kopt_w8a16_column_blocks(const KoptW8a16Lanes& p, long long N, long long warp) {
  return kopt_cdiv(N, p.warps * (warp / p.lanes) * p.cols);
}

// The slice model's costs, in values of K (the time a block takes to walk
// that much of its slice on a busy SM): a block's fixed part (set-up, the
// group sums, the stores), a stage's (x staged, two barriers), and the
// last block's sum of the slices, paid once where K is sliced at all.
constexpr long long kKoptW8a16BlockCostK = 256;
constexpr long long kKoptW8a16StageCostK = 192;
constexpr long long kKoptW8a16SliceSumCostK = 384;

// Slices of K: of the seed's values that leave each lane two steps of 16 a
// slice, the one whose busiest SM finishes first. That SM runs rounds =
// cdiv(blocks, sms) blocks. A block alone on an SM streams its weights at
// two thirds of the SM's rate (too few loads in flight), so the slices take
// slice * max(1.5, rounds); each block adds its fixed and stage costs. More
// slices spread the work, but a last partial round leaves SMs idle: four
// blocks an SM, the first rule, took 61.7 us for 16 rows of 4096x7168 where
// two slices took 47.9. Fitted on the H200 (PERFORMANCE.md, 2026-11-29):
// of 68 (shape, M) with two or more slice counts measured at 2 to 16 rows,
// the pick is the fastest on 60 and within 8% of it on the rest.
constexpr long long kopt_w8a16_split(const KoptW8a16Lanes& p, long long K, long long N,
                                     long long warp, long long sms) {
  const long long blocks = kopt_w8a16_column_blocks(p, N, warp);
  long long best = 1, best_cost = -1;
  for (long long s : kKoptW8a16Splits) {
    if (s > 1 && K / s < 2 * 16 * p.lanes) break;
    const long long slice = kopt_cdiv(K, 16 * s) * 16, rounds = kopt_cdiv(blocks * s, sms);
    // In half values of K, so a lone block's 1.5 stays an integer.
    const long long cost =
        slice * kopt_max(3, 2 * rounds) +
        2 * rounds * (kKoptW8a16BlockCostK + kKoptW8a16StageCostK * kopt_cdiv(slice, p.xt)) +
        (s > 1 ? 2 * kKoptW8a16SliceSumCostK : 0);
    if (best_cost < 0 || cost < best_cost) best = s, best_cost = cost;
  }
  return best;
}

// Whether one bf16 row (x and y) runs on the 1-row build rather than on the
// batch-1 kernel with its conversions: where the slice rule cuts K into
// three slices or more, or K is short (512 and under). Measured on the H200
// (2026-11-29, PERFORMANCE.md), one bf16 row on the 1-row build against the
// batch-1 kernel with the conversions, on the contest shapes and Llama-3-8B's:
// faster on all thirteen so chosen (7168x9216 21.97 against 25.65 us,
// 384x5120 3.61 against 4.67), slower on the four others, cut into one or
// two slices (1536x6144 7.89 against 7.39, 4608x7168 15.98 against 15.51,
// 4096x7168 14.41 against 14.24, 4096x14336 22.70 against 21.98), whose
// column blocks already fill the SMs, as the tuned batch-1 kernels do.
constexpr bool kopt_w8a16_one_bf16_row(long long K, long long N, long long warp, long long sms) {
  return K <= 512 || kopt_w8a16_split(kopt_w8a16_lanes(1, warp), K, N, warp, sms) >= 3;
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
        kopt_w8a16_launch(kopt_w8a16_choice(b, K, N, warp), b, K, N, warp, sms).workspace_bytes;
    most = kopt_max(most, bytes);
  }
  return most;
}
