// How the library launches its batched kernels (the w4a16_batch problem's
// `klanes` seed, one build per M bucket, and its `xrows` seed for 2 to 4
// rows, and 5 to 8 on the shapes tuned for them): the seeds' contract
// expressions written as C++, with the parameters the library builds them
// with. Plain C++ (no GPU runtime), so the tests compare it with the
// contracts' own plans.
#pragma once

#include "../common/kopt_contract_ops.h"

// The M buckets: a call of M rows runs the smallest bucket that holds them
// (rows past M computed on zeros and not written); more than the largest
// bucket the device serves runs in blocks of it.
constexpr int kKoptBatchedBuckets[] = {2, 4, 8, 16};
constexpr int kKoptBatchedMaxRows = kopt_largest_bucket(kKoptBatchedBuckets);
// Fewer rows run one by one on the batch-1 kernels. Measured on an H100 with
// the library's example (2026-11-26, PERFORMANCE.md): 3 rows on the 4-row
// bucket beat three batch-1 calls on all six shapes (7168x9216: 33.2 against
// 39.2 us), while 2 rows on it lose on the small ones (5120x256: 5.6 against
// 4.5 us for two calls).
constexpr int kKoptBatchedMinRows = 3;
// Except at long K, where the weight stream outweighs the batched kernel's
// fixed costs: 2 rows the register path does not take (its builds stop at K
// = 8192) run on the 2-row bucket, which serves nothing else. Measured on an
// H100 (2026-11-26, PERFORMANCE.md, Qwen2.5-7B's down projections): the seed
// at 2 rows took 16.19 us on 9472x3584 and 27.36 on 18944x3584, against
// 24.82 and 52.42 for two batch-1 calls and 23.39 and 32.60 on the 4-row
// bucket. Measured again on an H200 (2026-11-28, PERFORMANCE.md) once the
// batch-1 path ran these shapes twice as fast: the bucket still wins on all
// eight long-K shapes tried, 13.77 against 2 x 8.68 us on 9472x3584, 22.25
// against 2 x 14.29 on 18944x3584, 49.82 against 2 x 35.38 on 28672x8192;
// and again after the lane-group variants, 28.22 against 2 x 18.78 on
// 14336x8192 (H200, PERFORMANCE.md).
constexpr long long kKoptBatchedLongK = 8192;
static_assert(kKoptBatchedBuckets[0] == 2, "the 2-row bucket serves long K");
// The fewest rows a call runs on the batched kernels where the register
// path does not take them.
inline long long kopt_batched_min_rows(long long K) {
  return K > kKoptBatchedLongK ? 2 : kKoptBatchedMinRows;
}

// The seed's parameters in the library (every bucket): COLS columns per warp
// (2, or kopt_batched_cols's for the shapes tuned), WARPS warps per block (8
// of 32 on NVIDIA, 4 of 64 on AMD: 256 threads; kopt_batched_choice's for the
// shapes tuned), DEPTH weight stages in flight, XS 0 and CT 0 (the
// contract's automatic slices of K and tiles per block), GROUPS column groups
// a warp works side by side (kopt_batched_groups), OCC blocks per SM (two:
// three or four were slower on the H100 with two columns a warp,
// PERFORMANCE.md, 2026-11-27; kopt_batched_choice's for the shapes tuned),
// SPREAD whether the column blocks may outnumber the blocks' tiles
// (kopt_batched_spread).
struct KoptBatchedParams {
  long long rows;    // MR
  long long layout;  // LAYOUT: 0 dot's and gen's packed layout, 1 the canonical arrays
  long long cols = 2, warps = 8, depth = 2, xs = 0, ct = 0, groups = 1, occ = 2, spread = 0;
};

// The 16-row bucket spreads its column blocks over the warps' tiles where
// the blocks' tiles are fewer than OCC blocks an SM (the seed's SPREAD 1):
// a block's warps then share fewer tiles than they are, and the SMs run
// about as many dp2a each, not one block here and two there. Measured on an
// H100 (2026-11-27, PERFORMANCE.md), the seed at 16 rows, two groups:
// 384x5120 6.79 -> 5.81 us, 512x7168 7.14 -> 6.93, 7168x1024 13.44 ->
// 13.28, the shapes whose grid it leaves alone flat. Fewer rows lose more
// to the blocks' own staging of x than the spread saves (8 rows: 5120x256
// 5.86 -> 6.21, 512x7168 4.85 -> 4.96; 4 rows: 5120x256 5.17 -> 5.54).
constexpr long long kopt_batched_spread(long long rows) { return rows > 8 ? 1 : 0; }

