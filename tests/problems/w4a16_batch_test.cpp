// The batched W4A16 problem without a GPU: seeds that pass the source rules
// and compile for sm_90 and gfx906 without scratch, and the library's
// batched launches and rules against the seeds' contracts. What both
// batched problems share (shapes, reference, suites, the row-0 kernel) is
// tests/problems/row_batch_test.cpp.
#include "problems/w4a16_batch/w4a16_batch.h"

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <set>
#include <string>

#include "kernels/w4a16_gemv/kopt_w4a16_batched_plan.h"
#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "sandbox/contract/candidate.h"
#include "sandbox/contract/prelude.h"
#include "sandbox/contract/static_checks.h"
#include "sandbox/worker/host_device.h"
#include "sandbox/worker/rtc.h"
#include "sandbox/worker/verification.h"
#include "tests/problems/seed_corners.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

const Problem& batch() { return *find_problem(w4a16_batch::kId); }

// Every seed, and the tile seed's knobs at their edges, passes the source
// rules, compiles for sm_90 and (where the toolchain is) for gfx906 without
// scratch.
TEST(W4a16BatchTest, SeedsAndKnobsCompileForBothTargetsWithoutScratch) {
  // Each seed's defaults and the corners of its knobs (rows has none).
  const test::KnobCorners knobs = {
      {"rows", {{}}},
      {"tile",
       {{},
        {{"MR", 16}, {"COLS", 2}, {"WARPS", 4}},
        {{"MR", 1}, {"COLS", 1}, {"WARPS", 1}},
        {{"MR", 4}, {"COLS", 8}, {"WARPS", 4}},
        {{"SPLIT", 4}}}},
      {"klanes",
       {{},
        {{"MR", 8}, {"WARPS", 4}},
        {{"MR", 8}, {"WARPS", 4}, {"LAYOUT", 1}},
        {{"MR", 4}, {"WARPS", 4}},
        {{"MR", 4}, {"WARPS", 4}, {"LAYOUT", 1}},
        {{"MR", 16}, {"COLS", 1}, {"DEPTH", 4}},
        {{"MR", 2}, {"COLS", 4}, {"WARPS", 2}, {"XS", 4}},
        {{"MR", 1}, {"COLS", 1}, {"DEPTH", 8}, {"CT", 16}},
        {{"MR", 8}, {"WARPS", 4}, {"GROUPS", 2}},
        {{"MR", 8}, {"WARPS", 4}, {"GROUPS", 4}, {"LAYOUT", 1}},
        {{"MR", 4}, {"WARPS", 4}, {"COLS", 4}, {"GROUPS", 2}},
        {{"MR", 16}, {"X16", 1}},
        {{"MR", 8}, {"WARPS", 4}, {"GROUPS", 2}, {"X16", 1}},
        {{"MR", 4}, {"WARPS", 4}, {"LAYOUT", 1}, {"X16", 1}},
        {{"MR", 8}, {"WARPS", 4}, {"X16", 1}, {"OCC", 4}},
        {{"MR", 4}, {"WARPS", 2}, {"OCC", 1}}}},
      {"ncols",
       {{},
        {{"MR", 16}, {"COLS", 1}, {"WARPS", 8}, {"DEPTH", 1}, {"KL", 1}},
        {{"MR", 8}, {"COLS", 2}, {"DEPTH", 4}, {"KL", 16}},
        {{"MR", 4}, {"COLS", 1}, {"DEPTH", 8}, {"KL", 4}},
        {{"MR", 2}, {"COLS", 2}, {"WARPS", 1}, {"SPLIT", 32}, {"KL", 2}},
        {{"MR", 1}, {"COLS", 4}, {"DEPTH", 1}, {"SPLIT", 1}}}},
      {"xrows",
       {{},
        {{"MR", 4}, {"ROWS", 3}, {"KSPLIT", 4}},
        {{"MR", 4}, {"ROWS", 8}, {"KSPLIT", 7}, {"LPR", 32}},
        {{"MR", 2}, {"ROWS", 6}, {"KSPLIT", 14}, {"LPR", 16}, {"OCC", 1}},
        {{"MR", 1}, {"ROWS", 1}, {"KSPLIT", 16}, {"LPR", 16}},
        {{"MR", 4}, {"ROWS", 4}, {"KSPLIT", 7}, {"X16", 1}},
        {{"MR", 2}, {"ROWS", 6}, {"KSPLIT", 14}, {"LPR", 16}, {"OCC", 1}, {"X16", 1}},
        {{"MR", 4}, {"ROWS", 4}, {"KSPLIT", 7}, {"X16", 1}, {"BATCH", 8}},
        {{"MR", 2}, {"ROWS", 6}, {"KSPLIT", 14}, {"LPR", 16}, {"OCC", 1}, {"BATCH", 8}}}}};
  // M within every corner's MR.
  test::expect_seeds_compile_without_scratch(batch(), knobs, w4a16_batch::shape(1, 7168, 9216));
}

