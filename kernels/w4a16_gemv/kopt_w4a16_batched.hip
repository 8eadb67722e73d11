// The library's batched kernels: the w4a16_batch problem's `klanes` seed
// (seeds/w4a16_batch/klanes.hip, included as it is) built for each M bucket
// (2 rows for long K only; 16 not on AMD) and both weight layouts it reads
// (with two column groups a warp for short K in the packed layout and for
// 16 rows in both, at 16 rows one column a warp for the shapes tuned so,
// and at 8 rows blocks of sixteen warps for those tuned so), its
// `xrows` seed for 1 (bf16), 2 and 4 rows and each number of warps of a
// block (and lane groups of 16 for 1 and 2 rows of short K and for 4 rows
// of mid-length K; and the builds tuned for some contest shapes, 8 rows
// among them), and their tables. On NVIDIA both multiply x as
// 16-bit words by dp2a.
#include "kopt_launch.h"
#include "kopt_prelude.h"
#include "kopt_w4a16_batched.h"

// Both seeds' X16 in every build (the instances take it): x as 16-bit words
// by dp2a on NVIDIA, faster at every row count the library runs them at on
// the H100 (2026-11-27, PERFORMANCE.md: klanes at 16 rows of 7168x9216 80.9
// -> 77.2 us, 8 rows 40.7 -> 39.3; the xrows seed's contest sums 111.15 ->
// 105.64 us at 2 rows, 157.45 -> 152.89 at 4). gfx906 keeps the byte planes
// both were measured and checked for scratch with there.
#if defined(KOPT_NVIDIA)
#define KOPT_BATCHED_X16 1
#else
#define KOPT_BATCHED_X16 0
#endif

#define KOPT_KLANES_ROWS 2
#define KOPT_KLANES_LAYOUT 0
#define KOPT_KLANES_GROUPS 1
#include "kopt_w4a16_batched_instance.inc"
#define KOPT_KLANES_ROWS 4
#define KOPT_KLANES_LAYOUT 0
#define KOPT_KLANES_GROUPS 1
#include "kopt_w4a16_batched_instance.inc"
#define KOPT_KLANES_ROWS 8
#define KOPT_KLANES_LAYOUT 0
#define KOPT_KLANES_GROUPS 1
#include "kopt_w4a16_batched_instance.inc"
// 16 rows: not on AMD, where a wavefront of 64 holds a step of 8 rows at
// most in shared memory (kopt_batched_max_rows), so the build would never
// run, and it needs scratch on gfx906 (256 VGPRs).
#if !defined(KOPT_AMD)
#define KOPT_KLANES_ROWS 16
#define KOPT_KLANES_LAYOUT 0
#define KOPT_KLANES_GROUPS 1
#include "kopt_w4a16_batched_instance.inc"
#endif
// Two column groups a warp for short K and for 16 rows at any K
// (kopt_batched_groups), in the packed layout, from 4 rows (the 2-row bucket
// serves long K only).
#define KOPT_KLANES_ROWS 4
#define KOPT_KLANES_LAYOUT 0
#define KOPT_KLANES_GROUPS 2
#include "kopt_w4a16_batched_instance.inc"
#define KOPT_KLANES_ROWS 8
#define KOPT_KLANES_LAYOUT 0
#define KOPT_KLANES_GROUPS 2
#include "kopt_w4a16_batched_instance.inc"
#if !defined(KOPT_AMD)
#define KOPT_KLANES_ROWS 16
#define KOPT_KLANES_LAYOUT 0
#define KOPT_KLANES_GROUPS 2
#include "kopt_w4a16_batched_instance.inc"
// One column a warp for the 16-row shapes tuned so (kopt_batched_cols).
#define KOPT_KLANES_ROWS 16
#define KOPT_KLANES_LAYOUT 0
#define KOPT_KLANES_GROUPS 2
#define KOPT_KLANES_COLS 1
#include "kopt_w4a16_batched_instance.inc"
// Blocks of sixteen warps, one an SM, for the 8-row shapes tuned so
// (kopt_batched_choice).
#define KOPT_KLANES_ROWS 8
#define KOPT_KLANES_LAYOUT 0
#define KOPT_KLANES_GROUPS 1
#define KOPT_KLANES_WARPS 16
#define KOPT_KLANES_OCC 1
#define KOPT_KLANES_TAG _w16o1
#include "kopt_w4a16_batched_instance.inc"
#endif
#define KOPT_KLANES_ROWS 2
#define KOPT_KLANES_LAYOUT 1
#define KOPT_KLANES_GROUPS 1
#include "kopt_w4a16_batched_instance.inc"
#define KOPT_KLANES_ROWS 4
#define KOPT_KLANES_LAYOUT 1
#define KOPT_KLANES_GROUPS 1
#include "kopt_w4a16_batched_instance.inc"
#define KOPT_KLANES_ROWS 8
#define KOPT_KLANES_LAYOUT 1
#define KOPT_KLANES_GROUPS 1
#include "kopt_w4a16_batched_instance.inc"
#if !defined(KOPT_AMD)
#define KOPT_KLANES_ROWS 16
#define KOPT_KLANES_LAYOUT 1
#define KOPT_KLANES_GROUPS 1
#include "kopt_w4a16_batched_instance.inc"
// Two column groups at 16 rows in the canonical layout too: past 8 rows
// every K above a warp's chunks takes two (kopt_batched_choice), and a
// shape whose batch-1 kernel reads the canonical blob (split-K's, the
// generic pick on the longest K) runs its batched calls on this layout.
// Without it they fell back to one group: 10 rows of 17920x5120 took
// 95.6 us, with it 91.3 (H200, 2026-11-28, PERFORMANCE.md; the seed at two
// groups in its packed layout 84.7).
#define KOPT_KLANES_ROWS 16
#define KOPT_KLANES_LAYOUT 1
#define KOPT_KLANES_GROUPS 2
#include "kopt_w4a16_batched_instance.inc"
#endif