// Two column groups a warp where a column's chunks of 32 k fit half a warp's
// lanes (K / 32 <= warp / 2), one otherwise: one group leaves the lanes past
// K idle in every step (20 of 32 at K = 384), two leave 4. Measured on an
// H100 (2026-11-26, PERFORMANCE.md), the seed at two groups against one:
// 16 rows of 384x5120 6.98 against 9.82 us, of 512x7168 7.28 against 11.45;
// 8 rows 4.76 against 5.90 and 4.94 against 6.81; 4 rows 3.89 against 4.60
// and 4.09 against 5.20; at K = 1536 and above no gain.
// Past 8 rows (the 16-row bucket) two groups at any K: their lanes read x in
// pairs, which halves the shared memory's time per read, and at 16 rows the
// reads of x are as much as the dp2a pipe's work (H100, 2026-11-27,
// PERFORMANCE.md: the seed's contest sum at 16 rows 349.63 -> 335.29 us, 9 of
// 14 shapes faster, 7168x1536 the worst loss at 3%; at 8 rows 207.79 ->
// 218.55, so not there). Except where a column's chunks fill one warp's
// lanes but not half of them (warp / 2 < K / 32 <= warp): one group covers
// K in one step, two in two with as many lanes idle and a second slice of K
// to add (H100, 2026-11-27, PERFORMANCE.md: 16 rows of 640x5120, never
// used in development, 9.27 us at one group against 11.53 at two).
// The library builds two groups in both layouts at 16 rows, in the packed
// layout (layout 0) only at 4 and 8 rows, where they serve K up to 512 and
// a shape in the canonical layout takes one group.
//
// Some contest shapes take other groups or columns a warp in one row bucket
// on a warp of 32, where the seed with X16 was measured apart by more than
// 2% (H100, 2026-11-27, PERFORMANCE.md; the library's choice otherwise), us:
//   8 rows   4608x7168  two groups: 23.60 against 24.99
//            7168x1536  two groups: 11.75 against 11.99
//            7168x1024  two groups: 9.52 against 9.72
//   16 rows (two groups, spread; one column a warp against two)
//            7168x1536  16.43 against 17.43 (the library's one group of
//                       two columns before it: 16.90 -> 16.25 in one run)
//            5120x3584  23.48 against 24.06
//            1536x6144  15.23 against 15.85
//            5120x768   9.86 against 10.17
//            5120x256   7.65 against 7.96
// (The two 7168-K entries at 8 rows come from a later probe at 8 rows of XS,
// CT, columns, warps, depth and groups on the shapes the library trailed a
// peer on: only two groups gained, and only there. One column a warp lost at
// 16 rows on 384x5120, 512x7168, 3072x5120, 5120x3072 and 4096x7168, and at
// 8 rows on every shape probed.)
// At 8 rows 1536x6144 takes blocks of sixteen warps, one an SM (x staged
// once an SM, not twice), measured apart by more than 2% in two probes of
// the seed on an H100 (2026-11-28, PERFORMANCE.md), us: 1536x6144 9.39 and
// 9.43 against 10.03 and 10.06; 7168x9216 too, 36.87 and 36.96 against
// 38.07 and 37.67, until two groups with slices of two steps (below) beat
// both. On the twelve other contest shapes at 8 rows slower (5120x3584
// 16.05 against 14.77, 5120x256 7.27 against 5.89) or within 2% (4608x7168
// 21.31 against 21.36); at 16 rows slower on six of eight shapes probed and
// within 2% on the others; at 4 rows slower on the four klanes serves there.
// (Such a shape's buckets differ in builds; they share one workspace, whose
// tickets' region is the same size for every build.)
// (5120x3584 is tuned only to keep it off the rule of two-step slices
// below, which it loses to by 2%.)
struct KoptBatchedTuned {
  long long bucket, K, N, groups, cols, warps, occ;  // warps: of 32 lanes
};
constexpr KoptBatchedTuned kKoptBatchedTuned[] = {
    {8, 4608, 7168, 2, 2, 8, 2},  {8, 7168, 1536, 2, 2, 8, 2},  {8, 7168, 1024, 2, 2, 8, 2},
    {8, 5120, 3584, 1, 2, 8, 2},  {8, 1536, 6144, 1, 2, 16, 1}, {16, 7168, 1536, 2, 1, 8, 2},
    {16, 5120, 3584, 2, 1, 8, 2}, {16, 1536, 6144, 2, 1, 8, 2}, {16, 5120, 768, 2, 1, 8, 2},
    {16, 5120, 256, 2, 1, 8, 2}};