// The register path's builds walk eight tiles between barriers in blocks of
// at most five warps of 32 lanes on a warp of 32 (5120x3072: five warps;
// 3072x5120: three) and at 8 rows (7168x1536: seven), one in blocks of
// more warps at 2 and 4 rows (7168x9216: seven), in lane groups of 16
// (4096x7168 at 4 rows) and on a wavefront of 64.
TEST(W4a16BatchTest, TheRegisterPathBatchesItsBlockSumsOnlyInBlocksOfFewWarps) {
  EXPECT_EQ(kopt_xrows_batch(4, kopt_xrows_warps(5120, KoptXrowsParams{4, 0}), 32, 32), 8);
  EXPECT_EQ(kopt_xrows_batch(2, kopt_xrows_warps(3072, KoptXrowsParams{2, 0}), 32, 32), 8);
  EXPECT_EQ(kopt_xrows_batch(4, kopt_xrows_warps(7168, KoptXrowsParams{4, 0}), 32, 32), 1);
  EXPECT_EQ(kopt_xrows_batch(2, kopt_xrows_warps(7168, KoptXrowsParams{2, 0}), 32, 32), 1);
  EXPECT_EQ(kopt_xrows_batch(8, kopt_xrows_warps(7168, KoptXrowsParams{8, 0}), 32, 32), 8);
  EXPECT_EQ(kopt_xrows_lanes(4096, 4, 32), 16);
  EXPECT_EQ(kopt_xrows_batch(4, kopt_xrows_warps(4096, KoptXrowsParams{4, 0, 4, 16}), 16, 32), 1);
  EXPECT_EQ(kopt_xrows_batch(4, 1, 32, 64), 1);
  EXPECT_EQ(kopt_xrows_batch(8, 2, 64, 64), 1);
}

// The register path loads three tiles ahead where a block of at most eight
// warps runs alone on an SM (7168x1536 at 4 rows: seven warps), one where
// an SM holds more blocks (5120x3072: two of five warps; the 4-row build
// tuned for 7168x9216, OCC 2) or a lone block leaves a lane fewer than 255
// registers (6144x4096: twelve warps of 16 lanes); it requests the first
// tiles' weights before converting x where the launch bounds leave 16
// registers past the estimate (not at OCC 2 of seven warps, nor 2 rows of
// five warps at OCC 4); on a wavefront of 64 neither. At 8 rows, alone on
// an SM: three tiles ahead at two columns (224 registers), one at four,
// where three would be past 255 (264); x converted first.
TEST(W4a16BatchTest, TheRegisterPathLoadsAheadWhereItsRegistersAllow) {
  const KoptXrowsParams seven{4, kopt_xrows_warps(7168, KoptXrowsParams{4, 0})};
  EXPECT_EQ(kopt_xrows_ahead(seven, 32), 3);
  EXPECT_TRUE(kopt_xrows_early(KoptXrowsParams{4, 7, 4, 32, 0, 3}, 32));
  const KoptXrowsParams five{4, kopt_xrows_warps(5120, KoptXrowsParams{4, 0})};
  EXPECT_EQ(kopt_xrows_blocks_an_sm(five, 32), 2);
  EXPECT_EQ(kopt_xrows_ahead(five, 32), 1);
  EXPECT_TRUE(kopt_xrows_early(five, 32));
  const KoptXrowsParams tuned{4, 7, 4, 32, 2};
  EXPECT_EQ(kopt_xrows_ahead(tuned, 32), 1);
  EXPECT_FALSE(kopt_xrows_early(tuned, 32));
  const KoptXrowsParams twelve{4, kopt_xrows_warps(6144, KoptXrowsParams{4, 0, 4, 16}), 4, 16};
  EXPECT_EQ(kopt_xrows_blocks_an_sm(twelve, 32), 1);
  EXPECT_EQ(kopt_xrows_ahead(twelve, 32), 1);
  EXPECT_FALSE(kopt_xrows_early(KoptXrowsParams{2, 5, 4, 32, 4}, 32));
  EXPECT_EQ(kopt_xrows_ahead(KoptXrowsParams{4, 2}, 64), 1);
  EXPECT_FALSE(kopt_xrows_early(KoptXrowsParams{2, 2}, 64));
  const KoptXrowsParams eight_four{8, 7, 4, 32, 1}, eight_two{8, 5, 2, 32, 1};
  EXPECT_EQ(kopt_xrows_ahead(eight_four, 32), 1);
  EXPECT_EQ(kopt_xrows_ahead(eight_two, 32), 3);
  EXPECT_FALSE(kopt_xrows_early(eight_four, 32));
  EXPECT_FALSE(kopt_xrows_early(KoptXrowsParams{8, 5, 2, 32, 1, 3}, 32));
}

// Two rows run on the batched kernels only past K = 8192, where the weight
// stream outweighs their fixed costs; otherwise from three rows.
TEST(W4a16BatchTest, TheLibraryTakesTwoRowsToTheBatchedKernelsOnlyAtLongK) {
  EXPECT_EQ(kopt_batched_min_rows(8192), kKoptBatchedMinRows);
  EXPECT_EQ(kopt_batched_min_rows(8224), 2);
  EXPECT_EQ(kopt_batched_min_rows(18944), 2);
}