// One bf16 row (kopt_w4a16_extension.cpp, block_rows): the defaults, and
// lane groups of 16 for short K.
#define KOPT_XROWS_ROWS 1
#define KOPT_XROWS_WARPS 1
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 1
#define KOPT_XROWS_WARPS 2
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 1
#define KOPT_XROWS_WARPS 3
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 1
#define KOPT_XROWS_WARPS 4
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 1
#define KOPT_XROWS_WARPS 5
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 1
#define KOPT_XROWS_WARPS 6
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 1
#define KOPT_XROWS_WARPS 7
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 1
#define KOPT_XROWS_WARPS 8
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 1
#define KOPT_XROWS_WARPS 1
#define KOPT_XROWS_LANES 16
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 2
#define KOPT_XROWS_WARPS 1
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 2
#define KOPT_XROWS_WARPS 2
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 2
#define KOPT_XROWS_WARPS 3
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 2
#define KOPT_XROWS_WARPS 4
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 2
#define KOPT_XROWS_WARPS 5
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 2
#define KOPT_XROWS_WARPS 6
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 2
#define KOPT_XROWS_WARPS 7
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 2
#define KOPT_XROWS_WARPS 8
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
// Short K (kopt_xrows_lanes): lane groups of 16, a column's chunks filling them.
#define KOPT_XROWS_ROWS 2
#define KOPT_XROWS_WARPS 1
#define KOPT_XROWS_LANES 16
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
// The builds tuned for some shapes (kopt_xrows_tuned); on NVIDIA only,
// where they were measured (six columns exceed a gfx906 lane's registers
// at five warps, and OCC counts waves a SIMD there).
#if !defined(KOPT_AMD)
#define KOPT_XROWS_ROWS 2
#define KOPT_XROWS_WARPS 5
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#define KOPT_XROWS_COLS 2
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 2
#define KOPT_XROWS_WARPS 5
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#define KOPT_XROWS_COLS 3
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 2
#define KOPT_XROWS_WARPS 5
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#define KOPT_XROWS_COLS 6
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 2
#define KOPT_XROWS_WARPS 5
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 4
#define KOPT_XROWS_COLS 4
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 2
#define KOPT_XROWS_WARPS 7
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#define KOPT_XROWS_COLS 6
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 2
#define KOPT_XROWS_WARPS 5
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 4
#define KOPT_XROWS_COLS 3
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 4
#define KOPT_XROWS_WARPS 3
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 4
#define KOPT_XROWS_COLS 3
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 4
#define KOPT_XROWS_WARPS 5
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 2
#define KOPT_XROWS_COLS 2
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 4
#define KOPT_XROWS_WARPS 7
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 2
#define KOPT_XROWS_COLS 4
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 4
#define KOPT_XROWS_WARPS 5
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#define KOPT_XROWS_COLS 2
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 4
#define KOPT_XROWS_WARPS 5
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#define KOPT_XROWS_COLS 6
#include "kopt_w4a16_xrows_instance.inc"
// 8 rows, one block an SM: 7168x1536 and 7168x1024 (seven warps, four
// columns), 5120x256 (five warps, two columns).
#define KOPT_XROWS_ROWS 8
#define KOPT_XROWS_WARPS 7
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 1
#define KOPT_XROWS_COLS 4
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 8
#define KOPT_XROWS_WARPS 5
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 1
#define KOPT_XROWS_COLS 2
#include "kopt_w4a16_xrows_instance.inc"
#endif
#define KOPT_XROWS_ROWS 4
#define KOPT_XROWS_WARPS 1
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 4
#define KOPT_XROWS_WARPS 2
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 4
#define KOPT_XROWS_WARPS 3
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 4
#define KOPT_XROWS_WARPS 4
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
// 4 rows with more than four wavefronts of 64 a block would need more than
// the 128 registers a lane has then on gfx906 (kopt_xrows_supported): not built there.
#if !defined(KOPT_AMD)
// Five warps (K of 4097 to 5120) with three blocks an SM, not the two the
// register estimate gives (168 registers a lane). Measured on an H100
// (2026-11-26, PERFORMANCE.md), 4 rows, against the estimate's: 5120x3584
// 12.50 -> 11.05 us, 5120x3072 10.60 -> 9.99, 5120x6144 16.55 -> 15.54,
// 4608x7168 18.42 -> 18.05 (at 2 rows the estimate already gives three).
#define KOPT_XROWS_ROWS 4
#define KOPT_XROWS_WARPS 5
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 3
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 4
#define KOPT_XROWS_WARPS 6
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 4
#define KOPT_XROWS_WARPS 7
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 4
#define KOPT_XROWS_WARPS 8
#define KOPT_XROWS_LANES 32
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
// Lane groups of 16 at 3 and 4 rows of mid-length K (kopt_xrows_lanes,
// kKoptXrowsMidLanesWarps), where they were measured: on NVIDIA.
#define KOPT_XROWS_ROWS 4
#define KOPT_XROWS_WARPS 8
#define KOPT_XROWS_LANES 16
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#define KOPT_XROWS_ROWS 4
#define KOPT_XROWS_WARPS 12
#define KOPT_XROWS_LANES 16
#define KOPT_XROWS_OCC 0
#include "kopt_w4a16_xrows_instance.inc"
#endif