// The tuned entry of M rows of K x N on this warp size; nullptr for none.
constexpr const KoptBatchedTuned* kopt_batched_tuned(long long K, long long N, long long warp,
                                                     long long rows) {
  if (warp != 32) return nullptr;
  const long long bucket = kopt_smallest_bucket(kKoptBatchedBuckets, rows);
  for (const KoptBatchedTuned& t : kKoptBatchedTuned)
    if (t.bucket == bucket && t.K == K && t.N == N) return &t;
  return nullptr;
}
// The library's usual build of a bucket on this warp size: blocks of 256
// threads, one column group, KoptBatchedParams's columns and OCC.
constexpr KoptBatchedParams kopt_batched_usual(long long rows, long long layout, long long warp) {
  KoptBatchedParams p{rows, layout};
  p.warps = 256 / warp;
  return p;
}
// Steps of K a column takes: a step is a lane group's chunks of 32 k, WARP
// / GROUPS lanes (the seed's STEPS).
constexpr long long kopt_batched_steps(long long K, long long warp, long long groups) {
  return kopt_cdiv(K / 32, warp / groups);
}
// Slices of two steps of K (the seed's XS 2: a launch's choice, the same
// builds) where the contract's own rule cuts K into as few slices as shared
// memory allows: x is staged for a whole slice before a block's first dot,
// so a shorter slice starts its dots sooner. On a warp of 32, in two places
// (the seed, us, against the library's build at the contract's slices):
// - 5 to 8 rows (the 8-row bucket) of mid-size shapes, K of 3072 to 7168
//   and N of 768 to 10240, in the packed layout, with two column groups
//   where one was the usual build. Measured on an H200 (2026-11-29,
//   PERFORMANCE.md), 8 rows: 7168x9216 33.86 against 36.25, 4096x4096
//   12.70 against 14.03, 4096x6144 16.13 against 17.29, 5120x7680 23.10
//   against 24.29, 6144x4096 16.12 against 17.11, 3584x4608 14.50 against
//   15.50, 4096x7168, 5120x3072, 3072x5120, 5120x6144 and 5120x768 3-6%
//   faster; slower on 5120x3584 (14.48 against 14.18, tuned above) and
//   4608x7168 (22.08 against two groups' 20.83 at the contract's slices,
//   its entry above). Outside that range slower: K of 8192 and more
//   (14336x4096 33.49 against 30.53, 28672x8192 125.29 against 105.93),
//   2048x8192 12.98 against 11.69, 4096x28672 54.54 against 53.88, 5120x256
//   6.49 against 5.52.
// - 2 to 4 rows (the 2- and 4-row buckets) of long K, past the register
//   path's builds up to 26624, one column group as before, where the
//   slices' partial sums (slices x bucket rows x N, written by every slice
//   and added by the last block of each column range) are at most 229376,
//   the most measured faster (7 slices of 4 rows of 8192 columns).
//   Measured on an H200 (2026-11-29, PERFORMANCE.md), 2 and 4 rows, faster
//   or even on all twelve such shapes measured: 4 rows of 14336x4096 20.97
//   against 23.41, 14336x8192 36.30 against 39.95, 8960x1536 9.57 against
//   11.25, 18944x3584 25.63 against 26.55, 26624x3072 27.87 against 30.39;
//   2 rows the same 16.76 against 17.49, 28.00 against 28.66, 8.16 against
//   9.45, 20.43 against 22.23, 22.24 against 23.09, 17920x5120 25.01
//   against 25.00. Slower at 4 rows past that many partial sums
//   (20480x7168, 10 x 4 x 7168: 46.11 against 44.13; 24576x6144 46.04
//   against 44.16), where at 2 rows they gained (35.50 against 38.84,
//   34.85 against 37.14); slower at both past K = 26624 (4 rows of
//   28672x8192 69.86 against 64.70, 27648x5120 46.89 against 44.09; 2 rows
//   52.11 against 50.44, 35.70 against 34.59).
constexpr long long kKoptBatchedTwoStepLongK = 26624;
// The steps of K a slice holds under the rule (the seed's XS).
constexpr long long kKoptBatchedTwoSteps = 2;
constexpr long long kKoptBatchedTwoStepMostPartials = 229376;
constexpr bool kopt_batched_two_step_slices(long long rows, long long layout, long long K,
                                            long long N, long long warp) {
  if (warp != 32) return false;
  const long long bucket = kopt_smallest_bucket(kKoptBatchedBuckets, rows);
  if (bucket == 8) return layout == 0 && K >= 3072 && K <= 7168 && N >= 768 && N <= 10240;
  if (bucket > 4 || K <= kKoptBatchedLongK || K > kKoptBatchedTwoStepLongK) return false;
  const long long slices =
      kopt_cdiv(kopt_batched_steps(K, warp, 1), kKoptBatchedTwoSteps);  // one group
  return slices * bucket * N <= kKoptBatchedTwoStepMostPartials;
}
// What the library runs M rows of K x N with on this warp size: the tuned
// entry's column groups, columns, warps and OCC, else the usual build with
// two column groups where a column's chunks fit half a warp, or past 8 rows
// (above), or with two-step slices (kopt_batched_two_step_slices: two
// groups at 5 to 8 rows, one at 2 to 4).
constexpr KoptBatchedParams kopt_batched_choice(long long rows, long long layout, long long K,
                                                long long N, long long warp) {
  KoptBatchedParams p = kopt_batched_usual(rows, layout, warp);
  if (const KoptBatchedTuned* t = kopt_batched_tuned(K, N, warp, rows)) {
    p.groups = t->groups;
    p.cols = t->cols;
    p.warps = t->warps;
    p.occ = t->occ;
  } else if (kopt_batched_two_step_slices(rows, layout, K, N, warp)) {
    p.groups = rows > 4 ? 2 : 1;
    p.xs = kKoptBatchedTwoSteps;
  } else {
    p.groups = K / 32 <= warp / 2 || (rows > 8 && K / 32 > warp) ? 2 : 1;
  }
  return p;
}
inline long long kopt_batched_groups(long long K, long long N, long long warp, long long rows) {
  return kopt_batched_choice(rows, 0, K, N, warp).groups;
}
inline long long kopt_batched_cols(long long K, long long N, long long warp, long long rows) {
  return kopt_batched_choice(rows, 0, K, N, warp).cols;
}