// The library launches its batched kernels with C++ written from the klanes
// seed's contract (kernels/w4a16_gemv/kopt_w4a16_batched_plan.h): it must plan what the
// contract plans, on both warp sizes, for every bucket and shapes of every
// kind (small N split over K, odd N, odd numbers of chunks, G = 32/128).
// The contract's plan of one launch is the library's: grid, block, shared
// memory and workspace (`where` names the case in a failure).
void expect_plan_is(const LaunchPlan& plan, const KoptBatchedLaunch& l, const std::string& where) {
  ASSERT_EQ(plan.launches.size(), 1u) << where;
  const ResolvedLaunch& g = plan.launches[0];
  EXPECT_EQ(g.grid[0], l.grid_x) << where;
  EXPECT_EQ(g.grid[1], l.grid_y) << where;
  EXPECT_EQ(g.block[0], l.block) << where;
  EXPECT_EQ(g.shared_bytes, l.shared_bytes) << where;
  EXPECT_EQ(plan.workspace_bytes, l.workspace_bytes) << where;
}

TEST(W4a16BatchTest, TheLibrarysBatchedLaunchIsTheContractsPlan) {
  const Seed* klanes = find_seed(batch(), "klanes");
  ASSERT_NE(klanes, nullptr);
  const std::vector<std::array<int64_t, 4>> shapes = {
      {7168, 9216, 64, 16}, {5120, 256, 64, 2}, {384, 5120, 64, 8},  {2016, 777, 32, 3},
      {4096, 100, 128, 13}, {32, 33, 32, 1},    {14336, 4096, 64, 4}};
  int checked = 0;
  for (int64_t rows : kKoptBatchedBuckets)
    for (int64_t layout : {0, 1})
      for (int64_t groups : {1, 2})
        // (OCC, COLS, SPREAD, threads a block, XS): the library's builds
        // (blocks of 512 threads for some 8-row shapes) at the contract's
        // slices of K and at two steps a slice (kopt_batched_two_step_slices),
        // and another OCC.
        for (const auto& [occ, cols, spread, threads, xs] :
             std::vector<std::array<int64_t, 5>>{{2, 2, 0, 256, 0},
                                                 {3, 2, 0, 256, 0},
                                                 {2, 2, 1, 256, 0},
                                                 {2, 1, 1, 256, 0},
                                                 {1, 2, 0, 512, 0},
                                                 {2, 2, 0, 256, 2}})
          for (const DeviceLimits limits :
               {DeviceLimits{32, 132, 1024, 48 * 1024}, DeviceLimits{64, 60, 1024, 64 * 1024}})
            for (const auto& [K, N, G, M] : shapes) {
              if (M > rows) continue;
              KoptBatchedParams p{rows, layout};
              p.warps = threads / limits.warp;  // as the library builds it for each vendor
              p.groups = groups;
              p.occ = occ;
              p.cols = cols;
              p.spread = spread;
              p.xs = xs;
              Candidate c;
              ASSERT_TRUE(parse_candidate(klanes->source,
                                          {{"MR", p.rows},
                                           {"LAYOUT", p.layout},
                                           {"COLS", p.cols},
                                           {"WARPS", p.warps},
                                           {"DEPTH", p.depth},
                                           {"XS", p.xs},
                                           {"CT", p.ct},
                                           {"GROUPS", p.groups},
                                           {"OCC", p.occ},
                                           {"SPREAD", p.spread}},
                                          &c)
                              .ok());
              LaunchPlan plan;
              ASSERT_TRUE(plan_launches(c, w4a16_batch::shape(M, K, N, G), limits, &plan).ok());
              ASSERT_EQ(plan.supported, kopt_batched_supported(p, K, G, limits.warp))
                  << K << "x" << N << " rows " << rows;
              if (!plan.supported) continue;
              const KoptBatchedLaunch l = kopt_batched_launch(p, M, K, N, limits.warp, limits.sms);
              expect_plan_is(plan, l,
                             std::to_string(K) + "x" + std::to_string(N) + "/g" +
                                 std::to_string(G) + " M " + std::to_string(M) + " OCC " +
                                 std::to_string(occ) + " COLS " + std::to_string(cols) +
                                 " SPREAD " + std::to_string(spread) + " XS " + std::to_string(xs));
              // The workspace the library allocates once (for the largest
              // bucket the device serves) holds every smaller call's.
              const long long most = kopt_batched_max_rows(K, G, limits.warp);
              // Two groups fit 16 rows of a wavefront of 64 in shared memory;
              // the library launches no more rows than one group fits (8 there).
              if (groups == 2 && most < rows) continue;
              ASSERT_GE(most, rows);
              KoptBatchedParams largest = p;
              largest.rows = most;
              EXPECT_LE(l.workspace_bytes,
                        kopt_batched_launch(largest, most, K, N, limits.warp, limits.sms)
                            .workspace_bytes);
              ++checked;
            }
  EXPECT_GT(checked, 160);
  // Two column groups where a column's chunks fit half a warp, and past 8
  // rows at any K but where they fill one warp and not half of it.
  EXPECT_EQ(kopt_batched_groups(384, 5120, 32, 8), 2);
  EXPECT_EQ(kopt_batched_groups(512, 5120, 32, 4), 2);
  EXPECT_EQ(kopt_batched_groups(544, 5120, 32, 8), 1);
  EXPECT_EQ(kopt_batched_groups(1024, 5120, 64, 5), 2);
  EXPECT_EQ(kopt_batched_groups(8192, 5120, 32, 8), 1);
  EXPECT_EQ(kopt_batched_groups(7168, 5120, 32, 9), 2);
  EXPECT_EQ(kopt_batched_groups(544, 5120, 32, 16), 1);
  EXPECT_EQ(kopt_batched_groups(640, 5120, 32, 16), 1);
  EXPECT_EQ(kopt_batched_groups(1024, 5120, 32, 16), 1);
  EXPECT_EQ(kopt_batched_groups(1056, 5120, 32, 16), 2);
  EXPECT_EQ(kopt_batched_groups(512, 5120, 32, 16), 2);
  // The contest shapes tuned against the rule, on a warp of 32 only.
  EXPECT_EQ(kopt_batched_groups(4608, 7168, 32, 8), 2);
  EXPECT_EQ(kopt_batched_groups(4608, 7168, 32, 5), 2);
  EXPECT_EQ(kopt_batched_groups(4608, 7168, 32, 4), 1);
  EXPECT_EQ(kopt_batched_groups(4608, 7168, 64, 8), 1);
  EXPECT_EQ(kopt_batched_groups(7168, 1536, 32, 16), 2);
  EXPECT_EQ(kopt_batched_groups(7168, 1536, 32, 13), 2);
  EXPECT_EQ(kopt_batched_groups(7168, 1536, 32, 8), 2);
  EXPECT_EQ(kopt_batched_groups(7168, 1536, 32, 4), 1);
  EXPECT_EQ(kopt_batched_groups(7168, 1024, 32, 6), 2);
  EXPECT_EQ(kopt_batched_groups(7168, 1024, 64, 8), 1);
  EXPECT_EQ(kopt_batched_groups(7168, 9216, 32, 16), 2);
  // Two columns a warp but where tuned: one for some shapes' 16-row bucket.
  EXPECT_EQ(kopt_batched_cols(7168, 1536, 32, 16), 1);
  EXPECT_EQ(kopt_batched_cols(7168, 1536, 32, 9), 1);
  EXPECT_EQ(kopt_batched_cols(7168, 1536, 32, 8), 2);
  EXPECT_EQ(kopt_batched_cols(7168, 1536, 64, 8), 2);
  EXPECT_EQ(kopt_batched_cols(5120, 256, 32, 16), 1);
  EXPECT_EQ(kopt_batched_cols(5120, 3072, 32, 16), 2);
  EXPECT_EQ(kopt_batched_cols(7168, 9216, 32, 16), 2);
  // The choice of M rows of K x N on a warp of `warp` lanes (the packed
  // layout unless said) as {warps, OCC, column groups, XS}: blocks of 256
  // threads, two an SM, at the contract's slices of K, but where tuned
  // (1536x6144's 8-row bucket: sixteen warps, one an SM; 5120x3584's and
  // 4608x7168's: off the rule below) and where two groups with two steps a
  // slice serve 5 to 8 rows of K 3072 to 7168 and N 768 to 10240 in the
  // packed layout on a warp of 32, and one group with two steps a slice 2
  // to 4 rows of K past 8192 up to 26624 in either layout, where the slices'
  // partial sums (slices x bucket rows x N) are at most 229376.
  auto choice = [](long long K, long long N, long long warp, long long rows, long long layout = 0) {
    const KoptBatchedParams p = kopt_batched_choice(rows, layout, K, N, warp);
    return std::array<long long, 4>{p.warps, p.occ, p.groups, p.xs};
  };
  using Choice = std::array<long long, 4>;
  EXPECT_EQ(choice(1536, 6144, 32, 8), (Choice{16, 1, 1, 0}));
  EXPECT_EQ(choice(1536, 6144, 32, 5), (Choice{16, 1, 1, 0}));
  EXPECT_EQ(choice(5120, 3584, 32, 8), (Choice{8, 2, 1, 0}));
  EXPECT_EQ(choice(4608, 7168, 32, 8), (Choice{8, 2, 2, 0}));
  EXPECT_EQ(choice(7168, 9216, 32, 8), (Choice{8, 2, 2, 2}));
  EXPECT_EQ(choice(5120, 3072, 32, 8), (Choice{8, 2, 2, 2}));
  EXPECT_EQ(choice(4096, 4096, 32, 5), (Choice{8, 2, 2, 2}));
  EXPECT_EQ(choice(3072, 5120, 32, 8), (Choice{8, 2, 2, 2}));
  EXPECT_EQ(choice(5120, 768, 32, 8), (Choice{8, 2, 2, 2}));
  EXPECT_EQ(choice(7168, 10240, 32, 6), (Choice{8, 2, 2, 2}));
  EXPECT_EQ(choice(4096, 4096, 32, 8, 1), (Choice{8, 2, 1, 0}));
  EXPECT_EQ(choice(4096, 4096, 32, 4), (Choice{8, 2, 1, 0}));
  EXPECT_EQ(choice(7168, 9216, 32, 4), (Choice{8, 2, 1, 0}));
  EXPECT_EQ(choice(7168, 9216, 32, 16), (Choice{8, 2, 2, 0}));
  EXPECT_EQ(choice(7168, 9216, 64, 8), (Choice{4, 2, 1, 0}));
  EXPECT_EQ(choice(8192, 8192, 32, 8), (Choice{8, 2, 1, 0}));
  EXPECT_EQ(choice(2048, 8192, 32, 8), (Choice{8, 2, 1, 0}));
  EXPECT_EQ(choice(4096, 28672, 32, 8), (Choice{8, 2, 1, 0}));
  EXPECT_EQ(choice(5120, 256, 32, 8), (Choice{8, 2, 1, 0}));
  EXPECT_EQ(choice(14336, 4096, 32, 2), (Choice{8, 2, 1, 2}));
  EXPECT_EQ(choice(14336, 4096, 32, 3), (Choice{8, 2, 1, 2}));
  EXPECT_EQ(choice(14336, 4096, 32, 4, 1), (Choice{8, 2, 1, 2}));
  EXPECT_EQ(choice(8224, 1536, 32, 4), (Choice{8, 2, 1, 2}));
  EXPECT_EQ(choice(26624, 3072, 32, 4), (Choice{8, 2, 1, 2}));
  EXPECT_EQ(choice(26656, 3072, 32, 2), (Choice{8, 2, 1, 0}));
  EXPECT_EQ(choice(14336, 8192, 32, 4), (Choice{8, 2, 1, 2}));  // 7 x 4 x 8192: the most
  EXPECT_EQ(choice(14336, 8224, 32, 4), (Choice{8, 2, 1, 0}));
  EXPECT_EQ(choice(20480, 7168, 32, 2), (Choice{8, 2, 1, 2}));  // 10 x 2 x 7168
  EXPECT_EQ(choice(20480, 7168, 32, 3), (Choice{8, 2, 1, 0}));  // 10 x 4 x 7168
  EXPECT_EQ(choice(24576, 6144, 32, 4), (Choice{8, 2, 1, 0}));
  EXPECT_EQ(choice(28672, 8192, 32, 4), (Choice{8, 2, 1, 0}));
  EXPECT_EQ(choice(8192, 4096, 32, 4), (Choice{8, 2, 1, 0}));
  EXPECT_EQ(choice(14336, 4096, 32, 5), (Choice{8, 2, 1, 0}));
  EXPECT_EQ(choice(14336, 4096, 32, 16), (Choice{8, 2, 2, 0}));
  EXPECT_EQ(choice(14336, 4096, 64, 4), (Choice{4, 2, 1, 0}));
  // Only the 16-row bucket spreads its column blocks.
  EXPECT_EQ(kopt_batched_spread(16), 1);
  EXPECT_EQ(kopt_batched_spread(8), 0);
  EXPECT_EQ(kopt_batched_spread(2), 0);
  // A wavefront of 64 holds 8 rows of a step in shared memory, not 16.
  EXPECT_EQ(kopt_batched_max_rows(7168, 64, 32), 16);
  EXPECT_EQ(kopt_batched_max_rows(7168, 64, 64), 8);
  EXPECT_EQ(kopt_batched_max_rows(7168 + 16, 64, 32), 0);
}

