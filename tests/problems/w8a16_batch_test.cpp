// The batched W8A16 problem without a GPU: its seeds pass the source rules
// and compile for sm_90 and gfx906 without scratch at the corners of their
// knobs. What both batched problems share (shapes, reference, suites, the
// row-0 kernel) is tests/problems/row_batch_test.cpp.
#include "problems/w8a16_batch/w8a16_batch.h"

#include <gtest/gtest.h>

#include "tests/problems/seed_corners.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

TEST(W8a16BatchTest, SeedsAndKnobsCompileForBothTargetsWithoutScratch) {
  (void)test::w4a16_problem();  // the problems are registered
  const test::KnobCorners knobs = {
      {"rows", {{}}},
      {"lanes",
       {{},
        {{"MR", 16}, {"COLS", 4}, {"LPC", 1}, {"XT", 512}},
        {{"MR", 8}, {"COLS", 4}, {"LPC", 8}, {"XT", 1024}, {"SPLIT", 4}},
        {{"MR", 4}, {"COLS", 2}, {"LPC", 32}, {"WARPS", 4}, {"XT", 2048}},
        {{"MR", 2}, {"COLS", 1}, {"LPC", 2}, {"WARPS", 16}, {"SPLIT", 16}},
        {{"MR", 1}, {"COLS", 1}, {"LPC", 16}, {"XT", 256}}}}};
  test::expect_seeds_compile_without_scratch(*find_problem(w8a16_batch::kId), knobs,
                                             w8a16_batch::shape(1, 7168, 9216));
}

}  // namespace
}  // namespace kopt