struct KoptBatchedLaunch {
  long long grid_x, grid_y, block, shared_bytes, workspace_bytes;
};

// Shared memory a step of K takes: MR rows of WARP chunks of fixed-point x
// (64 bytes of x, as byte planes or 16-bit words, and 8 of scale and sum each).
inline long long kopt_batched_step_bytes(const KoptBatchedParams& p, long long warp) {
  return p.rows * (warp / p.groups) * 72;
}

// The contract's "requires" without the row capacity (the caller picks a
// bucket that holds M): K and G in whole chunks of 32, the shared memory.
inline bool kopt_batched_supported(const KoptBatchedParams& p, long long K, long long G,
                                   long long warp) {
  return K % 32 == 0 && G % 32 == 0 &&
         kopt_batched_step_bytes(p, warp) * kopt_max(p.xs, 1) <= 40960;
}

// The largest bucket served for K, G on a device of this warp size (a
// wavefront of 64 fits 8 rows of a step in shared memory, not 16); 0: none.
inline long long kopt_batched_max_rows(long long K, long long G, long long warp) {
  long long best = 0;
  for (long long rows : kKoptBatchedBuckets)
    if (kopt_batched_supported(KoptBatchedParams{rows, 0}, K, G, warp)) best = rows;
  return best;
}

// grid, block, dynamic shared memory and workspace for M rows of K x N.
inline KoptBatchedLaunch kopt_batched_launch(const KoptBatchedParams& p, long long M, long long K,
                                             long long N, long long warp, long long sms) {
  const long long steps = kopt_batched_steps(K, warp, p.groups),
                  tiles = kopt_cdiv(N, p.warps * p.cols * p.groups),
                  column_blocks = p.spread ? kopt_cdiv(N, p.cols * p.groups) : tiles;
  const long long most_steps = kopt_max(1, kopt_min(8, 40960 / kopt_batched_step_bytes(p, warp)));
  // XS 0: as few slices as shared memory and OCC blocks per SM allow, unless
  // their short last slice would leave more than an eighth of their steps
  // idle; then one step a slice.
  const long long fewest =
      kopt_min(steps, kopt_max(kopt_cdiv(steps, most_steps), kopt_cdiv(p.occ * sms, tiles)));
  const long long per = kopt_cdiv(steps, fewest), held = per * kopt_cdiv(steps, per);
  const long long slices = p.xs > 0                     ? kopt_cdiv(steps, p.xs)
                           : 8 * (held - steps) <= held ? kopt_cdiv(steps, per)
                                                        : steps;
  KoptBatchedLaunch l;
  l.grid_x = p.ct > 0 ? kopt_cdiv(tiles, p.ct)
                      : kopt_min(column_blocks, kopt_max(1, p.occ * sms / slices));
  l.grid_y = slices;
  l.block = p.warps * warp;
  l.shared_bytes = kopt_batched_step_bytes(p, warp) * kopt_cdiv(steps, slices);
  // The tickets' region holds one a column whatever the build (the seed's
  // layout), so builds of other knobs share a workspace.
  l.workspace_bytes = kopt_cdiv(N, 64) * 64 * 4 + slices * M * N * 4;
  return l;
}

// The register path for 2 to 4 rows (5 to 8 on the shapes tuned for them),
// and one row in bf16: the w4a16_batch problem's `xrows` seed (x of each
// lane's chunk of every row in registers, K split over the warps of a block),
// one build per (row bucket, warps of a block). Measured on an H100
// (2026-11-26, PERFORMANCE.md): faster than klanes at M = 2 and 4 on most
// contest shapes, and at M = 2 than two batch-1 calls on all of them. The
// 1-row bucket serves bf16 calls only (KoptW4a16Batched::block_rows says
// why); the 8-row bucket only the shapes tuned for it (kKoptXrowsTuned).
constexpr int kKoptXrowsBuckets[] = {1, 2, 4, 8};
constexpr int kKoptXrowsMaxRows = kopt_largest_bucket(kKoptXrowsBuckets);
constexpr int kKoptXrowsMaxWarps = 8;  // the builds: K up to 8 x 32 chunks of 32