// One workspace serves every bucket of a shape though the library's builds
// differ in column groups, columns and spread (kopt_batched_workspace_bytes
// allocates the most any takes): the tickets' region at its start is the
// same size for every build, and holds a ticket for each column block of
// any of them, so no build's partial sums land on another's tickets.
TEST(W4a16BatchTest, BuildsOfOtherKnobsShareTheTicketsRegion) {
  int checked = 0;
  for (const auto& [K, N] : std::vector<std::pair<int64_t, int64_t>>{
           {7168, 9216}, {5120, 256}, {384, 5120}, {2016, 777}, {4608, 7168}, {3072, 5120}})
    for (const int64_t warp : {32, 64}) {
      long long tickets = -1;
      for (int64_t rows : kKoptBatchedBuckets)
        for (int64_t groups : {1, 2})
          for (int64_t cols : {1, 2})
            for (int64_t spread : {0, 1}) {
              KoptBatchedParams p{rows, 0};
              p.warps = 256 / warp;
              p.groups = groups;
              p.cols = cols;
              p.spread = spread;
              if (!kopt_batched_supported(p, K, 64, warp)) continue;
              const KoptBatchedLaunch l = kopt_batched_launch(p, rows, K, N, warp, 132);
              const long long mine = l.workspace_bytes - l.grid_y * rows * N * 4;
              if (tickets < 0) tickets = mine;
              EXPECT_EQ(mine, tickets) << K << "x" << N << " rows " << rows << " groups " << groups
                                       << " cols " << cols << " spread " << spread;
              EXPECT_LE(l.grid_x * 4, mine) << K << "x" << N << " rows " << rows;
              ++checked;
            }
    }
  // 96 (shapes, warp sizes, buckets, groups) less 16 rows of one group on a
  // wavefront of 64 (past shared memory), each with four (cols, spread).
  EXPECT_EQ(checked, 90 * 4);
}

