#include "seeds/seeds.h"

#include <gtest/gtest.h>

#include "sandbox/candidate.h"

namespace kopt {
namespace {

TEST(SeedsTest, ThreeSeedsWithTunableParameters) {
  ASSERT_GE(builtin_seeds().size(), 3u);
  for (const char* name : {"naive", "vec", "splitk"}) {
    const Seed* s = find_seed(name);
    ASSERT_NE(s, nullptr) << name;
    Candidate c;
    ASSERT_TRUE(parse_candidate(s->source, {}, &c).ok()) << name;
    EXPECT_FALSE(c.spec.params.empty()) << name;
    EXPECT_FALSE(c.spec.description.empty()) << name;
  }
  EXPECT_EQ(find_seed("nope"), nullptr);
}

TEST(SeedsTest, SeedsHaveTheirDistinctShapes) {
  Candidate vec, splitk;
  ASSERT_TRUE(parse_candidate(find_seed("vec")->source, {}, &vec).ok());
  ASSERT_TRUE(parse_candidate(find_seed("splitk")->source, {}, &splitk).ok());
  EXPECT_TRUE(vec.spec.relayout.has_value());      // load-time re-layout
  EXPECT_EQ(splitk.spec.launches.size(), 2u);      // partial sums + reduction
  EXPECT_NE(splitk.spec.workspace_bytes, "0");
}

}  // namespace
}  // namespace kopt