#if KOPT_HOST_PASS
constexpr KoptBatchedKernel kKoptBatchedKernels[] = {
    {kopt_klanes_m2_0_g1_c2_build::kParams, kopt_klanes_m2_0_g1_c2_build::call, kopt_klanes_m2_0_g1_c2_build::lay_out},
    {kopt_klanes_m4_0_g1_c2_build::kParams, kopt_klanes_m4_0_g1_c2_build::call, kopt_klanes_m4_0_g1_c2_build::lay_out},
    {kopt_klanes_m8_0_g1_c2_build::kParams, kopt_klanes_m8_0_g1_c2_build::call, kopt_klanes_m8_0_g1_c2_build::lay_out},
#if !defined(KOPT_AMD)
    {kopt_klanes_m16_0_g1_c2_build::kParams, kopt_klanes_m16_0_g1_c2_build::call, kopt_klanes_m16_0_g1_c2_build::lay_out},
#endif
    {kopt_klanes_m2_1_g1_c2_build::kParams, kopt_klanes_m2_1_g1_c2_build::call, kopt_klanes_m2_1_g1_c2_build::lay_out},
    {kopt_klanes_m4_1_g1_c2_build::kParams, kopt_klanes_m4_1_g1_c2_build::call, kopt_klanes_m4_1_g1_c2_build::lay_out},
    {kopt_klanes_m8_1_g1_c2_build::kParams, kopt_klanes_m8_1_g1_c2_build::call, kopt_klanes_m8_1_g1_c2_build::lay_out},
#if !defined(KOPT_AMD)
    {kopt_klanes_m16_1_g1_c2_build::kParams, kopt_klanes_m16_1_g1_c2_build::call, kopt_klanes_m16_1_g1_c2_build::lay_out},
    {kopt_klanes_m16_1_g2_c2_build::kParams, kopt_klanes_m16_1_g2_c2_build::call, kopt_klanes_m16_1_g2_c2_build::lay_out},
#endif
    {kopt_klanes_m4_0_g2_c2_build::kParams, kopt_klanes_m4_0_g2_c2_build::call, kopt_klanes_m4_0_g2_c2_build::lay_out},
    {kopt_klanes_m8_0_g2_c2_build::kParams, kopt_klanes_m8_0_g2_c2_build::call, kopt_klanes_m8_0_g2_c2_build::lay_out},
#if !defined(KOPT_AMD)
    {kopt_klanes_m16_0_g2_c2_build::kParams, kopt_klanes_m16_0_g2_c2_build::call, kopt_klanes_m16_0_g2_c2_build::lay_out},
    {kopt_klanes_m16_0_g2_c1_build::kParams, kopt_klanes_m16_0_g2_c1_build::call, kopt_klanes_m16_0_g2_c1_build::lay_out},
    {kopt_klanes_m8_0_g1_c2_w16o1_build::kParams, kopt_klanes_m8_0_g1_c2_w16o1_build::call,
     kopt_klanes_m8_0_g1_c2_w16o1_build::lay_out},
#endif
    {{0, 0}, nullptr, nullptr}};