// The register path (xrows, 2 to 4 rows) too: the library's rules and launch
// are the contract's, on both warp sizes, for each build (rows, warps) and
// the shapes whose K needs that many warps (one chunk of 32 k a lane).
TEST(W4a16BatchTest, TheLibrarysRegisterPathIsTheContractsPlan) {
  const Seed* xrows = find_seed(batch(), "xrows");
  ASSERT_NE(xrows, nullptr);
  const std::vector<std::array<int64_t, 3>> shapes = {
      {7168, 9216, 64}, {5120, 256, 64}, {384, 5120, 64},  {2016, 777, 32},
      {4096, 100, 128}, {32, 33, 32},    {8192, 4096, 64}, {8224, 64, 32}};
  // (lanes, blocks an SM, columns) of the library's builds.
  constexpr std::array<int64_t, 3> kBuilds[] = {{32, 0, 4}, {16, 0, 4}, {32, 3, 4}, {32, 4, 4},
                                                {32, 2, 4}, {32, 0, 2}, {32, 2, 2}, {32, 0, 3},
                                                {32, 4, 3}, {32, 0, 6}, {32, 1, 4}, {32, 1, 2}};
  std::map<std::array<int64_t, 3>, int> checked_on_nvidia;
  for (int64_t rows : kKoptXrowsBuckets)
    for (int64_t warps = 1; warps <= kKoptXrowsMaxWarps; ++warps)
      for (const std::array<int64_t, 3>& build : kBuilds)
        for (const DeviceLimits limits :
             {DeviceLimits{32, 132, 1024, 48 * 1024}, DeviceLimits{64, 60, 1024, 64 * 1024}})
          for (const auto& [K, N, G] : shapes) {
            const auto& [lanes, occ, cols] = build;
            KoptXrowsParams p{rows, warps, cols, lanes, occ};
            if (kopt_xrows_warps(K, p) != warps) continue;  // another build serves this K
            p.ahead = kopt_xrows_ahead(p, limits.warp);
            Candidate c;
            ASSERT_TRUE(parse_candidate(xrows->source,
                                        {{"MR", p.rows},
                                         {"KSPLIT", p.warps},
                                         {"ROWS", p.cols},
                                         {"LPR", p.lanes},
                                         {"OCC", p.occ},
                                         {"AHEAD", p.ahead},
                                         {"EARLY", kopt_xrows_early(p, limits.warp) ? 1 : 0}},
                                        &c)
                            .ok());
            LaunchPlan plan;
            ASSERT_TRUE(plan_launches(c, w4a16_batch::shape(rows, K, N, G), limits, &plan).ok());
            ASSERT_EQ(plan.supported, kopt_xrows_supported(p, K, G, limits.warp))
                << K << "x" << N << " rows " << rows << " warp " << limits.warp;
            if (!plan.supported) continue;
            const KoptBatchedLaunch l = kopt_xrows_launch(p, N, limits.warp, limits.sms);
            expect_plan_is(
                plan, l,
                std::to_string(K) + "x" + std::to_string(N) + " rows " + std::to_string(rows));
            if (limits.warp == 32) ++checked_on_nvidia[build];
          }
  // On NVIDIA every build met every shape but the K past the builds (8224:
  // 257 chunks) in every bucket; lane groups of 16 only the K of at most 8
  // x 16 chunks (384, 2016, 4096, 32).
  for (const std::array<int64_t, 3>& build : kBuilds)
    EXPECT_EQ(checked_on_nvidia[build],
              static_cast<int>(std::size(kKoptXrowsBuckets)) * (build[0] == 32 ? 7 : 4))
        << build[0] << " lanes, OCC " << build[1] << ", " << build[2] << " columns";
  EXPECT_EQ(kopt_xrows_warps(8224, KoptXrowsParams{2, 1}), 9);
}