// The seed's parameters in the library: ROWS columns per lane group (4,
// or kopt_xrows_tuned's for the shapes tuned); LPR lanes a group
// (kopt_xrows_lanes); OCC blocks an SM (0: as many as the register
// estimate lets it hold, at most 32 warps; see the builds in
// kopt_w4a16_batched.hip); KSPLIT the warps one chunk per lane needs;
// AHEAD the tiles a lane loads ahead (kopt_xrows_ahead).
struct KoptXrowsParams {
  long long rows;   // MR
  long long warps;  // KSPLIT
  long long cols = 4, lanes = 32, occ = 0, ahead = 1;
};

// The warps of a block for K: one chunk of 32 k per lane.
constexpr long long kopt_xrows_warps(long long K, const KoptXrowsParams& p) {
  return kopt_cdiv(K / 32, p.lanes);
}

// Which path 3 or 4 rows take where both serve the shape. Measured on an
// H100 (2026-11-26, PERFORMANCE.md), 4 rows, xrows as the library builds it
// against klanes's 4-row bucket: klanes is faster where K is short (1536
// and under: 512x7168 5.16 against 6.97 us, 1536x6144 7.41 against 8.03,
// 1024x4096 4.30 against 4.84; at 1792 xrows, 4096 columns 7.17 against
// 7.97, and at 2048 the faster seed too) or the weights are large (K x N
// of 31 x 2^20 and more: 7168x9216 27.94 against 30.74, 4608x7168 17.84
// against 18.05; at 5120x7168 klanes the faster seed), xrows elsewhere
// (5120x6144 15.36 against 15.83, 5120x3584 10.86 against 12.07, 3456x5120
// 10.57 against 12.42, 7168x1536 8.05 against 9.58; one exception measured,
// 4096x7168 13.91 against klanes's 13.72). 1 and 2 rows stay on xrows
// (one row: kopt_xrows_one_bf16_row decides); 5 to 8 rows take klanes
// but on the shapes tuned for them (kKoptXrowsTuned).
inline bool kopt_xrows_preferred(long long rows, long long K, long long N) {
  return rows <= 2 || (rows <= 4 && K > 1536 && K * N < (31LL << 20));
}

// Whether one bf16 row (x and y) runs on the register path rather than on
// the batch-1 kernel with its conversions: below 31 x 2^20 weights, and
// above where the batch-1 kernel is a generic variant, not one tuned for
// the exact shape. The seed at one row against the library's bf16 row, on
// the H200 (2026-11-29, PERFORMANCE.md), us: faster on the twelve contest
// shapes below that size (5120x6144 7.96 against 8.86); above it slower
// where the batch-1 kernel is tuned (7168x9216 14.94 against 12.47,
// 4608x7168 8.73 against 8.47), and where it is generic faster on four of
// six and in sum (73.08 against 76.36: 4096x14336 11.82 against 13.07,
// 8192x4096 8.43 against 9.74; 3584x18944 14.82 against 13.89 and
// 8192x8192 14.30 against 14.00 slower).
inline bool kopt_xrows_one_bf16_row(long long K, long long N, bool batch1_tuned) {
  return K * N < (31LL << 20) || !batch1_tuned;
}

// Whether one fp16 row with fp16 y runs on the register path rather than on
// the batch-1 kernel with y converted after it (one small kernel, not two):
// below 8 x 2^20 weights, where the call's fixed costs weigh most. On the
// H200 (2026-11-29, PERFORMANCE.md), the library's fp16 row against the
// 1-row build's time (in bf16, the same kernel), us: faster on all six
// contest and Llama-3-8B shapes below that size, by 11-31% (4096x1024 3.05
// against 4.42, 384x5120 2.73 against 3.24); above it mixed (4096x4096
// 5.59 against 5.87, 5120x3072 5.67 against 5.41, 4096x7168 7.70 against
// 6.80).
inline bool kopt_xrows_one_fp16_row(long long K, long long N) { return K * N < (8LL << 20); }

