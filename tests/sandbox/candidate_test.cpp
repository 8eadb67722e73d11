#include "sandbox/candidate.h"

#include <gtest/gtest.h>

#include "seeds/seeds.h"

namespace kopt {
namespace {

const char* kMinimal = R"src(/* kopt:
{"name": "t", "launches": [{"kernel": "gemv", "grid": ["cdiv(N, ROWS)"], "block": ["ROWS * WARP"]}],
 "params": {"ROWS": {"values": [1, 2, 4], "default": 2}},
 "requires": ["K % 64 == 0"]}
*/
KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, int G) {}
)src";

TEST(CandidateTest, ParsesContractAndDefaults) {
  Candidate c;
  ASSERT_TRUE(parse_candidate(kMinimal, {}, &c).ok());
  EXPECT_EQ(c.spec.name, "t");
  ASSERT_EQ(c.spec.launches.size(), 1u);
  EXPECT_EQ(c.params.at("ROWS"), 2);
  EXPECT_EQ(parameter_defines(c), std::vector<std::string>{"-DROWS=2"});
}

TEST(CandidateTest, PlansLaunchesForAShape) {
  Candidate c;
  ASSERT_TRUE(parse_candidate(kMinimal, {{"ROWS", 4}}, &c).ok());
  LaunchPlan plan;
  ASSERT_TRUE(plan_launches(c, Shape{7168, 9216, 64}, DeviceLimits{32, 132, 1024, 49152}, &plan).ok());
  ASSERT_TRUE(plan.supported);
  EXPECT_EQ(plan.launches[0].grid[0], 2304u);
  EXPECT_EQ(plan.launches[0].block[0], 128u);
  EXPECT_EQ(plan.launches[0].grid[1], 1u);
}

TEST(CandidateTest, RequiresMarksUnsupportedShapes) {
  Candidate c;
  ASSERT_TRUE(parse_candidate(kMinimal, {}, &c).ok());
  LaunchPlan plan;
  ASSERT_TRUE(plan_launches(c, Shape{96, 10, 32}, DeviceLimits{}, &plan).ok());
  EXPECT_FALSE(plan.supported);
  EXPECT_NE(plan.unsupported_reason.find("K % 64 == 0"), std::string::npos);
}

TEST(CandidateTest, RejectsBadContracts) {
  Candidate c;
  EXPECT_FALSE(parse_candidate("KOPT_KERNEL void gemv() {}", {}, &c).ok());  // no block
  EXPECT_FALSE(parse_candidate("/* kopt: {not json} */", {}, &c).ok());
  EXPECT_FALSE(parse_candidate("/* kopt: {\"launches\": []} */", {}, &c).ok());
  EXPECT_FALSE(parse_candidate("/* kopt: {\"launches\": [{\"kernel\": \"a b\", \"grid\": 1, \"block\": 1}]} */", {}, &c).ok());
  EXPECT_FALSE(parse_candidate("/* kopt: {\"launchez\": []} */", {}, &c).ok());
  EXPECT_FALSE(parse_candidate("/* kopt: {\"launches\": [{\"kernel\": \"k\", \"grid\": 1, \"block\": 1}], "
                               "\"relayout\": {\"kernel\": \"r\", \"grid\": 1, \"block\": 1}} */",
                               {}, &c).ok());  // relayout without packed_bytes
  EXPECT_FALSE(parse_candidate(kMinimal, {{"ROWS", 3}}, &c).ok());   // not among values
  EXPECT_FALSE(parse_candidate(kMinimal, {{"COLS", 1}}, &c).ok());   // not declared
  EXPECT_FALSE(parse_candidate("/* kopt: {\"launches\": [{\"kernel\": \"k\", \"grid\": 1, \"block\": 1}], "
                               "\"params\": {\"N\": {\"values\": [1]}}} */", {}, &c).ok());  // reserved name
}

TEST(CandidateTest, PlanRejectsImpossibleGeometry) {
  Candidate c;
  ASSERT_TRUE(parse_candidate("/* kopt: {\"launches\": [{\"kernel\": \"k\", \"grid\": [\"N - N\"], \"block\": [2048]}]} */", {}, &c).ok());
  LaunchPlan plan;
  Status s = plan_launches(c, Shape{64, 64, 64}, DeviceLimits{}, &plan);
  EXPECT_FALSE(s.ok());
}

TEST(CandidateTest, KeyDependsOnSourceAndParameters) {
  Candidate a, b, c;
  ASSERT_TRUE(parse_candidate(kMinimal, {}, &a).ok());
  ASSERT_TRUE(parse_candidate(kMinimal, {{"ROWS", 2}}, &b).ok());
  ASSERT_TRUE(parse_candidate(kMinimal, {{"ROWS", 4}}, &c).ok());
  EXPECT_EQ(candidate_key(a), candidate_key(b));
  EXPECT_NE(candidate_key(a), candidate_key(c));
}

TEST(CandidateTest, EverySeedPlansEveryContestShape) {
  for (const auto& seed : builtin_seeds()) {
    Candidate c;
    ASSERT_TRUE(parse_candidate(seed.source, {}, &c).ok()) << seed.name;
    for (int64_t warp : {32, 64}) {
      for (const Shape& s : contest_suite()) {
        LaunchPlan plan;
        Status st = plan_launches(c, s, DeviceLimits{warp, 60, 1024, 65536}, &plan);
        EXPECT_TRUE(st.ok()) << seed.name << " " << s.name() << ": " << st.message();
        EXPECT_TRUE(plan.supported) << seed.name << " " << s.name();
      }
    }
  }
}

}  // namespace
}  // namespace kopt