// The library's choice for 3 and 4 rows between the two paths: xrows at 2
// rows always; at 3 and 4 klanes for short K (<= 1536) and for large
// weights (K x N >= 31 x 2^20), as measured on the contest shapes and
// others. One bf16 row: xrows below those weights at any K, and above them
// where the batch-1 kernel is a generic variant.
TEST(W4a16BatchTest, ThreeAndFourRowsTakeTheMeasuredPath) {
  for (long long rows : {1, 2}) EXPECT_TRUE(kopt_xrows_preferred(rows, 7168, 9216));
  for (const bool tuned : {false, true}) {
    EXPECT_TRUE(kopt_xrows_one_bf16_row(5120, 6348, tuned));
    EXPECT_TRUE(kopt_xrows_one_bf16_row(384, 5120, tuned));
  }
  EXPECT_FALSE(kopt_xrows_one_bf16_row(7168, 9216, true));   // 66M weights, a tuned kernel
  EXPECT_FALSE(kopt_xrows_one_bf16_row(5120, 6349, true));   // 31 x 2^20 + 1024
  EXPECT_TRUE(kopt_xrows_one_bf16_row(4096, 14336, false));  // a generic one
  // One fp16 row with fp16 y: below 8 x 2^20 weights.
  EXPECT_TRUE(kopt_xrows_one_fp16_row(7168, 1024));
  EXPECT_TRUE(kopt_xrows_one_fp16_row(384, 5120));
  EXPECT_FALSE(kopt_xrows_one_fp16_row(7168, 1536));
  EXPECT_FALSE(kopt_xrows_one_fp16_row(4096, 2048));  // 8 x 2^20
  for (long long rows : {3, 4}) {
    EXPECT_FALSE(kopt_xrows_preferred(rows, 7168, 9216));  // 66M weights
    EXPECT_FALSE(kopt_xrows_preferred(rows, 4608, 7168));
    EXPECT_FALSE(kopt_xrows_preferred(rows, 5120, 6349));  // 31 x 2^20 + 1024
    EXPECT_TRUE(kopt_xrows_preferred(rows, 5120, 6348));
    EXPECT_TRUE(kopt_xrows_preferred(rows, 5120, 6144));
    EXPECT_TRUE(kopt_xrows_preferred(rows, 3456, 5120));
    EXPECT_TRUE(kopt_xrows_preferred(rows, 7168, 1536));
    // Short K.
    EXPECT_FALSE(kopt_xrows_preferred(rows, 512, 7168));
    EXPECT_FALSE(kopt_xrows_preferred(rows, 1024, 4096));
    EXPECT_FALSE(kopt_xrows_preferred(rows, 1536, 6144));
    EXPECT_TRUE(kopt_xrows_preferred(rows, 1568, 6144));
    EXPECT_TRUE(kopt_xrows_preferred(rows, 1792, 4096));
  }
  // 5 to 8 rows: klanes, but on the shapes tuned for the register path.
  for (long long rows : {5, 8}) {
    EXPECT_FALSE(kopt_xrows_preferred(rows, 7168, 1536));
    EXPECT_FALSE(kopt_xrows_preferred(rows, 5120, 3072));
  }
}