// The first build (the smallest bucket) that holds p's rows with p's
// layout, column groups, columns, warps and OCC; nullptr for none.
constexpr const KoptBatchedKernel* kopt_batched_build_of(const KoptBatchedParams& p) {
  for (const KoptBatchedKernel* k = kKoptBatchedKernels; k->call; ++k)
    if (k->params.layout == p.layout && k->params.rows >= p.rows && k->params.groups == p.groups &&
        k->params.cols == p.cols && k->params.warps == p.warps && k->params.occ == p.occ)
      return k;
  return nullptr;
}

#if !defined(KOPT_AMD)
// Build-time checks that the library's choices have their builds: a choice
// without one falls back to the usual build without a word (one group at 16
// rows in the canonical layout cost 10 rows of 17920x5120 5%: the build
// above). NVIDIA only, where the tuned table applies and the 16-row builds
// are. Whether the choice for `rows` rows of K x N in `layout` on a warp of
// 32 has a build of its own bucket:
constexpr bool kopt_batched_choice_built(long long rows, long long layout, long long K,
                                         long long N) {
  const KoptBatchedKernel* k = kopt_batched_build_of(kopt_batched_choice(rows, layout, K, N, 32));
  return k && k->params.rows == rows;
}
// each entry of the tuned table, in the packed layout (the batch-1 kernels of
// the shapes tuned hold their weights so);
constexpr bool kopt_tuned_choices_built() {
  for (const KoptBatchedTuned& t : kKoptBatchedTuned)
    if (!kopt_batched_choice_built(t.bucket, 0, t.K, t.N)) return false;
  return true;
}
static_assert(kopt_tuned_choices_built(), "a kKoptBatchedTuned entry has no build");
// the choice for a shape no entry is tuned for, in both layouts at every
// bucket (one group up to 8 rows at long K, two past them; two with
// two-step slices at 8 rows of mid-size shapes, one at 2 to 4 rows of
// longer K).
constexpr bool kopt_untuned_choices_built() {
  for (const long long rows : kKoptBatchedBuckets)
    for (const long long layout : {0LL, 1LL})
      if (!kopt_batched_choice_built(rows, layout, 8192, 8192) ||
          !kopt_batched_choice_built(rows, layout, 4096, 4096) ||
          !kopt_batched_choice_built(rows, layout, 14336, 4096))
        return false;
  return true;
}
static_assert(kopt_untuned_choices_built(), "a bucket's choice for an untuned shape has no build");
#endif