// Lane groups of 16 where a column's chunks of 32 k fit them (K / 32 <= 16),
// whole warps otherwise: a group of 32 leaves 20 of its lanes idle at K =
// 384. Measured on an H100 (2026-11-26, PERFORMANCE.md), 2 rows: 384x5120
// 3.84 -> 3.31 us, 512x7168 4.71 -> 3.69; from K = 1536 up no gain
// (3072x5120 7.42 against 7.89). Built for 2 rows there: 3 and 4 rows of
// short K take klanes.
// And at 3 and 4 rows (the 4-row bucket) on a warp of 32 where lane groups
// of 16 take 8 or 12 warps (K of 3585 to 4096 and of 5633 to 6144; the
// seed has no 11): twice the warps a block, still one chunk a lane, against
// whole warps' builds of 4 and 6 warps. Measured on an H200 (2026-11-29,
// PERFORMANCE.md), the seed at 4 rows, us: 4096x4096 9.08 against 9.63,
// 4096x7168 13.29 against 13.64, 6144x4096 11.59 against 12.54, 6144x2048
// 7.86 against 8.22. Not where whole warps take 5 (K of 4097 to 5120),
// whose build runs three blocks an SM: mixed there (5120x3584 11.39
// against 10.73, 5120x6144 15.17 against 14.82, 5120x3072 9.60 against
// 9.72, 4608x4096 11.21 against 11.90); nor at 6 or 7 warps of 16 lanes
// (3072x5120 10.25 against 9.55, 3584x4608 10.27 against 9.66), nor at 2
// rows (5120x6144 11.96 against 10.45). The 4-row bucket's tuned shapes
// keep their builds.
constexpr long long kKoptXrowsMidLanesWarps[] = {8, 12};
constexpr long long kopt_xrows_lanes(long long K, long long rows, long long warp) {
  if (K / 32 <= 16) return 16;
  const long long warps = kopt_xrows_warps(K, KoptXrowsParams{rows, 1, 4, 16});
  if (warp == 32 && rows > 2)
    for (long long w : kKoptXrowsMidLanesWarps)
      if (warps == w) return 16;
  return 32;
}

// The register path's builds tuned on the contest shapes: where another
// column count a lane group (the seed's ROWS) or blocks an SM (OCC) was
// measured faster than the library's default choice by more than 2%, on
// an H100 (2026-11-27, PERFORMANCE.md), xrows at 2 rows with ROWS 2, 3, 4
// and 6 on all 14 shapes, then at 2 and 4 rows with OCC 2, 3 and 4 on the
// shapes the library trailed the best peer on (G = 64). Against the
// default build (4 columns, OCC 0; at 4 rows the path kopt_xrows_preferred
// picks), us:
//   2 rows  7168x9216  6 columns: 18.81 against 19.37   7168x1536  6: 6.02 against 6.94
//           5120x6144  3: 11.00 against 11.28            5120x3584  2: 8.08 against 8.35
//           5120x768   6: 4.11 against 4.27              5120x256   2: 3.28 against 3.49
//           4608x7168  4 columns, OCC 4: 11.53 against 12.64
//   4 rows  7168x9216  4 columns, OCC 2: 26.39 against klanes's 27.57
//           5120x256   2 columns, OCC 2: 4.16 against 4.48
//           3072x5120  3 columns, OCC 4: 9.55 against 9.90
// With x as 16-bit words (X16, 2026-11-27, the seed's time), columns 2, 3,
// 4 and 6 by OCC 0, 2, 3 and 4 at 4 rows on 5120x{3584, 3072, 6144, 768}
// and 4608x7168, and at 2 rows on 5120x3072 (OCC 6 too); the default stayed
// the fastest on 5120x3584, 5120x3072 and 5120x6144 at 4 rows, and the
// entries above were not probed again:
//   2 rows  5120x3072  3 columns, OCC 4: 6.92 against 7.29
//   4 rows  5120x768   6 columns: 5.25 against 5.54
//           4608x7168  2 columns: 16.85 against 17.45 (klanes in the library: 17.32)
// No rule by K and N alone picks these (one wave of tiles at 7168x1536,
// not at 5120x6144, where six columns are the slowest), so elsewhere the
// default stays, the choice measured best on most shapes.
// At 8 rows (5 to 8: the 8-row bucket) the register path runs only the
// shapes where it was measured faster than klanes's 8-row build, in blocks
// alone on an SM (two of five to seven warps do not fit: a lane needs 223 to
// 255 registers at K of 5120 to 7168). On an H100 (2026-12-07,
// PERFORMANCE.md), the seed at 8 rows (OCC 1, BATCH 8, one tile ahead at
// four columns, two at two (the build takes three, kopt_xrows_ahead), x
// converted before the first weights are requested) against the library's
// example, us: 7168x1536 4 columns 11.02 against 11.68, 7168x1024 4 columns
// 8.86 against 9.39, 5120x256 2 columns 5.43 against 5.91; slower on the
// eleven other contest shapes (5120x6144 27.77 against 20.07, 384x5120 19.06
// against 4.72). The library with these builds against the one before, on an
// H100 (2026-12-07, PERFORMANCE.md), the better of two rounds: 8 rows of
// 7168x1536 11.62 -> 10.80, 7168x1024 9.39 -> 8.73, 5120x256 5.88 -> 5.28; 5
// rows 11.20 -> 10.22, 9.09 -> 8.08, 5.75 -> 5.06; 6 rows 8-12% faster too.
struct KoptXrowsTuned {
  long long rows, K, N, cols, occ;  // rows: the bucket (2, 4 or 8)
};
constexpr KoptXrowsTuned kKoptXrowsTuned[] = {
    {2, 7168, 9216, 6, 0}, {2, 7168, 1536, 6, 0}, {2, 5120, 6144, 3, 0}, {2, 5120, 3584, 2, 0},
    {2, 5120, 768, 6, 0},  {2, 5120, 256, 2, 0},  {2, 4608, 7168, 4, 4}, {4, 7168, 9216, 4, 2},
    {4, 5120, 256, 2, 2},  {4, 3072, 5120, 3, 4}, {2, 5120, 3072, 3, 4}, {4, 5120, 768, 6, 0},
    {4, 4608, 7168, 2, 0}, {8, 7168, 1536, 4, 1}, {8, 7168, 1024, 4, 1}, {8, 5120, 256, 2, 1}};