// The register path's tuned builds: the columns and blocks an SM measured
// faster on the contest shapes, by row bucket, the default choice
// elsewhere; each tuned build is one the seed's contract admits, and it
// runs on a warp of 32.
TEST(W4a16BatchTest, TunedShapesTakeTheirRegisterPathBuild) {
  ASSERT_NE(kopt_xrows_tuned(2, 7168, 1536), nullptr);
  EXPECT_EQ(kopt_xrows_tuned(2, 7168, 1536)->cols, 6);
  EXPECT_EQ(kopt_xrows_tuned(2, 5120, 256)->cols, 2);
  EXPECT_EQ(kopt_xrows_tuned(2, 4608, 7168)->occ, 4);
  EXPECT_EQ(kopt_xrows_tuned(2, 7168, 1024), nullptr);  // measured: the default the fastest
  EXPECT_EQ(kopt_xrows_tuned(2, 1536, 7168), nullptr);  // K and N swapped: not tuned
  // 3 and 4 rows: the 4-row bucket's entries.
  EXPECT_EQ(kopt_xrows_tuned(4, 7168, 1536), nullptr);
  ASSERT_NE(kopt_xrows_tuned(3, 5120, 256), nullptr);
  EXPECT_EQ(kopt_xrows_tuned(3, 5120, 256)->rows, 4);
  EXPECT_EQ(kopt_xrows_tuned(4, 7168, 9216)->occ, 2);  // where the rule prefers klanes
  EXPECT_EQ(kopt_xrows_tuned(5, 7168, 9216), nullptr);
  // 5 to 8 rows: the 8-row bucket's entries, one block an SM.
  ASSERT_NE(kopt_xrows_tuned(8, 7168, 1536), nullptr);
  EXPECT_EQ(kopt_xrows_tuned(8, 7168, 1536)->cols, 4);
  EXPECT_EQ(kopt_xrows_tuned(8, 7168, 1536)->occ, 1);
  ASSERT_NE(kopt_xrows_tuned(5, 7168, 1024), nullptr);
  EXPECT_EQ(kopt_xrows_tuned(5, 7168, 1024)->rows, 8);
  ASSERT_NE(kopt_xrows_tuned(7, 5120, 256), nullptr);
  EXPECT_EQ(kopt_xrows_tuned(7, 5120, 256)->cols, 2);
  EXPECT_EQ(kopt_xrows_tuned(8, 5120, 6144), nullptr);
  EXPECT_EQ(kopt_xrows_tuned(9, 7168, 1536), nullptr);  // past the register path's buckets
  // The X16 probe's entries.
  ASSERT_NE(kopt_xrows_tuned(2, 5120, 3072), nullptr);
  EXPECT_EQ(kopt_xrows_tuned(2, 5120, 3072)->occ, 4);
  ASSERT_NE(kopt_xrows_tuned(4, 5120, 768), nullptr);
  EXPECT_EQ(kopt_xrows_tuned(4, 5120, 768)->cols, 6);
  ASSERT_NE(kopt_xrows_tuned(3, 4608, 7168), nullptr);  // where the rule prefers klanes
  EXPECT_EQ(kopt_xrows_tuned(3, 4608, 7168)->cols, 2);
  const Seed* xrows = find_seed(batch(), "xrows");
  ASSERT_NE(xrows, nullptr);
  for (const KoptXrowsTuned& t : kKoptXrowsTuned) {
    const KoptXrowsParams p{t.rows, kopt_xrows_warps(t.K, KoptXrowsParams{t.rows, 1}), t.cols, 32,
                            t.occ};
    EXPECT_TRUE(kopt_xrows_supported(p, t.K, 64, 32)) << t.K << "x" << t.N;
    Candidate c;
    EXPECT_TRUE(
        parse_candidate(xrows->source, {{"MR", t.rows}, {"ROWS", t.cols}, {"OCC", t.occ}}, &c).ok())
        << t.K << "x" << t.N;
  }
}

