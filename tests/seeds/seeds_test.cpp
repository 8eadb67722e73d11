#include <gtest/gtest.h>

#include "problems/w4a16_gemv/w4a16_gemv.h"
#include "sandbox/contract/candidate.h"
#include "sandbox/contract/static_checks.h"
#include "tests/test_paths.h"

namespace kopt {
namespace {

TEST(SeedsTest, EverySeedHasTunableParameters) {
  ASSERT_GE(test::w4a16_problem().seeds().size(), 4u);
  for (const char* name : {"naive", "vec", "splitk", "dot", "gen"}) {
    const Seed* s = find_seed(test::w4a16_problem(), name);
    ASSERT_NE(s, nullptr) << name;
    Candidate c;
    ASSERT_TRUE(parse_candidate(s->source, {}, &c).ok()) << name;
    EXPECT_FALSE(c.spec.params.empty()) << name;
    EXPECT_FALSE(c.spec.description.empty()) << name;
  }
  EXPECT_EQ(find_seed(test::w4a16_problem(), "nope"), nullptr);
}

TEST(SeedsTest, SeedsHaveTheirDistinctShapes) {
  Candidate vec, splitk;
  ASSERT_TRUE(parse_candidate(find_seed(test::w4a16_problem(), "vec")->source, {}, &vec).ok());
  ASSERT_TRUE(
      parse_candidate(find_seed(test::w4a16_problem(), "splitk")->source, {}, &splitk).ok());
  EXPECT_TRUE(vec.spec.relayout.has_value());  // load-time re-layout
  EXPECT_EQ(splitk.spec.launches.size(), 2u);  // partial sums + reduction
  EXPECT_NE(splitk.spec.workspace_bytes.text(), "0");
}

// Every seed passes the same static checks as any candidate.
TEST(SeedsTest, SeedsPassTheStaticChecks) {
  for (const auto& seed : test::w4a16_problem().seeds()) {
    Candidate c;
    ASSERT_TRUE(parse_candidate(seed.source, {}, &c).ok()) << seed.name;
    std::vector<std::string> kernels;
    for (const auto& l : c.spec.launches) kernels.push_back(l.kernel);
    if (c.spec.relayout) kernels.push_back(c.spec.relayout->kernel);
    std::string cleaned;
    Status s = check_source(seed.source, kernels, &cleaned);
    EXPECT_TRUE(s.ok()) << seed.name << ": " << s.message();
  }
}

}  // namespace
}  // namespace kopt
