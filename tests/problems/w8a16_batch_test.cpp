// The batched W8A16 problem without a GPU: its seeds pass the source rules
// and compile for sm_90 and gfx906 without scratch at the corners of their
// knobs, and the library launches its lanes builds as their contract plans. What both batched
// problems share (shapes, reference, suites, the row-0 kernel) is
// tests/problems/row_batch_test.cpp.
#include "problems/w8a16_batch/w8a16_batch.h"

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "kernels/w8a16_gemv/kopt_w8a16_batched_plan.h"
#include "sandbox/contract/candidate.h"
#include "tests/problems/seed_corners.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

// The lanes seed's knobs for a build of the library (kopt_w8a16_lanes).
std::map<std::string, int64_t> lanes_knobs(const KoptW8a16Lanes& p) {
  return {{"MR", p.rows}, {"COLS", p.cols},   {"LPC", p.lanes}, {"WARPS", p.warps},
          {"XT", p.xt},   {"DEPTH", p.depth}, {"X16", p.x16}};
}

TEST(W8a16BatchTest, SeedsAndKnobsCompileForBothTargetsWithoutScratch) {
  (void)test::w4a16_problem();  // the problems are registered
  test::KnobCorners knobs = {
      {"rows", {{}}},
      {"lanes",
       {{},
        {{"MR", 16}, {"COLS", 4}, {"LPC", 1}, {"XT", 512}},
        {{"MR", 8}, {"COLS", 4}, {"LPC", 8}, {"XT", 1024}, {"SPLIT", 4}},
        {{"MR", 4}, {"COLS", 2}, {"LPC", 32}, {"WARPS", 4}, {"XT", 2048}},
        {{"MR", 2}, {"COLS", 1}, {"LPC", 2}, {"WARPS", 16}, {"SPLIT", 16}, {"DEPTH", 4}},
        {{"MR", 16}, {"COLS", 4}, {"LPC", 8}, {"DEPTH", 1}, {"SPLIT", 32}},
        {{"MR", 1}, {"COLS", 1}, {"LPC", 16}, {"XT", 256}},
        // Corners that run on a wavefront of 64 too (the others ask for more
        // registers than gfx906 has for them, and the contract says so).
        {{"MR", 8}, {"COLS", 2}, {"LPC", 8}, {"SPLIT", 8}},
        {{"MR", 16}, {"COLS", 2}, {"LPC", 8}, {"DEPTH", 1}, {"XT", 512}},
        {{"MR", 16}, {"COLS", 1}, {"LPC", 16}, {"DEPTH", 4}, {"WARPS", 4}},
        // Integer dots (X16) at the same kinds of corners.
        {{"X16", 1}},
        {{"X16", 1}, {"MR", 16}, {"COLS", 4}, {"LPC", 1}, {"XT", 512}},
        {{"X16", 1}, {"MR", 2}, {"COLS", 1}, {"LPC", 32}, {"WARPS", 16}, {"XT", 2048}},
        {{"X16", 1}, {"MR", 8}, {"COLS", 2}, {"LPC", 8}, {"SPLIT", 8}},
        {{"X16", 1}, {"MR", 16}, {"COLS", 2}, {"LPC", 8}, {"DEPTH", 1}, {"XT", 512}}}}};
  // And the library's builds (kopt_w8a16_lanes) on both warp sizes, and its
  // tuned builds (kopt_w8a16_choice).
  for (long long bucket : kKoptW8a16Buckets)
    for (long long warp : {32, 64}) {
      const KoptW8a16Lanes p = kopt_w8a16_lanes(bucket, warp);
      knobs["lanes"].push_back(lanes_knobs(p));
    }
  for (const KoptW8a16Tuned& t : kKoptW8a16Tuned)
    knobs["lanes"].push_back(lanes_knobs(kopt_w8a16_choice(t.bucket, t.K, t.N, 32)));
  test::expect_seeds_compile_without_scratch(*find_problem(w8a16_batch::kId), knobs,
                                             w8a16_batch::shape(1, 7168, 9216));
}