// Lane groups of 16 for K of 16 chunks or fewer, whole warps above; the
// library's 2-row register path takes them, and 4 rows (no such build)
// whole warps. And at 3 and 4 rows on a warp of 32 where lane groups of 16
// take 8 or 12 warps, not 9 or 10 (whole warps' five-warp build), 11 (not
// among the seed's) nor 7.
TEST(W4a16BatchTest, ShortAndMidLengthKTakeLaneGroupsOfSixteen) {
  for (long long rows : {1, 2, 4}) {
    EXPECT_EQ(kopt_xrows_lanes(384, rows, 32), 16);
    EXPECT_EQ(kopt_xrows_lanes(512, rows, 64), 16);
    EXPECT_EQ(kopt_xrows_lanes(544, rows, 32), 32);
    EXPECT_EQ(kopt_xrows_lanes(7168, rows, 32), 32);
  }
  EXPECT_EQ(kopt_xrows_warps(512, KoptXrowsParams{2, 1, 4, 16}), 1);
  // (K, lane groups at 3 and 4 rows on a warp of 32)
  const std::vector<std::pair<long long, long long>> mid = {
      {3584, 32}, {3616, 16}, {4096, 16}, {4128, 32}, {5120, 32},
      {5152, 32}, {5632, 32}, {5664, 16}, {6144, 16}, {6176, 32}};
  for (const auto& [K, lanes] : mid) {
    for (long long rows : {3, 4}) EXPECT_EQ(kopt_xrows_lanes(K, rows, 32), lanes) << K;
    EXPECT_EQ(kopt_xrows_lanes(K, 2, 32), 32) << K;  // measured slower at 2 rows
    EXPECT_EQ(kopt_xrows_lanes(K, 4, 64), 32) << K;  // measured on NVIDIA only
  }
  EXPECT_EQ(kopt_xrows_warps(4096, KoptXrowsParams{4, 1, 4, 16}), 8);
  EXPECT_EQ(kopt_xrows_warps(6144, KoptXrowsParams{4, 1, 4, 16}), 12);
}

// The 4-row builds in lane groups of 16 of mid-length K launch what the
// seed's contract plans, within a block's registers on a warp of 32.
TEST(W4a16BatchTest, TheMidLengthLaneGroupsBuildsAreTheContractsPlan) {
  const Seed* xrows = find_seed(batch(), "xrows");
  ASSERT_NE(xrows, nullptr);
  const DeviceLimits limits{32, 132, 1024, 48 * 1024};
  int checked = 0;
  for (long long warps : kKoptXrowsMidLanesWarps)
    for (const auto& [K, N] : std::vector<std::pair<int64_t, int64_t>>{
             {4096, 4096}, {3616, 100}, {5664, 777}, {6144, 2048}, {6144, 14336}}) {
      const KoptXrowsParams p{4, warps, 4, 16, 0};
      if (kopt_xrows_warps(K, p) != warps) continue;
      ASSERT_EQ(kopt_xrows_lanes(K, 4, 32), 16) << K;
      EXPECT_TRUE(kopt_xrows_supported(p, K, 64, 32)) << K;
      Candidate c;
      ASSERT_TRUE(
          parse_candidate(xrows->source,
                          {{"MR", 4}, {"KSPLIT", warps}, {"ROWS", 4}, {"LPR", 16}, {"OCC", 0}}, &c)
              .ok());
      LaunchPlan plan;
      ASSERT_TRUE(plan_launches(c, w4a16_batch::shape(3, K, N, 64), limits, &plan).ok());
      ASSERT_TRUE(plan.supported) << K << "x" << N;
      expect_plan_is(plan, kopt_xrows_launch(p, N, 32, limits.sms),
                     std::to_string(K) + "x" + std::to_string(N));
      ++checked;
    }
  EXPECT_EQ(checked, 5);
}

}  // namespace
}  // namespace kopt