// The tuned build's parameters for `rows` rows (in the smallest bucket
// that holds them) of K x N; nullptr where the default choice serves it.
inline const KoptXrowsTuned* kopt_xrows_tuned(long long rows, long long K, long long N) {
  const long long bucket = kopt_smallest_bucket(kKoptXrowsBuckets, rows);
  for (const KoptXrowsTuned& t : kKoptXrowsTuned)
    if (t.rows == bucket && t.K == K && t.N == N) return &t;
  return nullptr;
}

// Tiles a block of the register path walks between its barriers (the
// seed's BATCH): eight in blocks of at most five warps of 32 lanes, whose
// warps then add their sums once every eight tiles (every tile of most
// blocks) rather than waiting for the slowest warp at every tile; one
// elsewhere. Measured on an H200 (2026-11-30, PERFORMANCE.md), the library
// with every build at eight against one, the better of two rounds, us:
// 4 rows of 5120x3072 9.59 -> 9.15, 5120x6144 15.04 -> 14.47, 3072x5120
// 9.06 -> 8.90; 2 rows of 5120x3584 7.59 -> 7.32, 1536x6144 5.65 -> 5.37.
// Slower with more warps or lane groups of 16 (why was not measured):
// 7168x9216 (seven warps) at 4 rows 25.38 -> 26.95, at 2 rows 17.95 ->
// 18.69; 4096x7168 at 4 rows (eight warps of 16 lanes) 13.04 -> 13.53.
// The 8-row builds take eight at any warps: on an H100 (2026-12-07,
// PERFORMANCE.md), the seed at 8 rows in seven warps, eight against one,
// us: 7168x1536 11.02 against 11.20, 7168x1024 8.79 against 9.04. A
// wavefront of 64 keeps one, which gfx906 was measured and checked for
// scratch with.
constexpr long long kKoptXrowsBatchTiles = 8;
constexpr long long kKoptXrowsBatchMostWarps = 5;
constexpr long long kopt_xrows_batch(long long rows, long long warps, long long lanes,
                                     long long warp) {
  return warp == 32 && lanes == 32 &&
                 (warps <= kKoptXrowsBatchMostWarps || rows == kKoptXrowsMaxRows)
             ? kKoptXrowsBatchTiles
             : 1;
}

// The contract's estimate of a lane's registers: 18 a row of x, 5 a column
// for each tile of the ring of loads, 40 more.
constexpr long long kopt_xrows_registers(const KoptXrowsParams& p) {
  return 18 * p.rows + 5 * (p.ahead + 1) * p.cols + 40;
}

// The contract's "requires" without the row capacity: whole chunks, one
// chunk a lane, a block's registers within 64K (and on a wavefront of 64,
// within what a lane has when a SIMD holds cdiv(warps, 4) of the block's).
inline bool kopt_xrows_supported(const KoptXrowsParams& p, long long K, long long G,
                                 long long warp) {
  const long long registers = kopt_xrows_registers(p);
  return K % 32 == 0 && G % 32 == 0 && p.lanes <= warp && K / 32 <= p.lanes * p.warps &&
         warp * p.warps <= 1024 && warp * p.warps * registers <= 65536 &&
         (warp == 32 || registers * kopt_cdiv(p.warps, 4) <= 256);
}

// Blocks an SM holds (the contract's and the launch bounds' count): OCC, or
// (0) as many as the register estimate lets an SM hold, at most 32 warps.
constexpr long long kopt_xrows_blocks_an_sm(const KoptXrowsParams& p, long long warp) {
  return p.occ > 0 ? p.occ
                   : kopt_max(1, kopt_min(32 / p.warps,
                                          65536 / (warp * p.warps * kopt_xrows_registers(p))));
}

