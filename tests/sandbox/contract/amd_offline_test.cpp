#include "sandbox/contract/amd_offline.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "sandbox/client/sandbox.h"
#include "sandbox/contract/candidate.h"
#include "sandbox/contract/prelude.h"
#include "sandbox/contract/static_checks.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

// CI sets KOPT_REQUIRE_AMD_TOOLCHAIN=1 so a broken install fails instead of skipping.
bool toolchain_or_skip(AmdToolchain* tc) {
  *tc = AmdToolchain::find();
  if (tc->available()) return true;
  const char* required = std::getenv("KOPT_REQUIRE_AMD_TOOLCHAIN");
  EXPECT_FALSE(required && std::string(required) == "1")
      << "the AMD toolchain is required here but missing";
  return false;
}

TEST(AmdOfflineTest, ParsesResourceComments) {
  TargetResources r;
  parse_amdgpu_resources(
      "; NumSgprs: 18\n; NumVgprs: 24\n; ScratchSize: 0\n; Occupancy: 10\n"
      "; NumSgprs: 30\n; NumVgprs: 61\n; ScratchSize: 16\n; Occupancy: 4\n",
      &r);
  EXPECT_EQ(r.registers, 61);
  EXPECT_EQ(r.scalar_registers, 30);
  EXPECT_EQ(r.spill_bytes, 16);
  EXPECT_EQ(r.occupancy, 4);
}

TEST(AmdOfflineTest, MissingToolchainSaysNotChecked) {
  AmdToolchain none;
  TargetResources r;
  ASSERT_TRUE(check_gfx906(none, "", {}, 10, &r).ok());
  EXPECT_FALSE(r.checked);
  EXPECT_NE(r.note.find("kopt check-amd"), std::string::npos);
}

// Every seed builds for gfx906 (wave64) with no scratch: the contest card.
TEST(AmdOfflineTest, AllSeedsCompileForGfx906) {
  AmdToolchain tc;
  if (!toolchain_or_skip(&tc))
    GTEST_SKIP()
        << "no clang++-15 with ROCm device libraries; install them with scripts/install-deps";
  for (const auto& seed : test::w4a16_problem().seeds()) {
    Candidate c;
    ASSERT_TRUE(parse_candidate(seed.source, {}, &c).ok());
    std::vector<std::string> kernels;
    for (const auto& l : c.spec.launches) kernels.push_back(l.kernel);
    if (c.spec.relayout) kernels.push_back(c.spec.relayout->kernel);
    std::string cleaned;
    ASSERT_TRUE(check_source(c.source, kernels, &cleaned).ok());
    TargetResources r;
    ASSERT_TRUE(check_gfx906(tc, assemble_source(test::w4a16_problem(), cleaned),
                             parameter_defines(c), 120, &r)
                    .ok());
    EXPECT_TRUE(r.checked);
    EXPECT_TRUE(r.compiled) << seed.name << ": " << r.note << "\n" << r.log;
    EXPECT_GT(r.registers, 0) << seed.name;
    EXPECT_EQ(r.spill_bytes, 0) << seed.name;
    EXPECT_GE(r.occupancy, 1) << seed.name;
  }
}

TEST(AmdOfflineTest, CompileErrorsAreRecorded) {
  AmdToolchain tc;
  if (!toolchain_or_skip(&tc)) GTEST_SKIP() << "no clang++-15 with ROCm device libraries";
  TargetResources r;
  ASSERT_TRUE(check_gfx906(
                  tc, assemble_source(test::w4a16_problem(), "KOPT_KERNEL void gemv() { nope(); }"),
                  {}, 60, &r)
                  .ok());
  EXPECT_TRUE(r.checked);
  EXPECT_FALSE(r.compiled);
  EXPECT_NE(r.log.find("nope"), std::string::npos);
}

// The sandbox's gfx906 check builds a candidate as it is evaluated: for one
// shape, with that shape's sizes as macros; a shape without variables builds
// it for any shape. The result is kept per shape, not per source alone.
TEST(AmdOfflineTest, SandboxCheckBuildsForTheShapeItIsGiven) {
  AmdToolchain tc;
  if (!toolchain_or_skip(&tc)) GTEST_SKIP() << "no clang++-15 with ROCm device libraries";
  const std::string source = R"src(/* kopt:
{"name": "t", "launches": [{"kernel": "gemv", "grid": ["N"], "block": ["WARP"]}]}
*/
#if !defined(KOPT_SHAPE_K) || KOPT_SHAPE_K != 5120 || KOPT_SHAPE_N != 3072 || KOPT_SHAPE_G != 64
#error built for another shape
#endif
KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, int G) {}
)src";
  Sandbox sandbox;
  const TargetResources right =
      sandbox.check_amd(*enter_candidate(source, {}), w4a16::shape(5120, 3072, 64));
  EXPECT_TRUE(right.checked && right.compiled) << right.note << right.log.substr(0, 2000);
  for (const Shape& other : {w4a16::shape(4096, 3072, 64), Shape{w4a16::kId, {}}}) {
    const TargetResources wrong = sandbox.check_amd(*enter_candidate(source, {}), other);
    EXPECT_TRUE(wrong.checked) << other.key();
    EXPECT_FALSE(wrong.compiled) << other.key();
    EXPECT_NE(wrong.log.find("built for another shape"), std::string::npos) << other.key();
  }
}

}  // namespace
}  // namespace kopt