const KoptBatchedKernel* kopt_batched_kernel(long long rows, long long layout, long long K,
                                             long long N, long long warp, long long* xs) {
  const KoptBatchedParams choice = kopt_batched_choice(rows, layout, K, N, warp);
  if (const KoptBatchedKernel* k = kopt_batched_build_of(choice)) {
    if (xs) *xs = choice.xs;
    return k;
  }
  // Two groups at 4 and 8 rows in the canonical layout, one column and
  // other blocks are built for some buckets and layouts only: the usual
  // build serves the rest.
  if (xs) *xs = 0;
  return kopt_batched_build_of(kopt_batched_usual(rows, layout, warp));
}

long long kopt_batched_workspace_bytes(long long rows, long long layout, long long K, long long N,
                                       long long warp, long long sms) {
  long long most = 0;
  for (long long bucket : kKoptBatchedBuckets) {
    if (bucket > rows) break;
    long long xs = 0;
    const KoptBatchedKernel* k = kopt_batched_kernel(bucket, layout, K, N, warp, &xs);
    if (!k) continue;
    KoptBatchedParams p = k->params;
    p.xs = xs;
    most = kopt_max(most, kopt_batched_launch(p, bucket, K, N, warp, sms).workspace_bytes);
  }
  return most;
}

long long kopt_batched_built_rows() {
  long long most = 0;
  for (const KoptBatchedKernel* k = kKoptBatchedKernels; k->call; ++k)
    most = k->params.rows > most ? k->params.rows : most;
  return most;
}