// The registers a lane may use under the launch bounds those blocks set.
constexpr long long kopt_xrows_register_cap(const KoptXrowsParams& p, long long warp) {
  return kopt_min(255, 65536 / (warp * p.warps * kopt_xrows_blocks_an_sm(p, warp)));
}

// The tiles a lane loads ahead (the seed's AHEAD): three where a block of
// at most eight warps runs alone on an SM (the launch bounds leave a lane
// all 255 registers), one elsewhere. Measured on an H200 (2026-11-30,
// PERFORMANCE.md), the seed at 4 rows with the weights requested before x's
// conversion, three tiles ahead against one, us (its first form, whose
// ring was refilled after a tile's dots): 7168x1536 (seven warps) 7.54 ->
// 7.24, 7168x1024 6.10 -> 5.87, 7168x2048 8.95 -> 8.53, 4096x7168 (eight
// warps of 16 lanes) 12.92 -> 12.78; where the registers are fewer the
// ring spilled and was much slower (6144x4096, twelve warps of 16 lanes,
// 11.23 -> 15.55; 2 rows of 7168x9216, two blocks an SM, 17.53 -> 22.61).
// The library with both rules against the builds before: 4 rows of
// 7168x1536 7.59 -> 7.40, 4096x7168 13.10 -> 12.82. And only where the
// estimate at three tiles fits those 255: not at 8 rows of four columns
// (264), which take one (kKoptXrowsTuned). On an H100 (2026-12-07,
// PERFORMANCE.md), the 8-row builds, us: two columns three tiles ahead
// against two, 5120x256 5.33 against 5.41; four columns two ahead against
// one within 2% (7168x1536 10.81 against 11.02, 7168x1024 8.70 against
// 8.79), so one stays. `p` as built with one tile ahead. On a wavefront
// of 64, one (not measured there).
constexpr long long kKoptXrowsMostAhead = 3;
constexpr long long kopt_xrows_ahead(const KoptXrowsParams& p, long long warp) {
  KoptXrowsParams most = p;
  most.ahead = kKoptXrowsMostAhead;
  return warp == 32 && kopt_xrows_blocks_an_sm(p, warp) == 1 &&
                 kopt_xrows_register_cap(p, warp) >= 255 && kopt_xrows_registers(most) <= 255
             ? kKoptXrowsMostAhead
             : 1;
}

// Whether a lane requests its first tiles' weights before it converts x
// (the seed's EARLY): where the launch bounds leave it at least 16
// registers past the estimate. Measured on an H200 (2026-11-30,
// PERFORMANCE.md), the library with this rule and kopt_xrows_ahead against
// the builds before (x converted, then the weights requested), us: 2 rows
// of 5120x6144 10.13 -> 9.73; 3 rows of 3072x5120 8.61 -> 8.31, 6144x4096
// 11.16 -> 10.68; 4 rows of 5120x768 5.17 -> 5.01; slower, 5120x256 at 3
// and 4 rows (3.93 -> 4.10) and 7168x1024 at 2 rows (4.52 -> 4.65). (Builds
// the rules leave as before moved too, by their code alone: 2 rows of
// 7168x9216 18.29 -> 17.86, 4096x7168 9.37 -> 9.48.) Where the registers
// are fewer the builds spill: in the
// seed's first form (its ring refilled after a tile's dots), 4 rows of
// 7168x9216 in seven warps at OCC 2 (128 registers, 108 bytes spilled) gave
// wrong sums on the fourth tile of every block (why was not found; the
// order before verified there), and 2 rows of 4608x7168 at OCC 4 ran slower
// (10.73 -> 10.86). On a wavefront of 64, the order before (not measured
// there); nor past 4 rows, where x as loaded, held until its conversion, is
// 128 registers at 8 rows: on an H100 (2026-12-07, PERFORMANCE.md), the
// 8-row builds with it slower, us: 7168x1536 11.19 against 11.02,
// 7168x1024 9.27 against 8.79, 5120x256 5.76 against 5.33.
constexpr long long kKoptXrowsEarlyMostRows = 4;
constexpr bool kopt_xrows_early(const KoptXrowsParams& p, long long warp) {
  return warp == 32 && p.rows <= kKoptXrowsEarlyMostRows &&
         kopt_xrows_register_cap(p, warp) >= kopt_xrows_registers(p) + 16;
}

// grid and block for K x N (the seed has no shared memory to size and no workspace).
inline KoptBatchedLaunch kopt_xrows_launch(const KoptXrowsParams& p, long long N, long long warp,
                                           long long sms) {
  KoptBatchedLaunch l;
  l.grid_x =
      kopt_min(kopt_cdiv(N, (warp / p.lanes) * p.cols), sms * kopt_xrows_blocks_an_sm(p, warp));
  l.grid_y = 1;
  l.block = p.warps * warp;
  l.shared_bytes = 0;
  l.workspace_bytes = 0;
  return l;
}