// The library launches the lanes seed with C++ written from its contract
// (kernels/w8a16_gemv/kopt_w8a16_batched_plan.h): for every bucket, on both
// warp sizes and shapes of every kind (narrow N split over K, odd N, short
// and long K), it must plan what the contract plans, its builds must be
// ones the contract admits, and the one workspace it allocates must hold
// every call's.
TEST(W8a16BatchTest, TheLibrarysBatchedLaunchIsTheContractsPlan) {
  (void)test::w4a16_problem();
  const Seed* lanes = find_seed(*find_problem(w8a16_batch::kId), "lanes");
  ASSERT_NE(lanes, nullptr);
  // (1536x6144: the tuned 2-row build.)
  const std::vector<std::array<int64_t, 2>> shapes = {{7168, 9216}, {5120, 256},  {384, 5120},
                                                      {4096, 777},  {16, 33},     {65536, 1024},
                                                      {7168, 1024}, {5120, 3072}, {1536, 6144}};
  int checked = 0;
  for (int64_t bucket : kKoptW8a16Buckets)
    for (const DeviceLimits limits :
         {DeviceLimits{32, 132, 1024, 48 * 1024}, DeviceLimits{64, 60, 1024, 64 * 1024}})
      for (const auto& [K, N] : shapes)
        for (int64_t M : {bucket / 2 + 1, bucket}) {
          const KoptW8a16Lanes p = kopt_w8a16_choice(bucket, K, N, limits.warp);
          const KoptW8a16Launch l = kopt_w8a16_launch(p, M, K, N, limits.warp, limits.sms);
          std::map<std::string, int64_t> knobs = lanes_knobs(p);
          knobs["SPLIT"] = l.grid_y;
          Candidate c;
          ASSERT_TRUE(parse_candidate(lanes->source, knobs, &c).ok())
              << "the library's split " << l.grid_y << " is not a value of the seed's SPLIT";
          LaunchPlan plan;
          ASSERT_TRUE(plan_launches(c, w8a16_batch::shape(M, K, N), limits, &plan).ok());
          const std::string where = std::to_string(M) + "x" + std::to_string(K) + "x" +
                                    std::to_string(N) + " warp " + std::to_string(limits.warp);
          ASSERT_TRUE(plan.supported) << where << ": " << plan.unsupported_reason;
          ASSERT_EQ(plan.launches.size(), 1u);
          EXPECT_EQ(plan.launches[0].grid[0], l.grid_x) << where;
          EXPECT_EQ(plan.launches[0].grid[1], l.grid_y) << where;
          EXPECT_EQ(plan.launches[0].block[0], l.block) << where;
          EXPECT_EQ(plan.workspace_bytes, l.workspace_bytes) << where;
          EXPECT_LE(l.workspace_bytes, kopt_w8a16_workspace_bytes(K, N, limits.warp, limits.sms))
              << where;
          ++checked;
        }
  EXPECT_EQ(checked, static_cast<int>(std::size(kKoptW8a16Buckets)) * 2 * 9 * 2);
  // The tuned 2-row build: one channel a lane group of sixteen on a warp of
  // 32 for its shape only.
  EXPECT_EQ(kopt_w8a16_choice(2, 1536, 6144, 32).lanes, 16);
  EXPECT_EQ(kopt_w8a16_choice(2, 1536, 6144, 32).cols, 1);
  EXPECT_EQ(kopt_w8a16_choice(2, 1536, 6144, 64).lanes, 8);
  EXPECT_EQ(kopt_w8a16_choice(4, 1536, 6144, 32).lanes, 8);
  EXPECT_EQ(kopt_w8a16_choice(2, 1536, 6143, 32).lanes, 8);
  // The busiest SM: 9216 channels in 144 column blocks of 64 on 132 SMs
  // take eight slices of 7168 at 16 rows (1152 blocks, 9 rounds of 896
  // values; four slices leave a fifth round a third full); 7168 channels of
  // 4096 two (224 blocks: one alone on an SM would stream too slowly);
  // 7168 channels of 512 one (slicing costs more than the SMs it fills);
  // 256 channels of 5120 the most slices that leave each lane two steps
  // (5120 / 256 = 20 -> 16).
  EXPECT_EQ(kopt_w8a16_split(kopt_w8a16_lanes(16, 32), 7168, 9216, 32, 132), 8);
  EXPECT_EQ(kopt_w8a16_split(kopt_w8a16_lanes(16, 32), 4096, 7168, 32, 132), 2);
  EXPECT_EQ(kopt_w8a16_split(kopt_w8a16_lanes(16, 32), 512, 7168, 32, 132), 1);
  EXPECT_EQ(kopt_w8a16_split(kopt_w8a16_lanes(16, 32), 5120, 256, 32, 132), 16);
  EXPECT_EQ(kopt_w8a16_split(kopt_w8a16_lanes(2, 32), 384, 5120, 32, 132), 1);
  EXPECT_EQ(kopt_smallest_bucket(kKoptW8a16Buckets, 3), 4);
  EXPECT_EQ(kopt_smallest_bucket(kKoptW8a16Buckets, 16), 16);
  EXPECT_EQ(kopt_smallest_bucket(kKoptW8a16Buckets, 17), 0);
  EXPECT_EQ(kopt_bucket_index(kKoptW8a16Buckets, 1), 0);  // the 1-row build (bf16 only)
  EXPECT_EQ(kopt_bucket_index(kKoptW8a16Buckets, 2), 1);
  EXPECT_EQ(kopt_bucket_index(kKoptW8a16Buckets, 9), 4);
  EXPECT_EQ(kopt_bucket_index(kKoptW8a16Buckets, 17), -1);
  EXPECT_EQ(kKoptW8a16MaxRows, 16);
  // One bf16 row: the 1-row build where K is cut into three slices or more
  // or is short, the batch-1 kernels where the column blocks fill the SMs.
  EXPECT_TRUE(kopt_w8a16_one_bf16_row(7168, 9216, 32, 132));   // four slices
  EXPECT_TRUE(kopt_w8a16_one_bf16_row(3072, 5120, 32, 132));   // three
  EXPECT_TRUE(kopt_w8a16_one_bf16_row(384, 5120, 32, 132));    // short K
  EXPECT_FALSE(kopt_w8a16_one_bf16_row(4608, 7168, 32, 132));  // two
  EXPECT_FALSE(kopt_w8a16_one_bf16_row(1536, 6144, 32, 132));  // one
  EXPECT_FALSE(kopt_w8a16_batched_supported(4095));
}

}  // namespace
}  // namespace kopt