constexpr KoptXrowsKernel kKoptXrowsKernels[] = {
    {kopt_xrows_m1_1_l32_c4_o0_build::kParams, false, kopt_xrows_m1_1_l32_c4_o0_build::call},
    {kopt_xrows_m1_2_l32_c4_o0_build::kParams, false, kopt_xrows_m1_2_l32_c4_o0_build::call},
    {kopt_xrows_m1_3_l32_c4_o0_build::kParams, false, kopt_xrows_m1_3_l32_c4_o0_build::call},
    {kopt_xrows_m1_4_l32_c4_o0_build::kParams, false, kopt_xrows_m1_4_l32_c4_o0_build::call},
    {kopt_xrows_m1_5_l32_c4_o0_build::kParams, false, kopt_xrows_m1_5_l32_c4_o0_build::call},
    {kopt_xrows_m1_6_l32_c4_o0_build::kParams, false, kopt_xrows_m1_6_l32_c4_o0_build::call},
    {kopt_xrows_m1_7_l32_c4_o0_build::kParams, false, kopt_xrows_m1_7_l32_c4_o0_build::call},
    {kopt_xrows_m1_8_l32_c4_o0_build::kParams, false, kopt_xrows_m1_8_l32_c4_o0_build::call},
    {kopt_xrows_m1_1_l16_c4_o0_build::kParams, false, kopt_xrows_m1_1_l16_c4_o0_build::call},
    {kopt_xrows_m2_1_l32_c4_o0_build::kParams, false, kopt_xrows_m2_1_l32_c4_o0_build::call},
    {kopt_xrows_m2_2_l32_c4_o0_build::kParams, false, kopt_xrows_m2_2_l32_c4_o0_build::call},
    {kopt_xrows_m2_3_l32_c4_o0_build::kParams, false, kopt_xrows_m2_3_l32_c4_o0_build::call},
    {kopt_xrows_m2_4_l32_c4_o0_build::kParams, false, kopt_xrows_m2_4_l32_c4_o0_build::call},
    {kopt_xrows_m2_5_l32_c4_o0_build::kParams, false, kopt_xrows_m2_5_l32_c4_o0_build::call},
    {kopt_xrows_m2_6_l32_c4_o0_build::kParams, false, kopt_xrows_m2_6_l32_c4_o0_build::call},
    {kopt_xrows_m2_7_l32_c4_o0_build::kParams, false, kopt_xrows_m2_7_l32_c4_o0_build::call},
    {kopt_xrows_m2_8_l32_c4_o0_build::kParams, false, kopt_xrows_m2_8_l32_c4_o0_build::call},
    {kopt_xrows_m2_1_l16_c4_o0_build::kParams, false, kopt_xrows_m2_1_l16_c4_o0_build::call},
    {kopt_xrows_m4_1_l32_c4_o0_build::kParams, false, kopt_xrows_m4_1_l32_c4_o0_build::call},
    {kopt_xrows_m4_2_l32_c4_o0_build::kParams, false, kopt_xrows_m4_2_l32_c4_o0_build::call},
    {kopt_xrows_m4_3_l32_c4_o0_build::kParams, false, kopt_xrows_m4_3_l32_c4_o0_build::call},
    {kopt_xrows_m4_4_l32_c4_o0_build::kParams, false, kopt_xrows_m4_4_l32_c4_o0_build::call},
#if !defined(KOPT_AMD)
    {kopt_xrows_m4_5_l32_c4_o3_build::kParams, false, kopt_xrows_m4_5_l32_c4_o3_build::call},
    {kopt_xrows_m4_6_l32_c4_o0_build::kParams, false, kopt_xrows_m4_6_l32_c4_o0_build::call},
    {kopt_xrows_m4_7_l32_c4_o0_build::kParams, false, kopt_xrows_m4_7_l32_c4_o0_build::call},
    {kopt_xrows_m4_8_l32_c4_o0_build::kParams, false, kopt_xrows_m4_8_l32_c4_o0_build::call},
    {kopt_xrows_m4_8_l16_c4_o0_build::kParams, false, kopt_xrows_m4_8_l16_c4_o0_build::call},
    {kopt_xrows_m4_12_l16_c4_o0_build::kParams, false, kopt_xrows_m4_12_l16_c4_o0_build::call},
#endif
#if !defined(KOPT_AMD)
    {kopt_xrows_m2_5_l32_c2_o0_build::kParams, true, kopt_xrows_m2_5_l32_c2_o0_build::call},
    {kopt_xrows_m2_5_l32_c3_o0_build::kParams, true, kopt_xrows_m2_5_l32_c3_o0_build::call},
    {kopt_xrows_m2_5_l32_c6_o0_build::kParams, true, kopt_xrows_m2_5_l32_c6_o0_build::call},
    {kopt_xrows_m2_5_l32_c4_o4_build::kParams, true, kopt_xrows_m2_5_l32_c4_o4_build::call},
    {kopt_xrows_m2_7_l32_c6_o0_build::kParams, true, kopt_xrows_m2_7_l32_c6_o0_build::call},
    {kopt_xrows_m4_3_l32_c3_o4_build::kParams, true, kopt_xrows_m4_3_l32_c3_o4_build::call},
    {kopt_xrows_m4_5_l32_c2_o2_build::kParams, true, kopt_xrows_m4_5_l32_c2_o2_build::call},
    {kopt_xrows_m4_7_l32_c4_o2_build::kParams, true, kopt_xrows_m4_7_l32_c4_o2_build::call},
    {kopt_xrows_m2_5_l32_c3_o4_build::kParams, true, kopt_xrows_m2_5_l32_c3_o4_build::call},
    {kopt_xrows_m4_5_l32_c2_o0_build::kParams, true, kopt_xrows_m4_5_l32_c2_o0_build::call},
    {kopt_xrows_m4_5_l32_c6_o0_build::kParams, true, kopt_xrows_m4_5_l32_c6_o0_build::call},
    {kopt_xrows_m8_7_l32_c4_o1_build::kParams, true, kopt_xrows_m8_7_l32_c4_o1_build::call},
    {kopt_xrows_m8_5_l32_c2_o1_build::kParams, true, kopt_xrows_m8_5_l32_c2_o1_build::call},
#endif
    {{0, 0}, false, nullptr}};

// The tuned build of a tuned shape: its bucket's rows, its columns and OCC,
// whole warps of lanes for its K.
constexpr bool kopt_xrows_builds_tuned(const KoptXrowsKernel& k, const KoptXrowsTuned& t) {
  return k.tuned && k.params.rows == t.rows && k.params.cols == t.cols && k.params.occ == t.occ &&
         k.params.lanes == 32 && k.params.warps == kopt_xrows_warps(t.K, k.params);
}
#if !defined(KOPT_AMD)
// Each tuned shape has its tuned build; NVIDIA only, where they are built.
static_assert(kopt_each_entry_has_a_build(kKoptXrowsTuned, kKoptXrowsKernels,
                                          kopt_xrows_builds_tuned),
              "a kKoptXrowsTuned entry has no tuned build");
// Each warp count of the mid-length lane groups of 16 has its 4-row build
// (without one, kopt_xrows_kernel would take whole warps there unsaid).
constexpr bool kopt_xrows_builds_mid_lanes(const KoptXrowsKernel& k, long long warps) {
  return !k.tuned && k.params.rows == 4 && k.params.lanes == 16 && k.params.warps == warps &&
         k.params.cols == 4 && k.params.occ == 0;
}
static_assert(kopt_each_entry_has_a_build(kKoptXrowsMidLanesWarps, kKoptXrowsKernels,
                                          kopt_xrows_builds_mid_lanes),
              "a warp count of kKoptXrowsMidLanesWarps has no 4-row build in lane groups of 16");
#endif

const KoptXrowsKernel* kopt_xrows_kernel(long long rows, long long K, long long N, long long G,
                                         long long warp) {
  auto serves = [&](const KoptXrowsKernel& k, long long lanes) {
    return k.params.rows >= rows && k.params.lanes == lanes &&
           k.params.warps == kopt_xrows_warps(K, k.params) &&
           kopt_xrows_supported(k.params, K, G, warp);
  };
  if (const KoptXrowsTuned* t = kopt_xrows_tuned(rows, K, N))
    for (const KoptXrowsKernel* k = kKoptXrowsKernels; k->call; ++k)
      if (kopt_xrows_builds_tuned(*k, *t) && kopt_xrows_supported(k->params, K, G, warp)) return k;
  if (!kopt_xrows_preferred(rows, K, N)) return nullptr;
  // The lane groups K takes, then (where no bucket that holds the rows is
  // built with them) whole warps.
  for (const long long lanes : {kopt_xrows_lanes(K, rows, warp), 32LL})
    for (const KoptXrowsKernel* k = kKoptXrowsKernels; k->call; ++k)
      if (!k->tuned && serves(*k, lanes)) return k;
  return nullptr;
}
#endif
